#!/usr/bin/env bash
# The torch-version matrix: for each Debian suite's own torch, makes its root (ci/sid-root.sh with
# VMAPFUZZ_SUITE), builds every target in build-<suite>, prints `vmapfuzz caps` (what this torch
# lacks shows there as unsupported, with torch's reason), runs the unit tests and a 60-second
# default campaign, and fails if the campaign met a harness-bug or a step failed. Timings of each
# step go to matrix-out/timings.tsv and are printed at the end.
#
#   ci/torch-matrix.sh                 sid (torch 2.14.1) and trixie (torch 2.6.0)
#   ci/torch-matrix.sh trixie          one suite
#
# Needs root for the roots (about 3 GB and 3 minutes each, once). MATRIX_TIME sets the campaign's
# seconds (default 60).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(sid trixie)
out=matrix-out
mkdir -p "$out"
timings="$out/timings.tsv"
printf 'suite\ttorch\tstep\tseconds\tresult\n' >"$timings"
failed=0

# step SUITE TORCH NAME CMD...: runs CMD, logs to $out/SUITE-NAME.log, records its wall time.
step() {
  local suite=$1 torch=$2 name=$3; shift 3
  local t0 rc=0; t0=$(date +%s)
  echo "== $suite (torch $torch): $name" >&2
  "$@" >"$out/$suite-$name.log" 2>&1 || rc=$?
  local result=ok; [ "$rc" = 0 ] || { result="FAILED (exit $rc; $out/$suite-$name.log)"; failed=1; }
  printf '%s\t%s\t%s\t%s\t%s\n' "$suite" "$torch" "$name" "$(($(date +%s) - t0))" "$result" >>"$timings"
  echo "   $result in $(($(date +%s) - t0)) s" >&2
  return "$rc"
}

# harness_bugs SUMMARY_JSON: the campaign's harness-bug count (0 when there is none).
harness_bugs() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdicts"].get("harness-bug", 0))' "$1" 2>/dev/null \
    || sed -n 's/.*"harness-bug": *\([0-9]*\).*/\1/p' "$1" | head -n1
}

for suite in "${suites[@]}"; do
  export VMAPFUZZ_ENV=sid VMAPFUZZ_SUITE=$suite VMAPFUZZ_BUILD_DIR=build-$suite
  step "$suite" "?" root ci/sid-root.sh ensure || continue
  torch=$(ci/sid-root.sh run python3 -c 'import torch; print(torch.__version__)')
  step "$suite" "$torch" build bash -c 'source ci/common.sh && vf_build' || continue
  step "$suite" "$torch" caps ci/sid-root.sh run "build-$suite/vmapfuzz" caps || true
  step "$suite" "$torch" unit-tests ci/sid-root.sh run ctest --test-dir "build-$suite" -L unit -j 2 --output-on-failure || true
  rm -rf "$out/$suite-fuzz"
  # exit 1 (new findings) is a campaign's normal outcome here; 2 and up is a failure.
  step "$suite" "$torch" campaign bash -c 'ci/sid-root.sh run "$0/vmapfuzz" fuzz --time "$1" --seed 1 --out "$2"; rc=$?; [ "$rc" -le 1 ]' \
    "build-$suite" "${MATRIX_TIME:-60}" "$out/$suite-fuzz" || true
  hb=$(harness_bugs "$out/$suite-fuzz/summary.json" || echo "?")
  if [ "$hb" != 0 ]; then
    echo "   $suite: the campaign met ${hb:-?} harness-bug (see $out/$suite-fuzz)" >&2
    printf '%s\t%s\tharness-bug\t-\tFAILED (%s)\n' "$suite" "$torch" "${hb:-?}" >>"$timings"
    failed=1
  fi
  echo "== $suite (torch $torch): what caps says this torch lacks" >&2
  grep -vE '^\s*$' "$out/$suite-caps.log" | grep -vE '( ok +)+$' >&2 || true
done
echo >&2; column -t -s $'\t' "$timings" >&2 || cat "$timings" >&2
exit "$failed"
