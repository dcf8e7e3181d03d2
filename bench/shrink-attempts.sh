#!/usr/bin/env bash
# Shrinker attempts, two builds side by side on the same failing cases. Four faults planted in
# torch's batching rules each get a 20 s direct-mode campaign without shrinking (seed 3); the
# four biggest unshrunk findings of each are then shrunk (`vmapfuzz shrink --mode direct`) by
# build A and by build B. A shrink's wall time is its attempts times a run's time (0.01 s in
# direct mode, 0.2-0.5 s in eager), so attempts are what is compared. Run inside the
# environment: ci/sid-root.sh run bench/shrink-attempts.sh OLD_BINARY NEW_BINARY
set -euo pipefail
A=${1:?usage: shrink-attempts.sh BINARY_A BINARY_B}
B=${2:?usage: shrink-attempts.sh BINARY_A BINARY_B}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
FAULTS=(aten-where-no-logical-pad cond-batched-pred-any scan-captured-unbatched vmap-chunk-split-dim0)
for f in "${FAULTS[@]}"; do
  "$B" fuzz --mode direct --no-shrink --fault "$f" --time 20 --seed 3 --mutate-share 0 --out "$OUT/$f" >/dev/null 2>&1 || true
done
printf '%-28s %-24s %10s %10s %10s\n' fault finding "stmts: start -> A / B" "attempts A" "attempts B"
ta=0 tb=0
for f in "${FAULTS[@]}"; do
  for c in $(find "$OUT/$f" -name case.vf -printf '%s %p\n' | sort -rn | head -4 | cut -d' ' -f2); do
    ra=$("$A" shrink --mode direct --fault "$f" "$c" --out "$OUT/a.vf" 2>&1 | tail -1 || true)
    rb=$("$B" shrink --mode direct --fault "$f" "$c" --out "$OUT/b.vf" 2>&1 | tail -1 || true)
    # "vmapfuzz shrink: 29 -> 3 statements in 33 attempts"
    na=$(sed -E 's/.* in ([0-9]+) attempts.*/\1/' <<<"$ra"); nb=$(sed -E 's/.* in ([0-9]+) attempts.*/\1/' <<<"$rb")
    sa=$(sed -E 's/.*: ([0-9]+ -> [0-9]+) statements.*/\1/' <<<"$ra"); sb=$(sed -E 's/.*: ([0-9]+ -> [0-9]+) statements.*/\1/' <<<"$rb")
    printf '%-28s %-24s %10s %10s %10s\n' "$f" "$(basename "$(dirname "$c")")" "$sa${sa:+ }${sb:+/ }${sb##* }" "$na" "$nb"
    ta=$((ta + na)) tb=$((tb + nb))
  done
done
echo "total attempts: A $ta, B $tb"
