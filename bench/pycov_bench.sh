#!/bin/bash
# Coverage-guided versus unguided fuzzing (issue 17), run inside the sid root from the repository
# root: bench/pycov_bench.sh SECONDS SEED... ; results under bench-out/pycov/.
# Each seed runs guided (--mutate-share 50) on core 0 and unguided (--mutate-share 0: coverage
# measured, no mutants) on core 1 at the same time, both in direct mode, same seed and time.
set -u
T=${1:-600}; shift
OUT=bench-out/pycov; mkdir -p $OUT
for seed in "$@"; do
  for cfg in guided:0:50 unguided:1:0; do
    IFS=: read name core share <<<"$cfg"
    d=$OUT/$name-$seed; rm -rf $d; mkdir -p $d
    taskset -c $core build/vmapfuzz fuzz --mode direct --no-shrink --time $T --seed $seed --mutate-share $share \
      --corpus-dir $d/corpus --out $d > $d/summary.txt 2> $d/log.txt &
  done
  wait
  for name in guided unguided; do
    printf '%s seed %s: ' $name $seed; grep -E '^cases:|^python coverage' $OUT/$name-$seed/summary.txt | tr '\n' ' '; echo
  done
done
