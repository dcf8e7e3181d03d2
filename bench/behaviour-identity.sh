#!/usr/bin/env bash
# Behaviour is unchanged by a refactoring: the verdicts and signatures of the first cases of
# `vmapfuzz fuzz --seed 1 --jobs 1` (its --case-log), recorded with two builds and compared.
# (The generator's own check, byte-identical `gen --case-seed 0..999`, is ci/gen-identical.sh.)
#
#   bench/behaviour-identity.sh record BINARY DIR [FUZZ FLAGS...]   (inside the environment with torch)
#   bench/behaviour-identity.sh compare DIR_BEFORE DIR_AFTER
#
# CASES (default 2000) sets how many cases; the restructure's check is
#   bench/behaviour-identity.sh record OLD/vmapfuzz before --mode direct
#   bench/behaviour-identity.sh record build/vmapfuzz after --mode direct
#   bench/behaviour-identity.sh compare before after
# A build from before direct mode runs eager only; give a later one `--mode eager --gen
# keep_unsupported=1` to make the same runs. SIGNATURES=0 compares verdicts only (for changes
# that mean to refine signatures).
set -euo pipefail
case "${1:-}" in
  record)
    bin=$2; dir=$3; shift 3; mkdir -p "$dir"
    rm -rf "$dir/fuzz-out"
    "$bin" fuzz --seed 1 --jobs 1 --cases "${CASES:-2000}" --time 100000 --no-shrink --out "$dir/fuzz-out" \
      --reports "$dir/fuzz-out/findings" --case-log "$dir/cases.full.tsv" "$@" > "$dir/fuzz.stdout" 2> "$dir/fuzz.stderr" || true
    # index, seed, size, system, verdict, signature
    cut -f1-6 "$dir/cases.full.tsv" > "$dir/cases.tsv"
    echo "recorded $(($(wc -l < "$dir/cases.tsv") - 1)) case verdicts in $dir"
    ;;
  compare)
    a=$2; b=$3; fields=1-6
    [ "${SIGNATURES:-1}" = 1 ] || fields=1-5
    if cmp -s <(cut -f"$fields" "$a/cases.tsv") <(cut -f"$fields" "$b/cases.tsv"); then
      echo "fuzz --seed 1: the first $(($(wc -l < "$a/cases.tsv") - 1)) cases have the same verdicts$([ "$fields" = 1-6 ] && echo ' and signatures')"
    else
      echo "fuzz --seed 1: verdicts or signatures DIFFER"; diff <(cut -f"$fields" "$a/cases.tsv") <(cut -f"$fields" "$b/cases.tsv") | head -20; exit 1
    fi
    ;;
  *) echo "usage: $0 record BINARY DIR [FUZZ FLAGS...] | compare DIR_BEFORE DIR_AFTER" >&2; exit 2 ;;
esac
