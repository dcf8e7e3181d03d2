#!/usr/bin/env bash
# The harness's power: every planted fault (harness/backends/torch/worker/vmapfuzz_faults.py) gets a campaign
# of TIME seconds (default 300) with the default generator policy, and the control run `none`
# must detect nothing. Run inside the environment (ci/sid-root.sh run bench/selftest.sh) after a
# build (TIME or OUT are set inside the root: ci/sid-root.sh run env TIME=60 bench/selftest.sh).
# The table goes to OUT/selftest.md and into bench/RESULTS.md by hand, with the date and the
# machine; exit 0 when the detection target was met. Extra arguments go to `vmapfuzz selftest` (e.g. --fault NAME, --seed N).
set -euo pipefail
BIN=${VMAPFUZZ_BIN:-build/vmapfuzz}
OUT=${OUT:-vmapfuzz-out/selftest}
TIME=${TIME:-300}
start=$(date +%s)
rc=0
"$BIN" selftest --time "$TIME" --seed 1 --out "$OUT" "$@" || rc=$?
echo "selftest: exit $rc after $(( $(date +%s) - start )) s wall"
exit $rc
