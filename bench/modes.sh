#!/usr/bin/env bash
# Throughput per execution mode, side by side in one run: the same seed and the same time
# budget in eager mode and under torch.compile with each compiler backend, and eager with
# --jobs 2. Prints "mode: cases in seconds = cases/s, verdicts" lines for bench/RESULTS.md.
# Run inside the environment after a build: ci/sid-root.sh run bench/modes.sh [SECONDS]
set -euo pipefail
BIN=${VMAPFUZZ_BIN:-build/vmapfuzz}
SECS=${1:-90}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
run() { # name, flags...
  local name=$1; shift
  "$BIN" fuzz --time "$SECS" --seed 1 --no-shrink --out "$OUT/$name" "$@" >"$OUT/$name.log" 2>&1 || true
  local line
  line=$(grep -E "^cases: " "$OUT/$name.log" | head -n1)
  local pass fail
  pass=$(grep -E "^  pass " "$OUT/$name.log" | awk '{print $2}')
  fail=$(grep -cE "^  (mismatch|batched-error|crash|hang|oom) " "$OUT/$name.log" || true)
  echo "$name: $line | pass ${pass:-?}"
}
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
run eager --mode eager
run eager-jobs2 --mode eager --jobs 2
run compile-eager --mode compile-eager
run compile-aot_eager --mode compile-aot_eager
run compile-inductor --mode compile-inductor
run compile-inductor-dynamic --mode compile-inductor-dynamic
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
