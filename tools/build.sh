#!/usr/bin/env bash
# Configures (once) and builds kflow in build/ — inside the toolchain root, or
# natively with KFLOW_NATIVE=1 (your own Kokkos >= 4.6, VTK 9, toml++ 3, Catch2 3).
#
#   tools/build.sh [--target T]... [CMAKE_CONFIGURE_ARGS...]
#
# --target builds only that target (tools/kflow builds the program alone,
# tools/test everything); extra arguments go to the CMake configure step,
# e.g. -DKFLOW_ENABLE_VTK=OFF.  Objects are cached with ccache where the
# toolchain has it (KFLOW_CCACHE, CMakeLists.txt), so a fresh clone on the
# same machine compiles only what differs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
build=${KFLOW_BUILD_DIR:-$top/build}
targets=()
while [[ $# -gt 0 && "$1" == --target ]]; do
  [[ $# -ge 2 ]] || { echo "kflow-build: --target needs a name" >&2; exit 2; }
  targets+=(--target "$2")
  shift 2
done
# The toolchain root first: its set-up (once) must succeed before anything
# is asked of it.
root=()
if [[ "${KFLOW_NATIVE:-0}" != 1 ]]; then root=(--root "$("$top/tools/bootstrap.sh" --print-root)" --no-bootstrap); fi
run() { "$top/tools/in-root.sh" "${root[@]}" -- "$@"; }
# One build at a time in a build tree (two tools/kflow runs started together
# would otherwise run two ninjas over the same files).
mkdir -p "$build"
exec 9>"$build/.kflow-build.lock"
if ! flock -n 9; then
  echo "kflow-build: waiting for another build in $build to finish" >&2
  flock 9
fi
# A build tree configured in another toolchain root (an older recipe) holds
# that root's cached paths: it is configured afresh (its objects come back
# from ccache where nothing changed).
where=native
[[ ${#root[@]} -gt 0 ]] && where=${root[1]}
if [[ -f "$build/CMakeCache.txt" && "$(cat "$build/.kflow-root" 2>/dev/null)" != "$where" ]]; then
  echo "kflow-build: $build was configured in another toolchain ($(cat "$build/.kflow-root" 2>/dev/null || echo unknown)); configuring it afresh for $where" >&2
  rm -f "$build/CMakeCache.txt"
fi
if [[ ! -f "$build/CMakeCache.txt" || $# -gt 0 ]]; then
  gen=()
  if [[ ! -f "$build/CMakeCache.txt" ]] && run sh -c 'command -v ninja >/dev/null'; then gen=(-G Ninja); fi
  echo "kflow-build: configuring $build" >&2
  run cmake -S "$top" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >&2
  echo "$where" >"$build/.kflow-root"
fi
echo "kflow-build: building ${targets[*]:-everything} (${KFLOW_JOBS:-$(nproc)} jobs)" >&2
run cmake --build "$build" --parallel "${KFLOW_JOBS:-$(nproc)}" "${targets[@]}" >&2
