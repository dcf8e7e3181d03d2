#!/usr/bin/env bash
# Transforms inside the program (issue 28), side by side on one build: for each seed, the default
# campaign (fresh output, the filed reports/ known) and the same campaign with no transform inside
# its programs (`--gen vmap_weight=0 --gen grad_weight=0 --gen jvp_weight=0`), at once, each on its
# own core. Prints per run the cases and cases/s, the harness bugs, the cases that held a
# transform (vmap, grad, jvp) inside a branch or loop body, the distinct
# signatures met (new ones filed under OUT/findings, known ones re-found in reports/), the new
# findings whose standalone repro.py was not confirmed (a false alarm would be one), and the
# issue's coverage rows. Run inside the environment with torch:
#
#   ci/sid-root.sh run bench/transforms.sh [SECONDS] [SEED...]
#
# Default: 600 s (the default campaign), seeds 1 7. OUT (default bench-out/transforms) keeps
# every run's output.
set -euo pipefail
seconds=${1:-600}; shift || true
seeds=("$@"); [ ${#seeds[@]} -gt 0 ] || seeds=(1 7)
bin=${BIN:-build/vmapfuzz}
out=${OUT:-bench-out/transforms}
core() { if command -v taskset >/dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
rm -rf "$out"; mkdir -p "$out"
for seed in "${seeds[@]}"; do
  core 0 "$bin" fuzz --time "$seconds" --seed "$seed" --out "$out/with-$seed" > "$out/with-$seed.log" 2>&1 &
  core 1 "$bin" fuzz --time "$seconds" --seed "$seed" --out "$out/without-$seed" --gen vmap_weight=0 --gen grad_weight=0 --gen jvp_weight=0 \
    > "$out/without-$seed.log" 2>&1 &
  wait
done
echo "| seed | transforms in programs | cases | cases/s | harness-bug | invalid | cases with a transform in a region | signatures met (new + known) | new repro.py not confirmed |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for seed in "${seeds[@]}"; do
  for run in with without; do
    python3 - "$out/$run-$seed" "$seed" "$run" <<'PY'
import glob, json, os, sys
d, seed, run = sys.argv[1:4]
s = json.load(open(os.path.join(d, "summary.json")))
cov, v = s["coverage"], s["verdicts"]
new = [f for f in s["findings"] if f.get("new")]
unconfirmed = 0
for meta in glob.glob(os.path.join(d, "findings", "*", "meta.json")):
    if json.load(open(meta)).get("standalone") != "confirmed":
        unconfirmed += 1
print(f"| {seed} | {run} | {s['cases']} | {s['cases'] / s['seconds']:.1f} | {v.get('harness-bug', 0)} | {v.get('invalid', 0)} "
      f"| {cov.get('transform-in-region', 0)} | {len(s['findings'])} ({len(new)} + {len(s['findings']) - len(new)}) "
      f"| {unconfirmed} of {len(new)} |")
PY
  done
done
rows="transform-in-region vmap vmap-in-branch-or-body vmap-unmapped-operand vmap-output-unmapped grad grad-in-branch-or-body grad-in-vmap grad-of-control-flow jvp jvp-in-branch-or-body jvp-in-vmap jvp-of-control-flow switch-index-input switch-index-input-at-dim>0 pred-input pred-input-at-dim>0"
for seed in "${seeds[@]}"; do
  echo "coverage rows, seed $seed (with transforms):"
  python3 -c "
import json, sys
cov = json.load(open(sys.argv[1]))['coverage']
for r in sys.argv[2].split(): print(f'  {r:32} {cov.get(r, 0)}')" "$out/with-$seed/summary.json" "$rows"
  for run in with without; do
    echo "signatures met, seed $seed, $run transforms:"
    python3 -c "
import json, sys
for f in json.load(open(sys.argv[1]))['findings']:
    print(('  NEW   ' if f.get('new') else '  known ') + f['signature'][:150])" "$out/$run-$seed/summary.json"
  done
done
