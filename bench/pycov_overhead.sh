#!/bin/bash
# Overhead of python coverage in direct mode (issue 17): the same seed and the same cases on one
# core, coverage off, on (restart_events per case) and new (no restart), no mutants. The CPU
# time (user + sys, the python worker included) of a fixed number of cases is the measure: the
# machine is shared, so wall-clock cases/s swing by 2x between identical runs. A first run files
# the findings of these cases into a shared --reports folder, so the measured runs meet only
# known signatures (filing confirms each new repro.py in a fresh python: seconds apiece).
set -u
N=${1:-600}; SEED=${2:-2}
OUT=bench-out/pycov-overhead; rm -rf $OUT; mkdir -p $OUT
taskset -c 0 build/vmapfuzz fuzz --mode direct --no-shrink --cases $N --time 100000 --seed $SEED --coverage off \
  --out $OUT/warm --reports $OUT/reports > $OUT/warm.txt 2> $OUT/warm.log
TIMEFORMAT='%U %S %R'
for cov in off on new off on new; do
  t=$( { time taskset -c 0 build/vmapfuzz fuzz --mode direct --no-shrink --cases $N --time 100000 --seed $SEED \
         --coverage $cov --mutate-share 0 --out $OUT/$cov --reports $OUT/reports > $OUT/$cov.txt 2> $OUT/$cov.log; } 2>&1 )
  echo "$cov $t $(grep -c '^  NEW' $OUT/$cov.txt)" | awk '{printf "%-4s cpu %6.1f s  wall %6.1f s  new findings %s\n", $1, $2 + $3, $4, $5}'
done
