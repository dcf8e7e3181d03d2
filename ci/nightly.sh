#!/usr/bin/env bash
# The nightly job: sets everything up (see ci/common.sh), builds, then runs `vmapfuzz nightly`:
# replays corpus/regressions, fuzzes for the rest of the budget, re-checks reports/, and writes
# vmapfuzz-nightly/{summary.json,summary.md,junit.xml,new/}. Exit 1 only for signatures not
# filed in reports/; 0 otherwise (2, 3, 4: usage, environment, internal error).
#   ci/nightly.sh --budget 1800                     # one machine
#   ci/nightly.sh --budget 1800 --shard 0/4 --out shard0   # one of four; then `vmapfuzz merge`
# Extra arguments go to `vmapfuzz nightly` (--mode, --device, --jobs, --seed, ...).
# Builds the vmapfuzz binary only (ci/test.sh builds the tests).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
vf_build vmapfuzz
vf_in_env "${VMAPFUZZ_BUILD_DIR:-build}/vmapfuzz" nightly "$@"
