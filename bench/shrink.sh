#!/usr/bin/env bash
# Measures shrinking: a campaign with a fault planted in torch's cond batching rule, and a
# campaign against real torch, each printing "shrinking a new ... N -> M statements, K attempts,
# T s" per new finding. Run inside the environment (ci/sid-root.sh run bench/shrink.sh) after a
# build. Results go to bench/RESULTS.md by hand, with the date and the machine.
set -euo pipefail
BIN=${VMAPFUZZ_BIN:-build/vmapfuzz}
OUT=$(mktemp -d)
echo "== planted fault cond-batched-pred-swapped, 60 cases, seed 12"
"$BIN" fuzz --cases 60 --time 600 --seed 12 --fault cond-batched-pred-swapped \
  --gen max_region_outputs=1 --gen max_levels=1 --gen max_depth=1 --out "$OUT/planted" 2>&1 \
  | grep -E "^shrinking|^cases" || true
echo "== real torch, 120 s, seed 1"
"$BIN" fuzz --time 120 --seed 1 --out "$OUT/real" 2>&1 | grep -E "^shrinking|^cases" || true
rm -rf "$OUT"
