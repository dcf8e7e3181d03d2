#!/usr/bin/env bash
# Checks that the generator is unchanged: `vmapfuzz gen --case-seed N` for N = 0..999 must
# print byte-identical text to what is recorded in ci/gen-identical.sha256 (the sha256 of every
# output, each after a line "=== N"). Run it where the build runs, e.g.
#   ci/sid-root.sh run ci/gen-identical.sh [build/vmapfuzz]
# A change that means to change generation records the new digest with --record, and says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
record=0
if [ "${1:-}" = --record ]; then record=1; shift; fi
bin=${1:-build/vmapfuzz}
want_file=ci/gen-identical.sha256
# One process draws the 1,000 cases (`gen --count` prints each after its "=== N" line): the same
# text as 1,000 calls of `gen --case-seed N`, in seconds rather than one torch start-up each.
got=$("$bin" gen --case-seed 0 --count 1000 | sha256sum | cut -d' ' -f1)
if [ "$record" = 1 ]; then
  echo "$got" > "$want_file"
  echo "gen-identical: recorded $got"
  exit 0
fi
want=$(cat "$want_file")
if [ "$got" != "$want" ]; then
  echo "gen-identical: FAIL: vmapfuzz gen --case-seed 0..999 hashes to $got, recorded $want" >&2
  exit 1
fi
echo "gen-identical: ok: vmapfuzz gen --case-seed 0..999 prints what it printed before ($got)"
