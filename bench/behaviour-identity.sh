#!/usr/bin/env bash
# Behaviour is unchanged by a refactoring: the verdicts of the first 200 cases of
# `vmapfuzz fuzz --seed 1 --jobs 1` (its --case-log), recorded with two builds and compared.
# (The generator's own check, byte-identical `gen --case-seed 0..999`, is ci/gen-identical.sh.)
#
#   bench/behaviour-identity.sh record BINARY DIR [FUZZ FLAGS...]   (inside the environment with torch)
#   bench/behaviour-identity.sh compare DIR_BEFORE DIR_AFTER
#
# A build from before direct mode runs eager only; give a later one `--mode eager --gen
# keep_unsupported=1` to make the same runs.
set -euo pipefail
case "${1:-}" in
  record)
    bin=$2; dir=$3; shift 3; mkdir -p "$dir"
    "$bin" fuzz --seed 1 --jobs 1 --cases 200 --time 100000 --no-shrink --out "$dir/fuzz-out" \
      --case-log "$dir/cases.full.tsv" "$@" > "$dir/fuzz.stdout" 2> "$dir/fuzz.stderr" || true
    # index, seed, size, system, verdict (signatures are refined by later work: not compared)
    cut -f1-5 "$dir/cases.full.tsv" > "$dir/cases.tsv"
    echo "recorded $(($(wc -l < "$dir/cases.tsv") - 1)) case verdicts in $dir"
    ;;
  compare)
    a=$2; b=$3
    if cmp -s "$a/cases.tsv" "$b/cases.tsv"; then
      echo "fuzz --seed 1: the first $(($(wc -l < "$a/cases.tsv") - 1)) cases have the same verdicts"
    else
      echo "fuzz --seed 1: verdicts DIFFER"; diff "$a/cases.tsv" "$b/cases.tsv" | head -20; exit 1
    fi
    ;;
  *) echo "usage: $0 record BINARY DIR [FUZZ FLAGS...] | compare DIR_BEFORE DIR_AFTER" >&2; exit 2 ;;
esac
