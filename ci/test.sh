#!/usr/bin/env bash
# Sets everything up (see ci/common.sh), builds, and runs every test with CTest.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
vf_build
vf_in_env ctest --test-dir "${VMAPFUZZ_BUILD_DIR:-build}" --output-on-failure -j 2 "$@"
# Both libFuzzer targets, built with clang (+ASan/UBSan), 60 s each from the seed corpora.
[ "${VMAPFUZZ_SKIP_LIBFUZZER:-}" = 1 ] || "$VF_ROOT/ci/libfuzzer.sh"
