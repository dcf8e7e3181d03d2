#!/usr/bin/env bash
# Where the wall time of an eager campaign goes: the harness's phases (generation, reference,
# comparison, emission, transport, the worker's own handling, filing) against the time inside
# torch, shrinking, and peak memory, all measured side by side inside one run (`time by phase`
# in the summary). The first campaign meets torch's real bugs for the first time (shrinks and
# files them, confirming each repro.py in a fresh python); the second, into the same reports,
# mostly meets filed signatures: the steady state of a nightly run.
# Run inside the environment (ci/sid-root.sh run bench/phases.sh; TIME=N via `env` inside the root) after a build.
set -euo pipefail
BIN=${VMAPFUZZ_BIN:-build/vmapfuzz}
TIME=${TIME:-120}
OUT=$(mktemp -d)
for seed in 1 2; do
  echo "== eager campaign, $TIME s, seed $seed, reports in one folder"
  "$BIN" fuzz --time "$TIME" --seed "$seed" --out "$OUT" 2>"$OUT/log-$seed" | sed -n '/^cases:/,/^verdicts:/p' | grep -v '^verdicts:' || true
  grep -E "^shrinking" "$OUT/log-$seed" || true
done
rm -rf "$OUT"
