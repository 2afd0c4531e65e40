#!/usr/bin/env bash
# Configures (once) and builds kflow in build/ — inside the toolchain root, or
# natively with KFLOW_NATIVE=1 (your own Kokkos >= 4.6, VTK 9, toml++ 3, Catch2 3).
# Extra arguments go to the CMake configure step, e.g. -DKFLOW_ENABLE_VTK=OFF.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${KFLOW_BUILD_DIR:-$top/build}
run() { "$top/tools/in-root.sh" -- "$@"; }
gen=()
if [[ ! -f "$build/CMakeCache.txt" || $# -gt 0 ]]; then
  if run sh -c 'command -v ninja >/dev/null'; then gen=(-G Ninja); fi
  [[ -f "$build/CMakeCache.txt" ]] && gen=()
  echo "kflow-build: configuring $build" >&2
  run cmake -S "$top" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@" >&2
fi
echo "kflow-build: building (${KFLOW_JOBS:-$(nproc)} jobs)" >&2
run cmake --build "$build" --parallel "${KFLOW_JOBS:-$(nproc)}" >&2
