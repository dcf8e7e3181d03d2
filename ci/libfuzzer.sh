#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang in their own build dir and runs each for a
# bounded time from the seed corpora; fails if either finds a crash. Called by ci/test.sh.
#
#   VMAPFUZZ_FUZZ_SECONDS   seconds per target (default 60)
#   VMAPFUZZ_FUZZ_SANITIZE  1: build with AddressSanitizer + UndefinedBehaviorSanitizer (default 1)
#   VMAPFUZZ_FUZZ_BUILD_DIR the build dir (default build-fuzz, or build-fuzz-asan when sanitized)
#   VMAPFUZZ_FUZZ_SEED      libFuzzer's -seed (default 1: a gate runs the same inputs each time,
#                           so it fails on a change, not on the luck of the draw; set another, or
#                           0 for a random one, to explore)
# Extra arguments go to both targets (libFuzzer flags, e.g. -jobs=2 -workers=2).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SECONDS_EACH=${VMAPFUZZ_FUZZ_SECONDS:-60}
FUZZ_SEED=${VMAPFUZZ_FUZZ_SEED:-1}
SAN=${VMAPFUZZ_FUZZ_SANITIZE:-1}
if [ "$SAN" = 1 ]; then SAN_CMAKE=ON; SUFFIX=-asan; else SAN_CMAKE=OFF; SUFFIX=; fi
BUILD=${VMAPFUZZ_FUZZ_BUILD_DIR:-build-fuzz$SUFFIX}
prefix=$(vf_in_env python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
vf_in_env cmake -S . -B "$BUILD" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER=clang++ \
  -DVMAPFUZZ_TESTS=OFF -DVMAPFUZZ_LIBFUZZER=ON -DVMAPFUZZ_SANITIZE=$SAN_CMAKE >/dev/null
vf_in_env cmake --build "$BUILD" -j "$(nproc)" --target fuzz_case fuzz_text

# libFuzzer writes new inputs into its first corpus dir: a scratch copy, never the seeds.
work=$(mktemp -d "$VF_ROOT/$BUILD/fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/case" "$work/text" "$work/artifacts"
# libtorch's own allocations outlive inputs by design (caches, thread pools): no leak checking.
SAN_ENV=(ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}")
run() {
  local target=$1; shift
  echo "== $target: $SECONDS_EACH s ==" >&2
  local rc=0
  vf_in_env env "${SAN_ENV[@]}" "$BUILD/fuzz/$target" -max_total_time="$SECONDS_EACH" -seed="$FUZZ_SEED" -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$@" >"$work/$target.log" 2>&1 || rc=$?
  grep -E '^(#[0-9]+ +DONE|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|INFO: (seed corpus|Loaded))' "$work/$target.log" >&2 || true
  # A crash, leak, timeout or OOM fails the run. libFuzzer also writes slow-unit-* for inputs
  # that took over -report_slow_units seconds (10): those are reported, not failures, since a
  # sanitized build on a shared 2-core machine can take that long on a large legal case.
  local slow
  for slow in "$work"/artifacts/slow-unit-*; do
    [ -e "$slow" ] && echo "libfuzzer: $target: slow input (not a failure): $(basename "$slow")" >&2
  done
  if [ "$rc" != 0 ] || compgen -G "$work/artifacts/[!s]*" >/dev/null; then
    echo "libfuzzer: $target failed (exit $rc):" >&2
    tail -n 60 "$work/$target.log" >&2
    mkdir -p "$VF_ROOT/vmapfuzz-out/libfuzzer"
    cp "$work/$target.log" "$work/artifacts/"* "$VF_ROOT/vmapfuzz-out/libfuzzer/" 2>/dev/null || true
    echo "libfuzzer: artifacts and log copied to vmapfuzz-out/libfuzzer/ (vmapfuzz replay --backend libtorch vmapfuzz-out/libfuzzer/crash-*)" >&2
    exit 1
  fi
}
run fuzz_case "$work/case" corpus/fuzz/case "${@}"
run fuzz_text "$work/text" corpus/seeds corpus/regressions "${@}"
echo "libfuzzer: both targets ran ${SECONDS_EACH} s each without a crash" >&2
