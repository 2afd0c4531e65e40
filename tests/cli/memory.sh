#!/usr/bin/env bash
# usage: memory.sh KFLOW WORKDIR CASE_3D
# An allocation that fails (here under a limit on the process's memory,
# ulimit -v) is named with what needed how much, never as a library's
# message (docs/safety.md).  Reproducers: "std::bad_alloc" under a memory
# limit, "Kokkos ERROR: ... failed to allocate" from a benchmark.
set -uo pipefail
kflow=$1 w=$2 case3d=$3
rm -rf "$w" && mkdir -p "$w" && cd "$w" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# (a GPU build maps more address space than any such limit allows)
if "$kflow" info | grep -q "^backends compiled in:.*cuda"; then echo "a CUDA build: skipped"; exit 0; fi
limited() {  # limited KB <regex> <kflow args...>: fails under ulimit -v KB, message matches
  local kb=$1 re=$2; shift 2
  (ulimit -v "$kb"; "$kflow" "$@") > out.log 2>&1 && { cat out.log; fail "kflow $* ran"; }
  cat out.log
  grep -Eq -e "$re" out.log || fail "kflow $*: message does not match '$re'"
  grep -Eq "internal error|Kokkos ERROR|std::bad_alloc$" out.log && fail "a library's message"
  echo "named as expected: kflow $*"
}
# Kokkos' allocation of a benchmark's array.
limited 1500000 'out of memory: [0-9.]+ GiB of Host memory for "kflow::bench::a" could not be allocated, .*ulimit -v' \
  bench stream --size 200000000
# The host copies of a frame (std::bad_alloc).
limited 2500000 "out of memory: frame 0 at t = 0 needs about [0-9.]+ GB of host memory .*ulimit -v" \
  run "$case3d" --quiet --set 'grid.cells=[400,400,400]' --set time.steps=2 --output f
[[ -d f.failed && ! -e f.running && ! -e f.lock ]] || fail "f"
echo "memory ok"
