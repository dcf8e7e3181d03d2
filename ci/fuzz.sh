#!/usr/bin/env bash
# Sets everything up (see ci/common.sh), builds, and runs a default campaign: CPU, direct + eager,
# 120 seconds. Extra arguments go to `vmapfuzz fuzz` (e.g. --time 600 --seed 7).
# Builds the vmapfuzz binary only (ci/test.sh builds the tests).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
vf_build vmapfuzz
vf_in_env "${VMAPFUZZ_BUILD_DIR:-build}/vmapfuzz" fuzz --time 120 --seed 1 --out vmapfuzz-out "$@"
