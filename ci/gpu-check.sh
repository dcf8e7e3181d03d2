#!/usr/bin/env bash
# One script for a CUDA (or ROCm) machine with the user's own PyTorch: builds against it, runs
# the tests, probes the capabilities on cuda, and runs a short campaign on cuda in eager and
# inductor modes. Needs python3 with torch >= 2.5 (with CUDA/ROCm), CMake, ninja, a C++20
# compiler, nlohmann-json, RapidCheck and CLI11: installed, or source trees of them named with
# VMAPFUZZ_CMAKE_ARGS="-DVMAPFUZZ_RAPIDCHECK_SOURCE=DIR -DVMAPFUZZ_CLI11_SOURCE=DIR". Without GoogleTest the tests are
# skipped (-DVMAPFUZZ_TESTS=OFF) and the rest runs. Output goes to gpu-check/.
#   ci/gpu-check.sh [SECONDS]    (default 120 s of fuzzing)
set -uo pipefail
export VMAPFUZZ_ENV=host
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SECS=${1:-120}
OUT=gpu-check
mkdir -p "$OUT"
python3 - <<'PY' || { echo "gpu-check: torch sees no cuda device; nothing to check here" >&2; exit 3; }
import sys, torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", getattr(torch.version, "hip", None))
sys.exit(0 if torch.cuda.is_available() else 1)
PY
tests_flag=$(vf_tests_flag)
if [ -n "$tests_flag" ]; then
  echo "gpu-check: no GoogleTest here: building vmapfuzz without its tests ($tests_flag)" >&2
  VMAPFUZZ_CMAKE_ARGS="${VMAPFUZZ_CMAKE_ARGS:-} $tests_flag"
fi
vf_build
BIN=${VMAPFUZZ_BUILD_DIR:-build}/vmapfuzz
rc=0
if [ -z "$tests_flag" ] && [ -f "${VMAPFUZZ_BUILD_DIR:-build}/tests/vmapfuzz_tests" ]; then
  ctest --test-dir "${VMAPFUZZ_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" >"$OUT/ctest.log" 2>&1 || rc=1
  tail -n 3 "$OUT/ctest.log"
fi
"$BIN" caps --device cuda | tee "$OUT/caps.txt" || rc=1
"$BIN" fuzz --device cuda --mode eager,compile-inductor --time "$SECS" --seed 1 --jobs 2 \
  --out "$OUT/campaign" --summary-json "$OUT/summary.json" 2>&1 | tail -n 60 | tee "$OUT/campaign.txt"
status=${PIPESTATUS[0]}
[ "$status" -le 1 ] || rc=1   # 1 = findings (real torch bugs), not a failure of the check
echo "gpu-check: done (tests and caps: $([ $rc = 0 ] && echo ok || echo FAILED)); see $OUT/"
exit $rc
