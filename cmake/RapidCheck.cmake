# RapidCheck, which the generators are built on (not only the tests): the installed package
# (librapidcheck-dev, or an install of its source), or, with -DVMAPFUZZ_RAPIDCHECK_SOURCE=DIR,
# a source tree of it (a git checkout, Debian's `apt-get source rapidcheck`, a copied tarball)
# built here as a subproject. Either way the target is `rapidcheck`; `<rapidcheck/gtest.h>`
# (tests only) comes with it.
set(VMAPFUZZ_RAPIDCHECK_SOURCE "" CACHE PATH
    "A RapidCheck source tree to build with vmapfuzz instead of the installed package")

if(VMAPFUZZ_RAPIDCHECK_SOURCE)
  if(NOT EXISTS "${VMAPFUZZ_RAPIDCHECK_SOURCE}/CMakeLists.txt"
     OR NOT EXISTS "${VMAPFUZZ_RAPIDCHECK_SOURCE}/include/rapidcheck.h")
    message(FATAL_ERROR "VMAPFUZZ_RAPIDCHECK_SOURCE=${VMAPFUZZ_RAPIDCHECK_SOURCE} is not a RapidCheck "
                        "source tree (no CMakeLists.txt and include/rapidcheck.h there)")
  endif()
  # RapidCheck's own CMakeLists asks for an old CMake; newer CMakes refuse that without this.
  set(CMAKE_POLICY_VERSION_MINIMUM 3.5)
  set(RC_ENABLE_TESTS OFF CACHE BOOL "" FORCE)
  set(RC_ENABLE_EXAMPLES OFF CACHE BOOL "" FORCE)
  add_subdirectory(${VMAPFUZZ_RAPIDCHECK_SOURCE} ${CMAKE_BINARY_DIR}/_rapidcheck EXCLUDE_FROM_ALL)
  unset(CMAKE_POLICY_VERSION_MINIMUM)
  # Its headers are a dependency's, as an installed package's are: no warnings of ours in them.
  # The GoogleTest integration is one header; the installed package ships it beside rapidcheck.h.
  get_target_property(_rc_includes rapidcheck INTERFACE_INCLUDE_DIRECTORIES)
  set_property(TARGET rapidcheck APPEND PROPERTY INTERFACE_SYSTEM_INCLUDE_DIRECTORIES
    ${_rc_includes} ${VMAPFUZZ_RAPIDCHECK_SOURCE}/extras/gtest/include)
  target_include_directories(rapidcheck INTERFACE $<BUILD_INTERFACE:${VMAPFUZZ_RAPIDCHECK_SOURCE}/extras/gtest/include>)
  message(STATUS "RapidCheck: built from ${VMAPFUZZ_RAPIDCHECK_SOURCE}")
else()
  find_package(rapidcheck CONFIG QUIET)
  if(NOT rapidcheck_FOUND)
    message(FATAL_ERROR "RapidCheck not found: install it (Debian: librapidcheck-dev) or point "
                        "-DVMAPFUZZ_RAPIDCHECK_SOURCE=DIR at a source tree of it (see docs/gpu.md)")
  endif()
endif()
