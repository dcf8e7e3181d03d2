#!/usr/bin/env bash
# Two selftest configurations side by side (issue 15's re-specs, issue 17's guidance): the same
# faults, seed and time per fault, one configuration pinned to core 0 and the other to core 1,
# so both see the same machine load. Run inside the environment after a build:
#   ci/sid-root.sh run bench/selftest-compare.sh NAME_A "FLAGS_A" NAME_B "FLAGS_B" [selftest flags...]
# e.g. bench/selftest-compare.sh unguided "--mutate-share 0" guided "--mutate-share 50" --mode direct --time 30
# Tables under OUT (default bench-out/selftest-compare/NAME); prints the time to detect per fault.
set -uo pipefail
BIN=${VMAPFUZZ_BIN:-build/vmapfuzz}
OUT=${OUT:-bench-out/selftest-compare}
A=$1 FA=$2 B=$3 FB=$4
shift 4
mkdir -p "$OUT"
# shellcheck disable=SC2086
taskset -c 0 "$BIN" selftest --seed 1 --no-shrink --target 0 --out "$OUT/$A" $FA "$@" > "$OUT/$A.txt" 2> "$OUT/$A.log" &
# shellcheck disable=SC2086
taskset -c 1 "$BIN" selftest --seed 1 --no-shrink --target 0 --out "$OUT/$B" $FB "$@" > "$OUT/$B.txt" 2> "$OUT/$B.log" &
wait
python3 - "$OUT/$A.txt" "$OUT/$B.txt" "$A" "$B" <<'PY'
import re, statistics, sys
def table(path):
    rows = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) >= 4 and cells[0] not in ('fault', '---'):
            m = re.search(r'([0-9.]+) s', cells[2])
            rows[cells[0]] = (cells[1].startswith('yes'), float(m.group(1)) if m else None, cells[3])
    return rows
a, b = table(sys.argv[1]), table(sys.argv[2])
print(f"| fault | {sys.argv[3]}: time to detect (cases) | {sys.argv[4]}: time to detect (cases) |")
print("| --- | ---: | ---: |")
for f in a:
    fmt = lambda r: f"{r[1]:.1f} s ({r[2]})" if r and r[0] else f"not in {r[1]:.0f} s" if r else "?"
    print(f"| {f} | {fmt(a[f])} | {fmt(b.get(f))} |")
def med(rows):
    # A fault not detected counts as its whole budget (a lower bound on its time to detect).
    return statistics.median([r[1] for f, r in rows.items() if f != 'none' and r[1] is not None])
det = lambda rows: sum(r[0] for f, r in rows.items() if f != 'none')
print(f"\ndetected: {sys.argv[3]} {det(a)}, {sys.argv[4]} {det(b)} of {len([f for f in a if f != 'none'])}; "
      f"median time to detect (undetected = budget): {sys.argv[3]} {med(a):.1f} s, {sys.argv[4]} {med(b):.1f} s")
PY
