#!/usr/bin/env bash
# The culprit of every filed report (issue 27): replays each reports/*/case.vf in direct mode
# and in the mode it was filed from, filing into a fresh folder so that culprit localisation
# runs (harness/report/culprit.h), and prints one row per report: the culprit named, or what
# was found instead. Run inside the environment with torch:
#
#   ci/sid-root.sh run bench/culprits-of-reports.sh [BINARY] [OUT]
#
# OUT (default bench-out/culprits) keeps each replay's findings folder and log.
set -euo pipefail
bin=${1:-build/vmapfuzz}
out=${2:-bench-out/culprits}
rm -rf "$out"; mkdir -p "$out"
echo "| report | filed from | verdict now | culprit | runs | what localisation says |"
echo "| --- | --- | --- | --- | --- | --- |"
for dir in reports/*/; do
  name=$(basename "$dir")
  [ -f "$dir/case.vf" ] || continue
  mode=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["environment"].get("mode","eager"))' "$dir/meta.json")
  grad=${mode#eager}                 # "" or "+grad"
  modes="direct$grad,$mode"
  "$bin" replay --mode "$modes" --reports "$out/$name" "$dir/case.vf" > "$out/$name.log" 2>&1 || true
  python3 - "$out/$name" "$name" "$mode" <<'PY'
import glob, json, sys
folder, name, mode = sys.argv[1:]
rows = []
for meta in sorted(glob.glob(f"{folder}/*/meta.json")):
    m = json.load(open(meta))
    k = m.get("culprits")
    culprit = (k["culprit"] or "not one: " + ", ".join(k["culprits"] or ["none"])) if k else "(not localised)"
    runs = k["runs"] if k else ""
    said = k["sentence"] if k else ""
    rows.append(f"| {name} | {mode} | {m['verdict']} in {m['environment'].get('mode')} | {culprit} | {runs} | {said} |")
print("\n".join(rows) if rows else f"| {name} | {mode} | passes now | | | |")
PY
done
