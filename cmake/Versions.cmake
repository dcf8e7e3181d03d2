# The oldest versions of the dependencies vmapfuzz is known to need, checked at configure time
# with one clear error each (README, "Dependency versions"). A dependency that does not say its
# version (RapidCheck has none; a CLI11 or Torch without a version file) is not checked.
set(VMAPFUZZ_MIN_TORCH 2.5)          # torch.cond, scan and while_loop under vmap
set(VMAPFUZZ_MIN_CLI11 2.1)          # Debian 12's 2.1.2 compiles harness/cli/
set(VMAPFUZZ_MIN_NLOHMANN_JSON 3.11) # Debian 12 has 3.11.2
set(VMAPFUZZ_MIN_GTEST 1.12)         # Debian 12 has 1.12.1 (tests only)

# vf_require_version(NAME FOUND MIN HOW): a FATAL_ERROR naming what was found and what to do
# when FOUND (a version string, "" when unknown) is below MIN.
function(vf_require_version name found min how)
  if(found STREQUAL "")
    message(STATUS "${name}: version unknown, not checked (needs >= ${min})")
  elseif(found VERSION_LESS min)
    message(FATAL_ERROR "${name} ${found} is too old: vmapfuzz needs ${name} >= ${min}. ${how}")
  else()
    message(STATUS "${name} ${found} (needs >= ${min})")
  endif()
endfunction()

# The version CLI11's headers under `include_dir` declare (CLI/Version.hpp), "" when none.
function(vf_cli11_header_version include_dir out)
  set(v "")
  if(EXISTS "${include_dir}/CLI/Version.hpp")
    file(STRINGS "${include_dir}/CLI/Version.hpp" line REGEX "#define CLI11_VERSION \"[0-9.]+\"")
    string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" v "${line}")
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()
