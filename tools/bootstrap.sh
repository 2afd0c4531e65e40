#!/usr/bin/env bash
# kflow toolchain bootstrap.
#
# Creates, once, a Debian sid root file system that holds the toolchain kflow
# builds with (g++, CMake, ninja, Kokkos with OpenMP, VTK, toml++, Catch2 3,
# matplotlib, hypre with OpenMPI: the multigrid peer).  Debian 12 (bookworm)
# has no usable Kokkos, which is why the root exists at all; see README.md ("Building") for the native path.
#
# Idempotent: a complete root is recognised by a stamp file that records the
# package list and this script's recipe version; a second call costs seconds.
# An interrupted or damaged root (no stamp, wrong stamp, missing compiler) is
# repaired by re-running the missing steps.
#
# Location: $KFLOW_ROOTFS, default /var/cache/kflow/sid-<recipe>.  It lives
# outside the work tree so that a fresh clone (CI) on the same machine reuses
# it, while a fresh machine builds a complete one.
set -euo pipefail

RECIPE=4   # bump when the package list or the fix-ups below change
PACKAGES=(g++ cmake ninja-build make pkgconf libkokkos-dev libvtk9-dev
  libtomlplusplus-dev libcatch2-dev python3 python3-matplotlib python3-numpy
  binutils ca-certificates libhypre-dev libsuperlu-dist-dev)
MIRROR=${KFLOW_MIRROR:-http://deb.debian.org/debian}
ROOT=${KFLOW_ROOTFS:-/var/cache/kflow/sid-r$RECIPE}
STAMP="$ROOT/.kflow-root-complete"
WANT="recipe=$RECIPE packages=${PACKAGES[*]}"
APT_OPTS=(-o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false
  -o Dpkg::Use-Pty=0 -q -y)

say() { printf 'kflow-bootstrap: %s\n' "$*" >&2; }
die() {
  printf 'kflow-bootstrap: error: %s\n' "$*" >&2
  exit 1
}

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" && -x "$ROOT/usr/bin/g++" ]]; then
  [[ "${1:-}" == "--print-root" ]] && echo "$ROOT"
  exit 0
fi

[[ $(id -u) -eq 0 ]] || die "building the toolchain root at $ROOT needs root \
(debootstrap, chroot).  Run as root, or set KFLOW_NATIVE=1 with Kokkos >= 4.6, \
VTK 9, toml++ 3 and Catch2 3 installed on the host (README.md, 'Native build')."

mkdir -p "$(dirname "$ROOT")" || die "cannot create $(dirname "$ROOT")"
avail_kb=$(df -Pk "$(dirname "$ROOT")" | awk 'NR==2 {print $4}')
if [[ ! -d "$ROOT/usr" && "$avail_kb" -lt $((7 * 1024 * 1024)) ]]; then
  die "not enough free disk for the toolchain root: $((avail_kb / 1024)) MiB \
free under $(dirname "$ROOT"), about 7 GiB needed (4.6 GiB root + downloads).  \
Free space or set KFLOW_ROOTFS to a larger disk."
fi

say "setting up the kflow toolchain root in $ROOT"
say "(Debian 12 has no usable Kokkos; a Debian sid root provides Kokkos 5, VTK 9,"
say " toml++ and Catch2 3.  This happens once and takes a few minutes.)"

if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host (apt-get)"
  apt-get -q update >/dev/null || die "apt-get update failed: is the Debian archive reachable?"
  apt-get -q -y install debootstrap >/dev/null || die "cannot install debootstrap from the Debian archive"
fi

# Everything mounted below lives in a private mount namespace of the chroot
# helper (tools/in-root.sh), so nothing here is left mounted.
if [[ ! -x "$ROOT/usr/bin/apt-get" || ! -f "$ROOT/.kflow-debootstrap-done" ]]; then
  say "step 1/3: debootstrap --variant=minbase sid (about 30 s) from $MIRROR"
  rm -rf "$ROOT"
  mkdir -p "$ROOT"
  if ! debootstrap --variant=minbase sid "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1; then
    tail -n 20 "$ROOT.debootstrap.log" >&2
    die "debootstrap of Debian sid failed (log: $ROOT.debootstrap.log).  Is $MIRROR reachable?  Is there disk space?"
  fi
  touch "$ROOT/.kflow-debootstrap-done"
fi

inroot() { "$(dirname "$0")/in-root.sh" --root "$ROOT" --no-bootstrap -- "$@"; }

say "step 2/3: apt-get install ${PACKAGES[*]} (about 2 minutes, 4.6 GB)"
echo "deb $MIRROR sid main" >"$ROOT/etc/apt/sources.list"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
if ! inroot env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" update >"$ROOT.apt.log" 2>&1 ||
  ! inroot env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install "${PACKAGES[@]}" >>"$ROOT.apt.log" 2>&1; then
  tail -n 20 "$ROOT.apt.log" >&2
  die "installing packages in the sid root failed (log: $ROOT.apt.log)"
fi
inroot apt-get clean >/dev/null 2>&1 || true

# Packaging bug in libkokkos-dev 5.2.2 (environment.md): KokkosTargets.cmake
# names libkokkosalgorithms.a and libkokkossimd.a, which the package does not
# ship, so find_package(Kokkos) fails.  Both libraries are header-only for our
# use; an empty archive in their place is enough.
say "step 3/3: fixing known packaging problems"
targets=$(ls "$ROOT"/usr/lib/*/cmake/Kokkos/KokkosTargets*.cmake 2>/dev/null || true)
[[ -n "$targets" ]] || die "libkokkos-dev installed no KokkosTargets*.cmake; the package layout changed"
# The targets file names them as ${_IMPORT_PREFIX}/lib/<triplet>/libkokkosX.a; _IMPORT_PREFIX is /usr.
for lib in $(grep -ho '_IMPORT_PREFIX}/lib/[^"; ]*libkokkos[a-z]*\.a' $targets | sed 's|^_IMPORT_PREFIX}|/usr|' | sort -u); do
  if [[ ! -e "$ROOT$lib" ]]; then
    say "  creating empty $lib (named by KokkosTargets.cmake, not shipped)"
    inroot ar rcs "$lib"
  fi
done

echo "$WANT" >"$STAMP"
say "toolchain root ready: $ROOT"
[[ "${1:-}" == "--print-root" ]] && echo "$ROOT"
exit 0
