#!/usr/bin/env bash
# Run a command inside the kflow toolchain root (see tools/bootstrap.sh) with
# the work tree mounted at the same path, so build trees and paths printed by
# the tools are valid both inside and outside.
#
#   tools/in-root.sh [--root DIR] [--no-bootstrap] [--bind DIR]... -- COMMAND [ARGS...]
#
# --bind DIR makes a host directory visible inside at the same path (tools/kflow
# binds the directories of the paths a user names).  Inside, KFLOW_ROOT_BINDS
# lists the host directories the command can reach (kflow refuses to write
# elsewhere: it would be lost with the root's private /tmp and files).
# With KFLOW_NATIVE=1 the command runs directly on the host instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/.." && pwd -P)
root=""
bootstrap=1
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
  --root) root=$2; shift 2 ;;
  --bind) extra+=("$2"); shift 2 ;;
  --no-bootstrap) bootstrap=0; shift ;;
  --) shift; break ;;
  *) break ;;
  esac
done
[[ $# -gt 0 ]] || { echo "usage: tools/in-root.sh [--root DIR] -- COMMAND..." >&2; exit 2; }

# unshare and chroot live in sbin, which a minimal PATH (cron's /usr/bin:/bin) lacks.
PATH="$PATH:/usr/sbin:/sbin"
if [[ "${KFLOW_NATIVE:-0}" == 1 ]]; then
  exec "$@"
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "kflow: the toolchain root needs root to enter (unshare, chroot); run as root, or set" \
    "KFLOW_NATIVE=1 to build with Kokkos, VTK, toml++ and Catch2 installed on the host" \
    "(README.md, 'Native build')" >&2
  exit 1
fi
if [[ $bootstrap == 1 ]]; then
  root=$("$here/bootstrap.sh" --print-root)
fi

# Directories visible inside: the work tree (and a ../shared directory beside
# it, where one exists), plus the current directory.
binds=("$top")
[[ -d "$top/../shared" ]] && binds+=("$(cd "$top/../shared" && pwd)")
case "$PWD" in "$top"/*|"$top") ;; *) binds+=("$PWD") ;; esac
for d in "${extra[@]}"; do
  [[ -d "$d" && "$d" != / ]] && binds+=("$(cd "$d" && pwd)")
done
visible=$(IFS=:; echo "${binds[*]}")

# A private mount namespace: every mount below disappears with the command.
script='set -e; r=$1; shift; n=$1; shift
mount --make-rprivate /
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mount --rbind /sys "$r/sys" 2>/dev/null || true
mount -t tmpfs tmpfs "$r/tmp"
for ((k = 0; k < n; k++)); do d=$1; shift; mkdir -p "$r$d"; mount --rbind "$d" "$r$d"; done
cwd=$1; shift
exec chroot "$r" /usr/bin/env -C "$cwd" "$@"'
# UCX (Open MPI's transport library, linked into kflow through libmpi) hooks
# the memory allocator in its constructor, before main: 0.4 s at every
# start of every program linked with MPI, on this toolchain's UCX, though
# only RDMA transports use the hooks.  Off unless the caller sets it.
exec unshare --mount bash -c "$script" in-root "$root" "${#binds[@]}" "${binds[@]}" "$PWD" \
  env -u LD_LIBRARY_PATH PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root TERM="${TERM:-dumb}" KFLOW_ROOT_BINDS="$visible" UCX_MEM_EVENTS="${UCX_MEM_EVENTS:-no}" "$@"
