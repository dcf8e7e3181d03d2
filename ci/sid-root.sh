#!/usr/bin/env bash
# Makes (idempotently) and enters a Debian sid root that holds the toolchain vmapfuzz needs:
# torch 2.14 for C++ and Python, GoogleTest, RapidCheck, CLI11, clang with libFuzzer, CMake, ninja
# and nlohmann-json. Debian 12's own torch (1.13) has no control-flow higher-order ops.
#
#   ci/sid-root.sh ensure            make the root (or reuse it) and check it
#   ci/sid-root.sh run CMD [ARG...]  run CMD inside the root, in the project directory
#   ci/sid-root.sh path              print where the root lives
#
# The root lives in $VMAPFUZZ_SID_ROOT (default /var/cache/vmapfuzz/sid-root). Each `run` happens
# in a private mount namespace, so /proc, /dev and the project bind-mount vanish with it.
# VMAPFUZZ_SUITE=trixie (or another Debian suite) makes and enters a root of that suite instead,
# with its own torch (trixie: 2.6.0), in /var/cache/vmapfuzz/trixie-root ($VMAPFUZZ_SUITE_ROOT moves
# it): ci/torch-matrix.sh uses it.
set -euo pipefail

SUITE=${VMAPFUZZ_SUITE:-sid}
if [ "$SUITE" = sid ]; then ROOT=${VMAPFUZZ_SID_ROOT:-/var/cache/vmapfuzz/sid-root}
else ROOT=${VMAPFUZZ_SUITE_ROOT:-/var/cache/vmapfuzz/$SUITE-root}; fi
PROJECT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The stamp names the package list's version: bump it when PACKAGES grows, and `ensure` installs
# what an existing root lacks (apt-get install of the whole list; no new bootstrap).
STAMP="$ROOT/.vmapfuzz-ready-v4"
APT_OPTS=(-o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false -o Dpkg::Use-Pty=0)
# python3-setuptools: torch's inductor imports setuptools.command (torch.utils.cpp_extension); sid's
# python3-torch depends on it, trixie's (2.6.0) does not, and without it compile-inductor fails there.
PACKAGES=(python3 python3-torch libtorch-dev g++ clang libclang-rt-dev cmake ninja-build
          libgtest-dev libgmock-dev librapidcheck-dev libcli11-dev nlohmann-json3-dev ca-certificates
          python3-pytest python3-pyflakes python3-setuptools)

die() { echo "sid-root: error: $*" >&2; exit 3; }
say() { echo "sid-root: $*" >&2; }

mirror() {
  # The registry this machine's own apt already uses, so that no host is named here.
  local m
  m=$(grep -rhoE '^(deb|URIs:)[^#]*https?://[^ ]+' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
      | grep -oE 'https?://[^ ]+/debian/?$' | head -n1 || true)
  [ -n "$m" ] || die "no Debian package registry found in /etc/apt; set VMAPFUZZ_SID_MIRROR"
  echo "${VMAPFUZZ_SID_MIRROR:-$m}"
}

ensure() {
  if [ -f "$STAMP" ]; then return 0; fi
  [ "$(id -u)" = 0 ] || die "making the sid root needs root (or install PyTorch >= 2.5 yourself; see README)"
  local parent; parent=$(dirname "$ROOT"); mkdir -p "$parent" || die "cannot create $parent"
  local free_kb; free_kb=$(df -Pk "$parent" | awk 'NR==2{print $4}')
  [ "${free_kb:-0}" -ge 5000000 ] || die "need 5 GB free under $parent, have $((free_kb/1024)) MB"
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
      || die "cannot install debootstrap from the package registry"
  fi
  local m; m=$(mirror)
  if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
    say "bootstrapping Debian $SUITE into $ROOT (a few minutes)"
    rm -rf "$ROOT.partial"
    debootstrap --variant=minbase "$SUITE" "$ROOT.partial" "$m" >"$parent/debootstrap-$SUITE.log" 2>&1 \
      || die "debootstrap failed (registry unreachable?); see $parent/debootstrap-$SUITE.log"
    mv "$ROOT.partial" "$ROOT"
  fi
  say "installing ${PACKAGES[*]}"
  in_root env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" update -qq \
    || die "apt-get update inside the $SUITE root failed (registry unreachable?)"
  in_root env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install -y -qq "${PACKAGES[@]}" >"$parent/apt-$SUITE.log" 2>&1 \
    || die "apt-get install inside the $SUITE root failed; see $parent/apt-$SUITE.log"
  in_root python3 -c 'import torch, torch._higher_order_ops' \
    || die "torch in the $SUITE root does not import"
  touch "$STAMP"
  say "ready: $(in_root python3 -c 'import torch; print("torch", torch.__version__)')"
}

# Runs a command inside the root with /proc, /dev and the project mounted, in a private mount
# namespace so that nothing stays mounted afterwards.
in_root() {
  local cwd; cwd=$(pwd)
  case "$cwd" in "$PROJECT"*) ;; *) cwd=$PROJECT ;; esac
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    R=$1; P=$2; C=$3; shift 3
    mount -t proc proc "$R/proc"
    mount --rbind /dev "$R/dev"
    mkdir -p "$R$P" "$R/tmp"; mount --bind "$P" "$R$P"
    cp -f /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
    exec chroot "$R" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
      LANG=C.UTF-8 CI="${CI:-}" VMAPFUZZ_IN_SID=1 /bin/bash -c "cd \"\$0\" && exec \"\$@\"" "$C" "$@"
  ' _ "$ROOT" "$PROJECT" "$cwd" "$@"
}

case "${1:-}" in
  ensure) ensure ;;
  run) shift; [ $# -gt 0 ] || die "usage: ci/sid-root.sh run CMD [ARG...]"; ensure; in_root "$@" ;;
  path) echo "$ROOT" ;;
  *) echo "usage: ci/sid-root.sh ensure | run CMD [ARG...] | path" >&2; exit 2 ;;
esac
