# vf_embed_python(TARGET HEADER FILES...)
#
# Generates HEADER (a path under the build tree, included as <HEADER's name>) at build time with
# one `inline constexpr std::string_view vf::pysrc::NAME` per Python file (NAME: the file's name
# without `.py`), holding the file's text as a raw string literal, and adds its folder to
# TARGET's include path. The header is regenerated when a file changes. A file with a line
# `# vmapfuzz: emitted from here` contributes only what follows that line: what precedes it (a
# docstring, imports and stand-ins for the names the emitted module defines around the text)
# is there for linters and readers, not for the emitted Python.
set(VF_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_python.cmake)

function(vf_embed_python target header)
  set(files)
  foreach(f ${ARGN})
    list(APPEND files ${CMAKE_SOURCE_DIR}/${f})
  endforeach()
  string(REPLACE ";" "|" joined "${files}")
  add_custom_command(OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -DOUT=${header} "-DFILES=${joined}" -P ${VF_EMBED_SCRIPT}
    DEPENDS ${files} ${VF_EMBED_SCRIPT}
    COMMENT "Embedding the static Python of ${target}"
    VERBATIM)
  get_filename_component(dir ${header} DIRECTORY)
  target_sources(${target} PRIVATE ${header})
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
