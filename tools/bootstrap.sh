#!/usr/bin/env bash
# kflow toolchain bootstrap.
#
# Creates, once, a Debian sid root file system that holds the toolchain kflow
# builds with (g++, CMake, ninja, Kokkos with OpenMP, VTK, toml++, Catch2 3,
# matplotlib, hypre with OpenMPI: the multigrid peer), and Kokkos Kernels'
# headers, unpacked from Debian experimental's binary package for header-only
# use against libkokkos-dev (step 5 below; README.md, "The toolchain").  Debian 12 (bookworm)
# has no usable Kokkos, which is why the root exists at all; see README.md ("Native build") for the native path.
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

RECIPE=6   # bump when the package list or the fix-ups below change
PACKAGES=(g++ cmake ninja-build make pkgconf libkokkos-dev
  libtomlplusplus-dev libcatch2-dev python3 python3-matplotlib python3-numpy
  binutils ca-certificates libhypre-dev libsuperlu-dist-dev ccache)
# VTK (KFLOW_ROOT_VTK=0 leaves it out: frames are then .kff files, README.md).
# libvtk9-dev depends on the development packages of every VTK module (a
# JDK, Boost, GDAL, FFmpeg, MariaDB, ...: 708 packages and 1.08 GB of
# downloads in all where 490 and 0.56 GB suffice), of which kflow's four
# modules (CommonCore, CommonDataModel, IOCore, IOXML) use none.  So the root
# installs VTK's libraries, tools and Python modules (its CMake files name
# them) and the development packages of those four modules' dependencies,
# and unpacks libvtk9-dev's headers and CMake files from its .deb (step 3);
# where that does not configure, it installs libvtk9-dev itself.
VTK_RUNTIME_DEPS=(vtk9 python3-vtk9 libtbb-dev zlib1g-dev libexpat1-dev liblz4-dev
  liblzma-dev nlohmann-json3-dev)
WITH_VTK=${KFLOW_ROOT_VTK:-1}
[[ "$WITH_VTK" == 0 || "$WITH_VTK" == 1 ]] || {
  printf 'kflow-bootstrap: error: KFLOW_ROOT_VTK=%s: expected 1 (VTK, the default) or 0\n' "$WITH_VTK" >&2
  exit 2
}
# Kokkos Kernels: headers only, from this binary package of Debian experimental
# (Trilinos 17.0, Kokkos Kernels 5.0.2), unpacked with dpkg-deb -x into
# $KK_PREFIX, never installed with dpkg (its Trilinos Kokkos collides with
# libkokkos-dev).  The tested build (amd64) is taken first, by file name and
# SHA256; when the archive no longer has it, whatever the suite's index lists
# now (with a warning: untested).  KFLOW_KK_SUITE / KFLOW_KK_PACKAGE select
# another; KFLOW_KK_PACKAGE=none skips it.
KK_SUITE=${KFLOW_KK_SUITE:-experimental}
KK_PACKAGE=${KFLOW_KK_PACKAGE:-libtrilinos-kokkos-kernels-dev}
KK_TESTED_FILE=pool/main/t/trilinos/libtrilinos-kokkos-kernels-dev_17.0.0+dfsg-5_amd64.deb
KK_TESTED_SHA256=11a645e2b3468aafc62e021dd5e06559841f2a6ef6725265dbfa6bb1fd7fbb9b
KK_TESTED_VERSION=17.0.0+dfsg-5
KK_PREFIX=/opt/kokkos-kernels
MIRROR=${KFLOW_MIRROR:-http://deb.debian.org/debian}
ROOT=${KFLOW_ROOTFS:-/var/cache/kflow/sid-r$RECIPE}
STAMP="$ROOT/.kflow-root-complete"
# A root set up with KFLOW_ROOT_VTK=0 keeps that choice when it is not given again.
if [[ -z "${KFLOW_ROOT_VTK:-}" && -f "$STAMP" ]] && grep -q " vtk=0 " "$STAMP"; then WITH_VTK=0; fi
WANT="recipe=$RECIPE packages=${PACKAGES[*]} vtk=$WITH_VTK kokkos-kernels=$KK_SUITE/$KK_PACKAGE"
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
if [[ ! -d "$ROOT/usr" && "$avail_kb" -lt $((4 * 1024 * 1024)) ]]; then
  die "not enough free disk for the toolchain root: $((avail_kb / 1024)) MiB \
free under $(dirname "$ROOT"), about 4 GiB needed (2.8 GiB root + downloads).  \
Free space or set KFLOW_ROOTFS to a larger disk."
fi

say "setting up the kflow toolchain root in $ROOT"
say "(Debian 12 has no usable Kokkos; a Debian sid root provides Kokkos 5, VTK 9,"
say " toml++ and Catch2 3.  This happens once and takes a few minutes.)"

t_start=$SECONDS
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host (apt-get)"
  apt-get -q update >/dev/null || die "apt-get update failed: is the Debian archive reachable?"
  apt-get -q -y install debootstrap >/dev/null || die "cannot install debootstrap from the Debian archive"
fi

# Everything mounted below lives in a private mount namespace of the chroot
# helper (tools/in-root.sh), so nothing here is left mounted.
if [[ ! -x "$ROOT/usr/bin/apt-get" || ! -f "$ROOT/.kflow-debootstrap-done" ]]; then
  say "step 1/5: debootstrap --variant=minbase sid (about 30 s) from $MIRROR"
  rm -rf "$ROOT"
  mkdir -p "$ROOT"
  if ! debootstrap --variant=minbase sid "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1; then
    tail -n 20 "$ROOT.debootstrap.log" >&2
    die "debootstrap of Debian sid failed (log: $ROOT.debootstrap.log).  Is $MIRROR reachable?  Is there disk space?"
  fi
  touch "$ROOT/.kflow-debootstrap-done"
fi

inroot() { "$(dirname "$0")/in-root.sh" --root "$ROOT" --no-bootstrap -- "$@"; }

t_debootstrap=$((SECONDS - t_start))
say "step 2/5: apt-get install (about 1.5 minutes, 2.8 GB)"
t_packages=$SECONDS
echo "deb $MIRROR sid main" >"$ROOT/etc/apt/sources.list"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# dpkg syncs every file it unpacks; a root that is rebuilt when interrupted
# (no stamp) needs none of that.
mkdir -p "$ROOT/etc/dpkg/dpkg.cfg.d"
echo force-unsafe-io >"$ROOT/etc/dpkg/dpkg.cfg.d/kflow-unsafe-io"
if ! inroot env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" update >"$ROOT.apt.log" 2>&1; then
  tail -n 20 "$ROOT.apt.log" >&2
  die "apt-get update in the sid root failed (log: $ROOT.apt.log)"
fi
install=("${PACKAGES[@]}")
if [[ $WITH_VTK == 1 ]]; then
  # VTK's library package (libvtk9.N), as libvtk9-dev names it today.
  vtk_lib=$(inroot apt-cache depends libvtk9-dev 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^libvtk9\.[0-9]+$/ {print $2; exit}')
  [[ -n "$vtk_lib" ]] || die "the archive's libvtk9-dev names no libvtk9.N library package (log: $ROOT.apt.log)"
  install+=("$vtk_lib" "${VTK_RUNTIME_DEPS[@]}")
fi
say "  ${install[*]}"
if ! inroot env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install "${install[@]}" >>"$ROOT.apt.log" 2>&1; then
  tail -n 20 "$ROOT.apt.log" >&2
  die "installing packages in the sid root failed (log: $ROOT.apt.log)"
fi
t_packages=$((SECONDS - t_packages))

# VTK's headers and CMake files: libvtk9-dev's .deb of the installed
# library's version, unpacked (dpkg-deb -x), checked by configuring a
# project that asks for kflow's VTK modules; where that fails, libvtk9-dev
# is installed with all its dependencies.
t_vtk=$SECONDS
if [[ $WITH_VTK == 1 ]]; then
  say "step 3/5: VTK's headers and CMake files (libvtk9-dev unpacked, not installed)"
  cat >"$ROOT/root/kflow-vtk-headers.sh" <<'EOS'
set -euo pipefail
cd /tmp
want=$(dpkg-query -W -f='${Version}' "$1")
apt-get -o Acquire::Check-Valid-Until=false -q download "libvtk9-dev=$want"
dpkg-deb -x libvtk9-dev_*.deb /
mkdir -p probe
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(probe CXX)' \
  'find_package(VTK 9 REQUIRED QUIET COMPONENTS CommonCore CommonDataModel IOXML IOCore)' \
  'add_library(probe INTERFACE)' \
  'target_link_libraries(probe INTERFACE VTK::CommonCore VTK::CommonDataModel VTK::IOXML)' \
  >probe/CMakeLists.txt
cmake -S probe -B probe/build >probe.log 2>&1 || { cat probe.log; exit 1; }
cat probe.log
# VTK's CMake files name its Java wrapping tools (libvtk9-java, which needs
# a JDK) and say at every configure that they are missing: a stub of each
# says what it is.
for f in $(grep -oE '"/usr/bin/vtk[A-Za-z]+-[0-9.]+"' probe.log | tr -d '"' | sort -u); do
  [[ -e $f ]] && continue
  printf '#!/bin/sh\necho "%s: a VTK wrapping tool, not in the kflow toolchain root" >&2\nexit 1\n' "$f" >"$f"
  chmod +x "$f"
done
rm -rf probe/build
cmake -S probe -B probe/build >probe.log 2>&1 || { cat probe.log; exit 1; }
if grep -q "references the file" probe.log; then cat probe.log; exit 1; fi
EOS
  if ! inroot bash /root/kflow-vtk-headers.sh "$vtk_lib" >"$ROOT.vtk.log" 2>&1; then
    say "  the unpacked headers did not configure (log: $ROOT.vtk.log); installing libvtk9-dev with its dependencies"
    if ! inroot env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install libvtk9-dev >>"$ROOT.apt.log" 2>&1; then
      tail -n 20 "$ROOT.apt.log" >&2
      die "installing libvtk9-dev in the sid root failed (log: $ROOT.apt.log)"
    fi
  fi
  rm -f "$ROOT/root/kflow-vtk-headers.sh"
else
  say "step 3/5: VTK left out (KFLOW_ROOT_VTK=0): frames are written as .kff files"
fi
t_vtk=$((SECONDS - t_vtk))
inroot apt-get clean >/dev/null 2>&1 || true

# Packaging bug in libkokkos-dev 5.2.2: KokkosTargets.cmake
# names libkokkosalgorithms.a and libkokkossimd.a, which the package does not
# ship, so find_package(Kokkos) fails.  Both libraries are header-only for our
# use; an empty archive in their place is enough.
say "step 4/5: fixing known packaging problems"
targets=$(ls "$ROOT"/usr/lib/*/cmake/Kokkos/KokkosTargets*.cmake 2>/dev/null || true)
[[ -n "$targets" ]] || die "libkokkos-dev installed no KokkosTargets*.cmake; the package layout changed"
# The targets file names them as ${_IMPORT_PREFIX}/lib/<triplet>/libkokkosX.a; _IMPORT_PREFIX is /usr.
for lib in $(grep -ho '_IMPORT_PREFIX}/lib/[^"; ]*libkokkos[a-z]*\.a' $targets | sed 's|^_IMPORT_PREFIX}|/usr|' | sort -u); do
  if [[ ! -e "$ROOT$lib" ]]; then
    say "  creating empty $lib (named by KokkosTargets.cmake, not shipped)"
    inroot ar rcs "$lib"
  fi
done

# Kokkos Kernels is templates; Trilinos' build of it instantiates kernels for
# its own Serial Kokkos and calls BLAS/LAPACK through its libraries.  Its
# headers are used here without any of that: the package's config header is
# rewritten so that no explicit instantiation (ETI) and no third-party library
# is announced, and the generated ETI lists are emptied, so every kernel is
# instantiated inline by the including program and nothing links Trilinos.
if [[ "$KK_PACKAGE" != none && ! -f "$ROOT$KK_PREFIX/.kflow-complete" ]]; then
  say "step 5/5: Kokkos Kernels headers from $KK_SUITE's $KK_PACKAGE (binary .deb, unpacked, not installed)"
  rm -rf "$ROOT$KK_PREFIX"
  if ! inroot env MIRROR="$MIRROR" SUITE="$KK_SUITE" PKG="$KK_PACKAGE" PREFIX="$KK_PREFIX" \
    TESTED_FILE="$KK_TESTED_FILE" TESTED_SHA256="$KK_TESTED_SHA256" TESTED_VERSION="$KK_TESTED_VERSION" \
    bash -euo pipefail -c '
    helper=/usr/lib/apt/apt-helper
    arch=$(dpkg --print-architecture)
    cd /tmp
    file=""
    if [[ $arch == amd64 && $PKG == libtrilinos-kokkos-kernels-dev ]] &&
      "$helper" download-file "$MIRROR/$TESTED_FILE" kk.deb "SHA256:$TESTED_SHA256" >/dev/null 2>&1; then
      file=$TESTED_FILE sha=$TESTED_SHA256 ver=$TESTED_VERSION
    else
      "$helper" download-file "$MIRROR/dists/$SUITE/main/binary-$arch/Packages.xz" Packages.xz >/dev/null
      # The stanza of $PKG: its file name, SHA256 and version.
      read -r file sha ver < <("$helper" cat-file Packages.xz | awk -v p="$PKG" "
        /^Package: / { inpkg = (\$2 == p) }
        inpkg && /^Filename: / { f = \$2 } inpkg && /^SHA256: / { h = \$2 } inpkg && /^Version: / { v = \$2 }
        END { if (f != \"\") print f, h, v }")
      [[ -n "${file:-}" ]] || { echo "no package $PKG in $SUITE for $arch" >&2; exit 1; }
      echo "warning: $TESTED_FILE is not in the archive; taking $file (untested with kflow)" >&2
      "$helper" download-file "$MIRROR/$file" kk.deb "SHA256:$sha" >/dev/null
    fi
    dpkg-deb -x kk.deb x
    inc=x/usr/include/trilinos
    [[ -f $inc/KokkosKernels_config.h && -f $inc/KokkosSparse_spmv.hpp ]] || { echo "$file: no Kokkos Kernels headers under /usr/include/trilinos" >&2; exit 1; }
    mkdir -p "$PREFIX/include" "$PREFIX/share"
    cp -a "$inc/." "$PREFIX/include/"
    cp x/usr/share/doc/"$PKG"/copyright "$PREFIX/share/copyright"
    cd "$PREFIX/include"
    cfg=KokkosKernels_config.h
    sed -i -E \
      -e "s|^#define (KOKKOSKERNELS_INST_[A-Z0-9_]+)\$|/* #undef \1 (kflow: no ETI, header-only) */|" \
      -e "s|^#define (KOKKOSKERNELS_ENABLE_TPL_[A-Za-z0-9_]+)\$|/* #undef \1 (kflow: no third-party libraries) */|" \
      -e "s|^#define (KOKKOSKERNELS_ENABLE_SUPERNODAL_SPTRSV)\$|/* #undef \1 (kflow: needs BLAS/LAPACK) */|" \
      -e "s|^#define (KOKKOSKERNELS_TEST_ETI_ONLY)\$|/* #undef \1 */|" \
      -e "s|^#define KOKKOSLINALG_OPT_LEVEL .*|#define KOKKOSLINALG_OPT_LEVEL 1|" "$cfg"
    for f in generated_specializations_hpp/*.hpp; do sed -i -E "/_ETI_SPEC_(AVAIL|DECL)[A-Z_]*\(/d" "$f"; done
    if grep -E "^#define (KOKKOSKERNELS_INST_|KOKKOSKERNELS_ENABLE_TPL_|KOKKOSKERNELS_ETI_ONLY)" "$cfg" ||
      grep -l "_ETI_SPEC_[A-Z_]*(" generated_specializations_hpp/*.hpp; then
      echo "$cfg or the ETI lists still announce instantiations or libraries (above)" >&2; exit 1
    fi
    # Stamp the derived header and record where it came from.
    sed -i "1i // Derived by kflow tools/bootstrap.sh from $file: ETI and TPLs off (header-only)." "$cfg"
    printf "%s\n" "package=$PKG" "version=$ver" "file=$file" "sha256=$sha" \
      "kokkos_kernels=$(awk "/define KOKKOSKERNELS_VERSION_(MAJOR|MINOR|PATCH)/ {printf \"%s%s\", s, \$3; s=\".\"}" "$cfg")" \
      >"$PREFIX/share/source"
    touch "$PREFIX/.kflow-complete"
  ' >"$ROOT.kokkos-kernels.log" 2>&1; then
    tail -n 20 "$ROOT.kokkos-kernels.log" >&2
    rm -rf "$ROOT$KK_PREFIX"
    say "warning: Kokkos Kernels could not be set up (log: $ROOT.kokkos-kernels.log);"
    say "  kflow builds without it (KFLOW_ENABLE_KOKKOS_KERNELS finds nothing)."
  else
    say "  $(tr '\n' ' ' <"$ROOT$KK_PREFIX/share/source")"
  fi
fi

echo "$WANT" >"$STAMP"
# Roots of older recipes at the default place (never deleted here).
if [[ -z "${KFLOW_ROOTFS:-}" ]]; then
  for old in "$(dirname "$ROOT")"/sid-r*; do
    n=${old##*/sid-r}
    [[ -d "$old" && "$n" =~ ^[0-9]+$ && "$n" -lt "$RECIPE" && -f "$old/.kflow-root-complete" ]] &&
      say "note: $old is the root of an older recipe, which this checkout no longer uses; delete it to free its space"
  done
fi
say "toolchain root ready: $ROOT ($((SECONDS - t_start)) s: debootstrap ${t_debootstrap} s, packages ${t_packages} s, VTK's headers ${t_vtk} s)"
[[ "${1:-}" == "--print-root" ]] && echo "$ROOT"
exit 0
