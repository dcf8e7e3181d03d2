#!/usr/bin/env bash
# Sets everything up (see ci/common.sh), builds, and runs every test with CTest.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
vf_build
vf_in_env ctest --test-dir "${VMAPFUZZ_BUILD_DIR:-build}" --output-on-failure -j 2 "$@"
