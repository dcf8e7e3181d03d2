#!/usr/bin/env bash
# The emitter is unchanged by a refactoring: for the cases of `vmapfuzz gen --case-seed N`
# (N = 0..COUNT-1, default 300), the sha256 of `vmapfuzz emit --mode M` in each mode below,
# recorded with two builds and compared. Run it where the build runs, e.g.
#
#   ci/sid-root.sh run bench/emit-identical.sh record BINARY FILE [COUNT]   (env CASES_DIR, EMIT_BINARY)
#   bench/emit-identical.sh compare FILE_BEFORE FILE_AFTER
#
# The modes cover each (api, gradient) pair the module depends on: a compile or precompile mode
# emits the same module as eager (the worker compiles it), listed to check that it stays so.
# EMIT_BINARY, when set, runs `emit` instead of BINARY (which still runs `gen`): e.g.
# build/vmapfuzz_emit_tool, the emitter's layers alone, where a whole vmapfuzz is too long to
# build twice. The cases are inputs only: any build's `gen` serves, if both records use the same.
# repro.py is not covered here: the e2e tests run it (repro_tolerance, precompile, grad, preload).
set -euo pipefail
MODES=(direct eager direct+grad eager+vmap-grad direct+jvp compile-inductor precompile-eager)
case "${1:-}" in
  record)
    bin=$2; out=$3; count=${4:-300}
    # CASES_DIR keeps the generated cases for the next record (gen is the slow part).
    cases=${CASES_DIR:-$(mktemp -d)}; mkdir -p "$cases"
    for n in $(seq 0 $((count - 1))); do
      [ -s "$cases/case-$n.vf" ] || "$bin" gen --case-seed "$n" > "$cases/case-$n.vf"
    done
    files=(); for n in $(seq 0 $((count - 1))); do files+=("$cases/case-$n.vf"); done
    for m in "${MODES[@]}"; do
      rm -f "$cases"/*."$m".py "$cases"/*."$m".err
      if [ -n "${EMIT_BINARY:-}" ]; then
        "$EMIT_BINARY" emit --mode "$m" "${files[@]}"  # one process per mode: FILE.MODE.py each
      else
        for f in "${files[@]}"; do
          "$bin" emit --mode "$m" "$f" > "$f.$m.py" 2> "$f.$m.err" || mv "$f.$m.py" "$f.$m.failed"
        done
      fi
    done
    : > "$out"
    for n in $(seq 0 $((count - 1))); do
      for m in "${MODES[@]}"; do
        f="$cases/case-$n.vf.$m.py"
        # A case a mode cannot emit records that instead of a digest.
        if [ -f "$f" ]; then echo "$n $m $(sha256sum < "$f" | cut -d' ' -f1)"; else echo "$n $m failed"; fi >> "$out"
      done
    done
    echo "recorded $(wc -l < "$out") emitted modules ($count cases x ${#MODES[@]} modes) in $out"
    ;;
  compare)
    a=$2; b=$3
    if cmp -s "$a" "$b"; then
      echo "emit-identical: the $(wc -l < "$a") emitted modules are byte-identical"
    else
      echo "emit-identical: emitted modules DIFFER"; diff "$a" "$b" | head -20; exit 1
    fi
    ;;
  *) echo "usage: $0 record BINARY FILE [COUNT] | compare FILE_BEFORE FILE_AFTER" >&2; exit 2 ;;
esac
