# vf_layer(NAME FOLDER [SOURCES...] LINKS [DEPS...])
#
# A static library for one folder of the source tree (a "layer"). Its include root is a
# directory of its own under the build tree that holds links to this folder's headers (.h, .hpp,
# and the .def tables they expand) only
# (not its subfolders'); it sees other headers through the layers it links. So
# `#include "harness/campaign/campaign.h"` from harness/run/ fails to compile with
# "No such file or directory": the layering is checked by the compiler on every build.
# Sources are named relative to FOLDER.
function(vf_layer name folder)
  cmake_parse_arguments(L "" "" "LINKS" ${ARGN})
  set(srcs)
  foreach(s ${L_UNPARSED_ARGUMENTS})
    list(APPEND srcs ${CMAKE_SOURCE_DIR}/${folder}/${s})
  endforeach()
  set(root ${CMAKE_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/${folder})
  file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${folder}/*.h ${CMAKE_SOURCE_DIR}/${folder}/*.hpp
       ${CMAKE_SOURCE_DIR}/${folder}/*.def)
  foreach(h ${headers})
    get_filename_component(base ${h} NAME)
    file(CREATE_LINK ${h} ${root}/${folder}/${base} SYMBOLIC)
  endforeach()
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${root})
    target_link_libraries(${name} PUBLIC ${L_LINKS})
    if(NOT name STREQUAL "vf_ir")
      vf_reuse_pch(${name})
    endif()
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${root})
    target_link_libraries(${name} INTERFACE ${L_LINKS})
  endif()
endfunction()

# Compile `target` with vf_ir's precompiled ATen/RapidCheck/JSON headers.
function(vf_reuse_pch target)
  target_precompile_headers(${target} REUSE_FROM vf_ir)
endfunction()
