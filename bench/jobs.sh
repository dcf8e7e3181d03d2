#!/usr/bin/env bash
# How --jobs scales on this machine: the same campaign (seed, time, modes) with --jobs 1 and then
# --jobs N, side by side in one run of this script, shrinking off (shrinking is a finding's cost,
# not the case loop's). Both file into one reports folder that a warm-up campaign (another seed,
# --jobs N, 30 s) filed first, so that, as in a nightly, most findings are known and few new
# findings' confirmations (a fresh python each) run beside the measured campaigns. Prints cases/s
# of each and their ratio, and the phase tables (what serialises shows there).
#   bench/jobs.sh [SECONDS] [SEED] [N] [FUZZ FLAGS...]   (inside the environment; default: 60 1 2 --mode direct)
set -euo pipefail
secs=${1:-60}; seed=${2:-1}; n=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
flags=("$@"); [ ${#flags[@]} -eq 0 ] && flags=(--mode direct)
bin=${VMAPFUZZ_BIN:-build/vmapfuzz}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rate() { grep -m1 '^cases:' "$1" | sed -E 's/.*\(([0-9.]+) exec\/s\).*/\1/'; }
echo "machine: $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg); flags: ${flags[*]}"
"$bin" fuzz --jobs "$n" --no-shrink --time 30 --seed "$((seed + 1000))" --out "$out/warm" --reports "$out/reports" \
  "${flags[@]}" > /dev/null 2>&1 || true
for j in 1 "$n"; do
  "$bin" fuzz --jobs "$j" --no-shrink --time "$secs" --seed "$seed" --out "$out/j$j" --reports "$out/reports" \
    "${flags[@]}" > "$out/j$j.txt" 2>/dev/null || true
  echo "    new findings: $(python3 -c "import json; print(json.load(open('$out/j$j/summary.json'))['new_findings'])")"
  echo "--jobs $j: $(grep -m1 '^cases:' "$out/j$j.txt")"
  sed -n '/^time by phase/,/^peak memory/p' "$out/j$j.txt" | sed 's/^/    /'
done
r1=$(rate "$out/j1.txt"); rn=$(rate "$out/j$n.txt")
python3 -c "print('--jobs $n / --jobs 1: %.2fx' % (float('$rn') / max(float('$r1'), 1e-9)))"
