#!/usr/bin/env bash
# What a default campaign spends on a finding's checks (issues 27 and 30): culprit localisation
# (before shrinking and on the shrunk case), shrinking and filing, as shares of its wall, from
# the campaign's summary.json (`phase_seconds`). Two campaigns, one after the other, the same
# seed: on fresh output (every finding new: the most checking a campaign does) and filing into a
# copy of reports/ (the nightly's case: most findings known). Run inside the environment with torch:
#
#   ci/sid-root.sh run bench/checks-share.sh [SECONDS] [SEED]
#
# Default: 600 s (the default campaign), seed 7. OUT (default bench-out/checks-share) keeps both.
set -euo pipefail
seconds=${1:-600}; seed=${2:-7}
bin=${BIN:-build/vmapfuzz}
out=${OUT:-bench-out/checks-share}
rm -rf "$out"; mkdir -p "$out"
cp -r reports "$out/reports-copy"
"$bin" fuzz --time "$seconds" --seed "$seed" --out "$out/fresh" --known none > "$out/fresh.log" 2>&1 || true
"$bin" fuzz --time "$seconds" --seed "$seed" --out "$out/filed" --reports "$out/reports-copy" > "$out/filed.log" 2>&1 || true
echo "| output | cases | wall s | culprits s (share) | shrink s (share) | file s (share) | new findings |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for run in fresh filed; do
  python3 - "$out/$run/summary.json" "$run" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
wall, p = s["seconds"], s["phase_seconds"]
cell = lambda k: f"{p.get(k, 0):.1f} ({100 * p.get(k, 0) / wall:.1f} %)"
print(f"| {sys.argv[2]} | {s['cases']} | {wall:.0f} | {cell('culprits')} | {cell('shrink')} | {cell('file')} | {s['new_findings']} |")
PY
done
