# Shared by ci/*.sh: chooses where vmapfuzz builds and runs, and builds it.
#
# Path 1 (your own PyTorch): python3 on PATH has torch >= 2.5 and CMake, a C++20 compiler,
#   GoogleTest, RapidCheck, CLI11 and nlohmann-json are installed (RapidCheck and CLI11 may be
#   source trees instead: VMAPFUZZ_CMAKE_ARGS, see README). Nothing else is set up.
# Path 2 (the embedded default): a Debian sid root with torch 2.14 made by ci/sid-root.sh.
# VMAPFUZZ_ENV=host or VMAPFUZZ_ENV=sid forces one.
set -euo pipefail
VF_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$VF_ROOT"

vf_host_ok() {
  command -v python3 >/dev/null && python3 - <<'PY' 2>/dev/null
import sys, torch
major, minor = (int(x) for x in torch.__version__.split(".")[:2])
sys.exit(0 if (major, minor) >= (2, 5) else 1)
PY
}

vf_choose_env() {
  case "${VMAPFUZZ_ENV:-auto}" in
    host) echo host ;;
    sid) echo sid ;;
    auto) if [ "${VMAPFUZZ_IN_SID:-}" = 1 ] || vf_host_ok; then echo host; else echo sid; fi ;;
    *) echo "vmapfuzz: error: VMAPFUZZ_ENV must be host, sid or auto" >&2; exit 2 ;;
  esac
}

# Runs "$@" where torch is: here, or inside the sid root.
vf_in_env() {
  if [ "$VF_ENV" = host ]; then "$@"; else "$VF_ROOT/ci/sid-root.sh" run "$@"; fi
}

# Configures and builds in ${VMAPFUZZ_BUILD_DIR:-build} with ${VMAPFUZZ_JOBS:-$(nproc)} jobs and
# the extra CMake flags in VMAPFUZZ_CMAKE_ARGS. With arguments, builds only those targets
# (`vf_build vmapfuzz`: the binary alone, without the tests); without, every target.
vf_build() {
  local build=${VMAPFUZZ_BUILD_DIR:-build}
  local prefix
  prefix=$(vf_in_env python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
  vf_in_env cmake -S . -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" ${VMAPFUZZ_CMAKE_ARGS:-} >/dev/null
  local targets=()
  [ $# -eq 0 ] || targets=(--target "$@")
  vf_in_env cmake --build "$build" -j "${VMAPFUZZ_JOBS:-$(nproc)}" "${targets[@]}"
}

# Prints -DVMAPFUZZ_TESTS=OFF when CMake finds no GoogleTest where it builds (a GPU machine with
# only a wheel of torch): the vmapfuzz binary builds without it. Prints nothing otherwise.
vf_tests_flag() {
  local probe
  probe=$(mktemp -d)
  printf 'cmake_minimum_required(VERSION 3.20)\nproject(gtest_probe CXX)\nfind_package(GTest REQUIRED)\n' >"$probe/CMakeLists.txt"
  vf_in_env cmake -S "$probe" -B "$probe/build" >/dev/null 2>&1 || echo "-DVMAPFUZZ_TESTS=OFF"
  rm -rf "$probe"
}

VF_ENV=$(vf_choose_env)
if [ "$VF_ENV" = sid ]; then
  echo "vmapfuzz: using the Debian sid root ($("$VF_ROOT/ci/sid-root.sh" path)); set VMAPFUZZ_ENV=host to use your own PyTorch" >&2
  "$VF_ROOT/ci/sid-root.sh" ensure
else
  echo "vmapfuzz: using this machine's PyTorch ($(python3 -c 'import torch; print(torch.__version__)'))" >&2
fi
