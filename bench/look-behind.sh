#!/usr/bin/env bash
# Look-behind (issue 29), side by side on one build: for each seed, the default campaign with it
# and with `--gen look_behind=0`, at once, each on its own core, each filing into its own copy of
# reports/ (the nightly's case: most bugs filed). Prints per run the cases and cases/s, the share
# of cases whose check ended on a filed bug with nothing after it checked, what look-behind
# re-checked, the runs per mode and the new signatures filed (the difference of the two lists is what looking
# behind the filed bugs found), and per run its harness bugs, invalid cases, cases with a transform
# inside a region and new findings whose repro.py was not confirmed. Run inside the environment with torch:
#
#   ci/sid-root.sh run bench/look-behind.sh [SECONDS] [SEED...]
#
# Default: 600 s (the default campaign), seeds 1 7 8. OUT (default bench-out/look-behind) keeps
# every run's output and copy of reports/.
set -euo pipefail
seconds=${1:-600}; shift || true
seeds=("$@"); [ ${#seeds[@]} -gt 0 ] || seeds=(1 7 8)
bin=${BIN:-build/vmapfuzz}
out=${OUT:-bench-out/look-behind}
core() { if command -v taskset >/dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
rm -rf "$out"; mkdir -p "$out"
for seed in "${seeds[@]}"; do
  for run in on off; do cp -r reports "$out/reports-$run-$seed"; done
  core 0 "$bin" fuzz --time "$seconds" --seed "$seed" --out "$out/on-$seed" --reports "$out/reports-on-$seed" \
    > "$out/on-$seed.log" 2>&1 &
  core 1 "$bin" fuzz --time "$seconds" --seed "$seed" --out "$out/off-$seed" --reports "$out/reports-off-$seed" \
    --gen look_behind=0 > "$out/off-$seed.log" 2>&1 &
  wait
done
echo "| seed | look-behind | cases | cases/s | ended on a filed bug, nothing after checked | runs re-checked past it | re-runs | new signatures |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for seed in "${seeds[@]}"; do
  for run in on off; do
    python3 - "$out/$run-$seed/summary.json" "$seed" "$run" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lb, cases = s["look_behind"], s["cases"]
ended = lb.get("cases_ended", 0) if lb.get("on") else lb.get("cases_met", 0)
past = f"{lb.get('checked_past', 0)} of {lb.get('runs_met', 0)}" if lb.get("on") else "-"
print(f"| {sys.argv[2]} | {sys.argv[3]} | {cases} | {cases / s['seconds']:.1f} | {ended} ({100 * ended / max(cases, 1):.1f} %) "
      f"| {past} | {lb.get('reruns', 0)} | {s['new_findings']} |")
PY
  done
done
echo
echo "Runs per mode (fresh cases' runs; look-behind's re-runs are not counted here) and look-behind's time:"
echo
echo "| seed | look-behind | runs per mode | look-behind s | runs that took an earlier mode's look-behind |"
echo "| ---: | --- | --- | ---: | ---: |"
for seed in "${seeds[@]}"; do
  for run in on off; do
    python3 - "$out/$run-$seed/summary.json" "$seed" "$run" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lb = s["look_behind"]
modes = ", ".join(f"{m} {sum(v.values())}" for m, v in s["by_mode"].items())
print(f"| {sys.argv[2]} | {sys.argv[3]} | {modes} | {lb.get('seconds', 0):.0f} | {lb.get('in_earlier_mode', '-') if lb.get('on') else '-'} |")
PY
  done
done
echo
echo "| seed | look-behind | harness-bug | invalid | cases with a transform in a region | new repro.py not confirmed |"
echo "| ---: | --- | ---: | ---: | ---: | ---: |"
for seed in "${seeds[@]}"; do
  for run in on off; do
    python3 - "$out/$run-$seed" "$seed" "$run" "$out/reports-$run-$seed" <<'PY'
import glob, json, os, sys
d, seed, run, filed = sys.argv[1:5]
s = json.load(open(os.path.join(d, "summary.json")))
v = s["verdicts"]
# the new findings are the folders the campaign added to its copy of reports/
metas = [m for m in glob.glob(os.path.join(filed, "*", "meta.json"))
         if not os.path.exists(os.path.join("reports", os.path.basename(os.path.dirname(m))))]
unconfirmed = sum(json.load(open(m)).get("standalone") != "confirmed" for m in metas)
print(f"| {seed} | {run} | {v.get('harness-bug', 0)} | {v.get('invalid', 0)} | {s['coverage'].get('transform-in-region', 0)} "
      f"| {unconfirmed} of {len(metas)} |")
PY
  done
done
for seed in "${seeds[@]}"; do
  for run in on off; do
    echo "new signatures, seed $seed, look-behind $run:"
    python3 -c "
import json, sys
for f in json.load(open(sys.argv[1]))['findings']:
    if f.get('new'): print('  ' + f['signature'])" "$out/$run-$seed/summary.json"
  done
done
