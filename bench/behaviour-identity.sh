#!/usr/bin/env bash
# Behaviour is unchanged by a refactoring: record what a build prints for
#   - `vmapfuzz gen --case-seed N` for N = 0..999 (byte-identical text), and
#   - the verdicts of the first 200 cases of `vmapfuzz fuzz --seed 1 --jobs 1` (--case-log),
# then compare two records.
#
#   bench/behaviour-identity.sh record BINARY DIR [FUZZ FLAGS...]   (inside the environment with torch)
#   bench/behaviour-identity.sh compare DIR_BEFORE DIR_AFTER
set -euo pipefail
case "${1:-}" in
  record)
    bin=$2; dir=$3; shift 3; mkdir -p "$dir"
    for n in $(seq 0 $((${GEN_COUNT:-1000} - 1))); do echo "### $n"; "$bin" gen --case-seed "$n"; done > "$dir/gen.txt"
    "$bin" fuzz --seed 1 --jobs 1 --cases 200 --time 100000 --no-shrink --out "$dir/fuzz-out" \
      --case-log "$dir/cases.full.tsv" "$@" > "$dir/fuzz.stdout" 2> "$dir/fuzz.stderr" || true
    # index, seed, size, system, verdict (signatures may be refined by later work: not compared)
    cut -f1-5 "$dir/cases.full.tsv" > "$dir/cases.tsv"
    echo "recorded $(grep -c '^###' "$dir/gen.txt") gen outputs and $(($(wc -l < "$dir/cases.tsv") - 1)) case verdicts in $dir"
    ;;
  compare)
    a=$2; b=$3; rc=0
    if cmp -s "$a/gen.txt" "$b/gen.txt"; then echo "gen: $(grep -c '^###' "$a/gen.txt") outputs byte-identical"
    else echo "gen: DIFFERENT"; diff "$a/gen.txt" "$b/gen.txt" | head -20; rc=1; fi
    if cmp -s "$a/cases.tsv" "$b/cases.tsv"; then echo "fuzz --seed 1: the first 200 cases have the same verdicts"
    else echo "fuzz --seed 1: verdicts DIFFER"; diff "$a/cases.tsv" "$b/cases.tsv" | head -20; rc=1; fi
    exit $rc
    ;;
  *) echo "usage: $0 record BINARY DIR [FUZZ FLAGS...] | compare DIR_BEFORE DIR_AFTER" >&2; exit 2 ;;
esac
