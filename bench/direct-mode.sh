#!/usr/bin/env bash
# Cases per second of `direct` against `eager`, side by side in one run, on one core, shrinking
# off. Each mode first files what it finds (a warm-up of 20 s), then the measured run files into
# the same folder, so known findings only count hits (as in a nightly with reports/ filed).
# With BASE_BIN (the vmapfuzz of a baseline build, in its own checkout), its direct mode runs too,
# in the same way, and the line "direct / base" gives this build's ratio (issue 30).
#   [BASE_BIN=...] bench/direct-mode.sh [SECONDS] [SEED]      (inside the environment with torch; see README)
set -euo pipefail
secs=${1:-60}; seed=${2:-1}
bin=${VMAPFUZZ_BIN:-build/vmapfuzz}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
one_core() { if command -v taskset >/dev/null; then taskset -c 0 "$@"; else "$@"; fi; }
runs=(direct eager); [ -n "${BASE_BIN:-}" ] && runs=(base direct eager)
for run in "${runs[@]}"; do
  mode=$run; b=$bin; [ "$run" = base ] && { mode=direct; b=$BASE_BIN; }
  one_core "$b" fuzz --mode "$mode" --no-shrink --time 20 --seed "$seed" --reports "$out/r-$run" --out "$out/o-$run" >/dev/null 2>&1 || true
  one_core "$b" fuzz --mode "$mode" --no-shrink --time "$secs" --seed "$((seed + 1))" --reports "$out/r-$run" --out "$out/o-$run" \
    > "$out/$run.txt" 2>/dev/null || true
  line=$(grep -m1 '^cases:' "$out/$run.txt")
  echo "$run: $line"
  sed -n '/^time by phase/,/^peak memory/p' "$out/$run.txt" | sed 's/^/    /'
done
d=$(grep -m1 '^cases:' "$out/direct.txt" | sed -E 's/.*\(([0-9.]+) exec\/s\).*/\1/')
e=$(grep -m1 '^cases:' "$out/eager.txt" | sed -E 's/.*\(([0-9.]+) exec\/s\).*/\1/')
python3 -c "print(f'direct / eager: {float($d) / max(float($e), 1e-9):.1f}x ({$d} vs {$e} cases/s)')"
if [ -n "${BASE_BIN:-}" ]; then
  b=$(grep -m1 '^cases:' "$out/base.txt" | sed -E 's/.*\(([0-9.]+) exec\/s\).*/\1/')
  python3 -c "print(f'direct / base: {float($d) / max(float($b), 1e-9):.2f}x ({$d} vs {$b} cases/s)')"
fi
