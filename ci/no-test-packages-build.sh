#!/usr/bin/env bash
# Builds the vmapfuzz binary where neither GoogleTest, RapidCheck nor CLI11 is installed as a package,
# as on a GPU machine with only a wheel of torch (issue 19, part 3), and runs `vmapfuzz caps`.
#
# The environment is an overlay of the sid root (ci/sid-root.sh; the root itself is not
# changed) with libgtest-dev, libgmock-dev, librapidcheck-dev and libcli11-dev purged. The
# sources of RapidCheck and CLI11 come from Debian's source packages (`apt-get source rapidcheck`,
# `apt-get source cli11`, the registry the root already uses), unpacked to /usr/src/rapidcheck and
# /usr/src/cli11 in the overlay. The build is what ci/gpu-check.sh does: ci/common.sh's
# vf_tests_flag finds no GoogleTest and picks -DVMAPFUZZ_TESTS=OFF,
# -DVMAPFUZZ_RAPIDCHECK_SOURCE=/usr/src/rapidcheck builds RapidCheck with vmapfuzz and
# -DVMAPFUZZ_CLI11_SOURCE=/usr/src/cli11 takes CLI11's headers from its source.
#
#   ci/no-test-packages-build.sh     (as root; prints how long each step took)
#
# State: the overlay in $VMAPFUZZ_NOTEST_DIR (default /var/cache/vmapfuzz/no-test-packages; the
# purge and the source are kept for the next run), the build in build-notest/ (made afresh).
# VMAPFUZZ_JOBS (default 2) bounds the build's parallelism.
set -euo pipefail
PROJECT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=${VMAPFUZZ_SID_ROOT:-/var/cache/vmapfuzz/sid-root}
WORK=${VMAPFUZZ_NOTEST_DIR:-/var/cache/vmapfuzz/no-test-packages}
die() { echo "no-test-packages-build: error: $*" >&2; exit 3; }

[ "$(id -u)" = 0 ] || die "needs root (an overlay mount and a chroot)"
grep -qw overlay /proc/filesystems || die "this kernel has no overlay file system"
"$PROJECT/ci/sid-root.sh" ensure
# The overlay's upper layer keeps its own dpkg status: once the sid root's package list grows (a
# new stamp), an old upper layer would hide the new packages from the purge. Start it afresh.
stamp=$(basename "$(ls -d "$ROOT"/.vmapfuzz-ready-* 2>/dev/null | sort | tail -n 1)")
if [ "$(cat "$WORK/root-stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$WORK/upper" "$WORK/work"
  mkdir -p "$WORK"
  echo "$stamp" >"$WORK/root-stamp"
fi
mkdir -p "$WORK/upper" "$WORK/work" "$WORK/merged"
rm -rf "$PROJECT/build-notest"

# Runs inside the overlay, as root of it: purge, fetch the source, build, caps.
INNER='
set -euo pipefail
t0=$(date +%s)
purge=$( { dpkg-query -W -f "\${Package} \${Status}\n" libgtest-dev libgmock-dev googletest librapidcheck-dev libcli11-dev \
          2>/dev/null || true; } | awk "/ installed\$/ {print \$1}")
[ -z "$purge" ] || dpkg --purge --force-depends $purge >/dev/null
for gone in /usr/include/gtest /usr/include/gmock /usr/include/rapidcheck.h /usr/include/CLI; do
  [ ! -e "$gone" ] || { echo "no-test-packages-build: $gone is still there" >&2; exit 3; }
done
# source PKG: the upstream tree of Debian source package PKG in /usr/src/PKG (kept for next time).
source_of() {
  [ ! -f "/usr/src/$1/CMakeLists.txt" ] || return 0
  if [ ! -f /etc/apt/sources.list.d/vmapfuzz-deb-src.list ]; then
    uri=$(awk "/^deb / {print \$2; exit}" /etc/apt/sources.list)
    echo "deb-src $uri sid main" >/etc/apt/sources.list.d/vmapfuzz-deb-src.list
    apt-get -o Acquire::Check-Valid-Until=false update -qq
  fi
  rm -rf "/usr/src/$1.dl" && mkdir -p "/usr/src/$1.dl" && cd "/usr/src/$1.dl"
  # Only the upstream tarball is needed (apt checks its hash against the Sources index); a
  # registry that lacks the .dsc or the debian/ part still serves it.
  apt-get -o APT::Sandbox::User=root source --download-only -qq "$1" >/dev/null 2>&1 || true
  ls "$1"_*.orig.tar.* >/dev/null 2>&1 || { echo "no-test-packages-build: apt-get source $1 fetched no tarball" >&2; exit 3; }
  # python unpacks it: the root has no xz. The tree is at the top of the tarball or one level down.
  rm -rf unpacked && python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(\"unpacked\", filter=\"data\")" \
    "$1"_*.orig.tar.*
  top=unpacked; [ -f unpacked/CMakeLists.txt ] || top=$(dirname unpacked/*/CMakeLists.txt)
  mv "$top" "/usr/src/$1"
  cd "$PROJECT"
}
source_of rapidcheck
source_of cli11
t1=$(date +%s)
source ci/common.sh 2>/dev/null
tests_flag=$(vf_tests_flag)
[ "$tests_flag" = "-DVMAPFUZZ_TESTS=OFF" ] || { echo "no-test-packages-build: CMake still finds GoogleTest" >&2; exit 3; }
mkdir -p build-notest
VMAPFUZZ_BUILD_DIR=build-notest VMAPFUZZ_JOBS=${VMAPFUZZ_JOBS:-2} \
  VMAPFUZZ_CMAKE_ARGS="$tests_flag -DVMAPFUZZ_RAPIDCHECK_SOURCE=/usr/src/rapidcheck -DVMAPFUZZ_CLI11_SOURCE=/usr/src/cli11" vf_build >build-notest/build.log 2>&1 \
  || { tail -n 30 build-notest/build.log; exit 1; }
t2=$(date +%s)
[ ! -e build-notest/tests ] || { echo "no-test-packages-build: tests were configured" >&2; exit 1; }
build-notest/vmapfuzz caps
t3=$(date +%s)
echo "no-test-packages-build: ok: purge and the RapidCheck and CLI11 sources $((t1 - t0)) s, configure and build (-j ${VMAPFUZZ_JOBS:-2}) $((t2 - t1)) s, caps $((t3 - t2)) s"
'

unshare --mount --propagation private -- /bin/bash -c '
  set -e
  R=$1; W=$2; P=$3; INNER=$4; M=$W/merged
  mount -t overlay overlay -o "lowerdir=$R,upperdir=$W/upper,workdir=$W/work" "$M"
  mount -t proc proc "$M/proc"
  mount --rbind /dev "$M/dev"
  mkdir -p "$M$P"; mount --bind "$P" "$M$P"
  cp -f /etc/resolv.conf "$M/etc/resolv.conf" 2>/dev/null || true
  exec chroot "$M" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive PROJECT="$P" VMAPFUZZ_ENV=host VMAPFUZZ_JOBS="${VMAPFUZZ_JOBS:-}" \
    /bin/bash -c "cd \"\$PROJECT\" && $INNER"
' _ "$ROOT" "$WORK" "$PROJECT" "$INNER"
