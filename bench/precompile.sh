#!/usr/bin/env bash
# Cases per second of precompile-aot_eager, this build against a baseline build, side by side in
# one run of this script: the same seed and time, one core each in turn, shrinking off, fresh
# output. Then, on this build, the planted load-path fault (precompile-load-perturbed) must
# still be found ("after save/load").
#   BASE_BIN=OTHER/build/vmapfuzz bench/precompile.sh [SECONDS] [SEED]   (inside the environment)
# The baseline is a build of another commit in its own checkout (its worker is that checkout's).
set -euo pipefail
secs=${1:-300}; seed=${2:-1}
bin=${VMAPFUZZ_BIN:-build/vmapfuzz}
base=${BASE_BIN:?set BASE_BIN to the vmapfuzz binary of the baseline build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
one_core() { if command -v taskset >/dev/null; then taskset -c 0 "$@"; else "$@"; fi; }
rate() { grep -m1 '^cases:' "$1" | sed -E 's/.*\(([0-9.]+) exec\/s\).*/\1/'; }
echo "machine: $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for who in base this; do
  b=$base; [ "$who" = this ] && b=$bin
  one_core "$b" fuzz --mode precompile-aot_eager --no-shrink --time "$secs" --seed "$seed" --out "$out/$who" \
    --case-log "$out/$who.cases" > "$out/$who.txt" 2>/dev/null || true
  echo "$who: $(grep -m1 '^cases:' "$out/$who.txt")"
  echo "    verdicts: $(tail -n +2 "$out/$who.cases" | cut -f5 | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
done
r_this=$(rate "$out/this.txt"); r_base=$(rate "$out/base.txt")
python3 -c "print('this / base: %.1fx' % (float('$r_this') / max(float('$r_base'), 1e-9)))"
one_core "$bin" fuzz --cases 2 --time 900 --seed 7 --no-shrink --mode precompile-aot_eager \
  --fault precompile-load-perturbed --out "$out/fault" > "$out/fault.txt" 2>&1 || true
if grep -q "after save/load" "$out/fault.txt"; then echo "planted precompile-load-perturbed: found (after save/load)"
else echo "planted precompile-load-perturbed: NOT found"; fi
