# CLI11, the header-only library the `vmapfuzz` command line is declared with (harness/cli/): the
# installed package (libcli11-dev, or an install of its source), or, with
# -DVMAPFUZZ_CLI11_SOURCE=DIR, a copy of its headers: a CLI11 source tree (a git checkout, Debian's
# `apt-get source cli11`, a copied tarball: DIR/include/CLI/CLI.hpp) or an include directory that
# holds CLI/CLI.hpp (e.g. a copy of an installed /usr/include/CLI). Either way the target is
# `CLI11::CLI11`. Nothing is compiled: the headers are used as they are.
set(VMAPFUZZ_CLI11_SOURCE "" CACHE PATH
    "A CLI11 source tree (or include directory) to use instead of the installed package")

if(VMAPFUZZ_CLI11_SOURCE)
  if(EXISTS "${VMAPFUZZ_CLI11_SOURCE}/include/CLI/CLI.hpp")
    set(_cli11_include "${VMAPFUZZ_CLI11_SOURCE}/include")
  elseif(EXISTS "${VMAPFUZZ_CLI11_SOURCE}/CLI/CLI.hpp")
    set(_cli11_include "${VMAPFUZZ_CLI11_SOURCE}")
  else()
    message(FATAL_ERROR "VMAPFUZZ_CLI11_SOURCE=${VMAPFUZZ_CLI11_SOURCE} holds no CLI11 headers "
                        "(neither include/CLI/CLI.hpp nor CLI/CLI.hpp there)")
  endif()
  add_library(vf_cli11 INTERFACE)
  # A dependency's headers, as an installed package's are: no warnings of ours in them.
  target_include_directories(vf_cli11 SYSTEM INTERFACE ${_cli11_include})
  add_library(CLI11::CLI11 ALIAS vf_cli11)
  message(STATUS "CLI11: headers from ${_cli11_include}")
  vf_cli11_header_version("${_cli11_include}" _cli11_version)
  vf_require_version(CLI11 "${_cli11_version}" ${VMAPFUZZ_MIN_CLI11}
    "Point -DVMAPFUZZ_CLI11_SOURCE at a newer source tree of it.")
else()
  find_package(CLI11 CONFIG QUIET)
  if(NOT CLI11_FOUND)
    message(FATAL_ERROR "CLI11 not found: install it (Debian: libcli11-dev) or point "
                        "-DVMAPFUZZ_CLI11_SOURCE=DIR at a source tree of it (see docs/gpu.md)")
  endif()
  vf_require_version(CLI11 "${CLI11_VERSION}" ${VMAPFUZZ_MIN_CLI11}
    "Install a newer libcli11-dev, or point -DVMAPFUZZ_CLI11_SOURCE=DIR at a newer source tree of it.")
endif()
