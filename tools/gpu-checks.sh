#!/usr/bin/env bash
# The GPU checks: builds kflow for CUDA against an installed Kokkos and runs
# the measurements only a GPU node can make (docs/performance.md, the model
# pages).  Each item writes ITEM.log under --out and one summary line to
# the terminal; items run in the order given.
#
#   tools/gpu-checks.sh --kokkos PREFIX [--kokkos-host PREFIX] [--tomlpp PREFIX]
#                       [--build DIR] [--out DIR] ITEM...
#
# --kokkos  an installed Kokkos with the CUDA backend (PREFIX/bin/nvcc_wrapper;
#           built as C++17: docs/getting-started.md, "The GPU build")
# --kokkos-host  an installed host-only Kokkos (OpenMP + Serial) for the 'cpu'
#           item: a Kokkos with CUDA compiles everything through nvcc_wrapper
# --tomlpp  a prefix holding include/toml++ (e.g. Debian's libtomlplusplus-dev
#           unpacked) where toml++ is not installed
# --build   the CUDA build tree (default build-cuda); --out the logs (default
#           out/gpu-checks)
#
# Items:
#   build     configure and build kflow-bench (kflow with the benches; CUDA +
#             OpenMP + Serial, no VTK, no MPI), which the measuring items use:
#             about 5 minutes on 16 cores (H100 host, Kokkos 41 s before it)
#   build-tests  the test programs (models, linalg, geometry) with the units
#             KFLOW_GPU_TESTS names (a regex, default 'test_gpu|test_lbm');
#             with Catch2's nvcc pragmas defined empty (tests/catch_nvcc.hpp)
#             test_gpu.cpp compiles in 13 s and test_gpu_linalg.cpp in 66 s
#             (2 cores; more than 17 minutes each with the pragmas)
#   tests     build-tests, then the tests it built but the [long] ones on the
#             GPU (the [gpu] tests: CUDA against OpenMP, every model)
#   bodies    lbm 512^3 D3Q19, float and float16s, both streaming schemes,
#             empty box and with a sphere of 10 % of the volume (interpolated
#             walls, forces every 100 steps): MLUPS over fluid cells
#   compare   CUDA = OpenMP with bodies and open sides: kflow compare on the
#             lbm DFG cases in float and float16s (bits: difference 0), and
#             on mac2d's cylinder-re20 ([[body]]) in double and float, staircase
#             and interpolated walls, and split3d's dfg-3d-1z and duct-block
#             in double and float, to t = 0.1 (rounding: the largest relative
#             difference is printed)
#   split3d   split3d's bench at 192^3 and 384^3, double and float; with
#             KFLOW_SPLIT3D_BEFORE=BINARY (an older kflow-bench) alternated
#             with it, twice each (before/after a change)
#   fp16c     lbm 512^3 float16c in place and two-grid
#   lbm-dfg   DFG 3D-1Z at 20 and 40 cells per diameter (float); 2D-1 at 80
#             and 160 (u_lat 0.05); 2D-2 at 80 and 160; 2D-1 under diffusive
#             scaling (80: u_lat 0.025, 160: 0.0125).  KFLOW_DFG_RUNS="3d1z-d20
#             2d1-d80 ..." runs only those (the names of out/runs/)
#   build-host  the 'cpu' item's build alone (a host-only g++ build of
#             kflow-bench in BUILD-host); it can run beside the CUDA build or
#             a GPU run
#   cpu       a host-only g++ build (OpenMP) in BUILD-host and lbm's CPU row
#             on all cores (256^3, float and float16s, in place)
#   mac2d-dfg mac2d's DFG 2D-1 (t = 15) and 2D-2 (t = 12) with interpolated
#             walls, TVD and CG + multigrid at D = 20, 40 and 80 cells: c_D,
#             c_L over the surface and from the momentum balance, delta_p;
#             St, c_D,max, c_L,max.  KFLOW_MAC2D_DFG_RUNS="2d1-d80 ..." picks
#   mac2d     the 512^2 Re 1000 cavity with TVD to t = 40 (psi_min against
#             Botella & Peyret 1998) and Gartling's Re 800 step at 1920 x 128.
#             KFLOW_MAC2D_RUNS="cavity step" picks runs; KFLOW_CAVITY_END=80
#             runs the cavity longer (psi_min's history is printed)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
kokkos="" kokkos_host="" tomlpp="" build=$top/build-cuda out=$top/out/gpu-checks
items=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kokkos | --kokkos-host | --tomlpp | --build | --out)
      [[ $# -ge 2 ]] || { echo "gpu-checks: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --kokkos) kokkos=$2 ;; --kokkos-host) kokkos_host=$2 ;; --tomlpp) tomlpp=$2 ;; --build) build=$2 ;; --out) out=$2 ;;
      esac
      shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    build | build-tests | build-host | tests | bodies | compare | split3d | fp16c | lbm-dfg | cpu | mac2d | mac2d-dfg) items+=("$1"); shift ;;
    *) echo "gpu-checks: unknown item or option '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
[[ ${#items[@]} -gt 0 ]] || { echo "gpu-checks: no item given (--help lists them)" >&2; exit 2; }
mkdir -p "$out"
# (kflow-bench: kflow with the benches, the same command line; built first)
kflow=$build/src/app/kflow-bench
jobs=$(nproc)

# step NAME CMD...: runs CMD with its output appended to NAME.log, timed.
step() {
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s)
  echo "== $*" >>"$out/$name.log"
  "$@" >>"$out/$name.log" 2>&1 || rc=$?
  echo "== exit $rc, $(($(date +%s) - t0)) s" >>"$out/$name.log"
  return $rc
}
need_build() {
  [[ -x "$kflow" ]] || { echo "gpu-checks: $kflow is missing: run the 'build' item first" >&2; exit 1; }
}

configure() {
  [[ -n "$kokkos" && -x "$kokkos/bin/nvcc_wrapper" ]] ||
    { echo "gpu-checks: --kokkos PREFIX with bin/nvcc_wrapper is needed to build" >&2; exit 2; }
  step build cmake -S "$top" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" -DKokkos_ROOT="$kokkos" \
    ${tomlpp:+-DTOMLPP_ROOT="$tomlpp"} \
    -DKFLOW_ENABLE_VTK=OFF -DKFLOW_ENABLE_MPI=OFF -DKFLOW_ENABLE_KOKKOS_KERNELS=OFF \
    -DKFLOW_CCACHE=OFF "-DKFLOW_TEST_SOURCES_REGEX=${KFLOW_GPU_TESTS:-test_gpu|test_lbm}"
}
do_build() {
  configure
  step build cmake --build "$build" --parallel "$jobs" --target kflow-bench
  echo "build: $(grep -c 'warning' "$out/build.log" || true) warning lines, $(tail -1 "$out/build.log")"
}
do_build_tests() {
  configure
  step build-tests cmake --build "$build" --parallel "$jobs" --target kflow_tests \
    kflow_linalg_tests kflow_geometry_tests -- -k 0
  echo "build-tests: $(tail -1 "$out/build-tests.log")"
}

do_tests() { # the three test programs (models, linalg, geometry) that were built
  do_build_tests || true
  local t rc=0 ran=0
  for t in kflow_tests kflow_linalg_tests kflow_geometry_tests; do
    [[ -x $build/tests/$t ]] || continue
    ran=1
    step tests "$build/tests/$t" "~[long]" --durations yes || rc=1
  done
  ((ran)) || { echo "tests: no test program was built (see $out/build-tests.log)"; return 1; }
  echo "tests: $(grep -E '^(All tests passed|test cases:)' "$out/tests.log" | tr '\n' ' ')(exit $rc)"
}

bench() { # bench LOG PRECISION [--set ...]
  local log=$1 p=$2
  shift 2
  step "$log" "$kflow" bench lbm --backend cuda --precision "$p" --set sizes=512 \
    --set streaming=all --repeat 3 "$@"
}
do_bodies() {
  need_build
  for p in float float16s; do
    bench bodies "$p"
    bench bodies "$p" --set body=sphere --set log_every=100
  done
  echo "bodies: see $out/bodies.log (MLUPS per scheme, empty and with the sphere)"
}
do_fp16c() {
  need_build
  bench fp16c float16c
  echo "fp16c: see $out/fp16c.log"
}

do_compare() {
  need_build
  local c p same rel=() r
  : >"$out/compare.log"
  for p in float float16s; do
    for c in dfg-2d-1 dfg-2d-2; do
      step compare "$kflow" compare "$top/cases/lbm/$c.toml" --backends openmp,cuda \
        --set run.precision=$p --set time.end=0.4
    done
    step compare "$kflow" compare "$top/cases/lbm/dfg-3d-1z.toml" --backends openmp,cuda \
      --set run.precision=$p --set time.end=0.5
  done
  same=$(grep -c 'largest relative difference: 0$' "$out/compare.log" || true)
  # mac2d around a [[body]]: CUDA's results may differ from OpenMP's by
  # rounding, so the largest relative difference is printed rather than
  # expected to be 0.
  for w in staircase interpolated; do
    for p in double float; do
      if step compare "$kflow" compare "$top/cases/mac2d/cylinder-re20.toml" --backends openmp,cuda \
        --set run.precision=$p --set time.end=0.1 --set numerics.body_walls=$w; then
        r=$(grep 'largest relative difference:' "$out/compare.log" | tail -1 | sed 's/.*: //')
      else
        r=failed
      fi
      rel+=("$w $p $r")
    done
  done
  # split3d around a [[body]] (the DFG cylinder, the duct's block): rounding.
  for c in dfg-3d-1z duct-block; do
    for p in double float; do
      if step compare "$kflow" compare "$top/cases/split3d/$c.toml" --backends openmp,cuda \
        --set run.precision=$p --set time.end=0.1; then
        r=$(grep 'largest relative difference:' "$out/compare.log" | tail -1 | sed 's/.*: //')
      else
        r=failed
      fi
      rel+=("split3d $c $p $r")
    done
  done
  echo "compare: lbm $same of 6 bit-identical; mac2d cylinder-re20 and split3d largest relative" \
    "difference: $(printf '%s; ' "${rel[@]}")see $out/compare.log"
}

do_split3d() { # the split3d bench on CUDA, alternated with KFLOW_SPLIT3D_BEFORE's binary
  need_build
  local n p b bins=("$kflow")
  [[ -n ${KFLOW_SPLIT3D_BEFORE:-} ]] && bins=("$KFLOW_SPLIT3D_BEFORE" "$kflow" "$KFLOW_SPLIT3D_BEFORE" "$kflow")
  for n in 192 384; do
    for p in double float; do
      for b in "${bins[@]}"; do
        step split3d "$b" bench split3d --backend cuda --set "grid.cells=[$n,$n,$n]" \
          --set time.steps=3 --set run.precision=$p || return 1
      done
    done
  done
  grep -hE '^== .*bench split3d|step|sweep' "$out/split3d.log" | head -80 || true
}

dfg() { # dfg NAME CASE SUMMARY_ARGS -- SETS...
  local name=$1 case=$2 sum=()
  shift 2
  while [[ $1 != -- ]]; do sum+=("$1"); shift; done
  shift
  local dir=$out/runs/$name
  step lbm-dfg "$kflow" run "$top/cases/lbm/$case.toml" --backend cuda --output "$dir" \
    --set output.every=1000.0 "$@" &&
    step lbm-dfg python3 "$top/tools/dfg-summary.py" "$dir" "${sum[@]}"
}
do_lbm_dfg() {
  need_build
  local end="time.end=60.0" only=${KFLOW_DFG_RUNS:-all}
  want() { [[ $only == all || " $only " == *" $1 "* ]]; }
  want 3d1z-d20 && dfg 3d1z-d20 dfg-3d-1z -- --set "grid.cells=[500, 82, 82]" \
    --set run.precision=float --set output.log_every=1000
  want 3d1z-d40 && dfg 3d1z-d40 dfg-3d-1z -- --set "grid.cells=[1000, 164, 164]" \
    --set run.precision=float --set output.log_every=2000
  want 2d1-d80 && dfg 2d1-d80 dfg-2d-1 -- --set "grid.cells=[1760, 328]" --set $end \
    --set output.log_every=2000
  want 2d1-d160 && dfg 2d1-d160 dfg-2d-1 -- --set "grid.cells=[3520, 656]" --set $end \
    --set output.log_every=4000
  want 2d2-d80 && dfg 2d2-d80 dfg-2d-2 --periodic 6 -- --set "grid.cells=[1760, 328]" \
    --set output.log_every=80
  want 2d2-d160 && dfg 2d2-d160 dfg-2d-2 --periodic 6 -- --set "grid.cells=[3520, 656]" \
    --set output.log_every=160
  want 2d1-d80-u025 && dfg 2d1-d80-u025 dfg-2d-1 -- --set "grid.cells=[1760, 328]" \
    --set lattice.velocity=0.025 --set $end --set output.log_every=4000
  want 2d1-d160-u0125 && dfg 2d1-d160-u0125 dfg-2d-1 -- --set "grid.cells=[3520, 656]" \
    --set lattice.velocity=0.0125 --set $end --set output.log_every=16000
  grep -h 'c_d' "$out/lbm-dfg.log" | grep -v '^==' || true
}

build_host() { # build_host LOG: the host-only build (g++, OpenMP + Serial Kokkos)
  local log=$1 host=$build-host
  [[ -n "$kokkos_host" ]] ||
    { echo "gpu-checks: the '$log' item needs --kokkos-host PREFIX (a host-only Kokkos)" >&2; return 1; }
  step "$log" cmake -S "$top" -B "$host" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=g++ -DKokkos_ROOT="$kokkos_host" ${tomlpp:+-DTOMLPP_ROOT="$tomlpp"} \
    -DKFLOW_ENABLE_VTK=OFF -DKFLOW_ENABLE_MPI=OFF -DKFLOW_ENABLE_KOKKOS_KERNELS=OFF \
    -DKFLOW_CCACHE=OFF -DKFLOW_BUILD_TESTS=OFF -DKFLOW_MARCH_NATIVE=ON
  step "$log" cmake --build "$host" --parallel "$jobs" --target kflow-bench
}
do_build_host() {
  build_host build-host || return 1
  echo "build-host: $(tail -1 "$out/build-host.log")"
}
do_cpu() {
  local host=$build-host p rc=0
  build_host cpu || return 1
  for p in float float16s; do
    OMP_NUM_THREADS=$jobs OMP_PROC_BIND=spread OMP_PLACES=threads step cpu "$host/src/app/kflow-bench" \
      bench lbm --backend openmp --precision $p --set sizes=256 --set streaming=in_place --repeat 3 ||
      rc=1
  done
  grep -hE '^(bench lbm|  D3Q19)' "$out/cpu.log" | tail -4 || true
  echo "cpu: see $out/cpu.log"
  return $rc
}

do_mac2d() {
  need_build
  local dir=$out/runs only=${KFLOW_MAC2D_RUNS:-cavity step} end=${KFLOW_CAVITY_END:-40.0}
  if [[ " $only " == *" cavity "* ]]; then
    step mac2d "$kflow" run "$top/cases/mac2d/cavity-re1000.toml" --backend cuda \
      --output "$dir/cavity-512" --set "grid.cells=[512, 512]" --set solver.pressure.method=mg \
      --set output.every=1000.0 --set time.end="$end" || true
    last_row "$dir/cavity-512/log.csv" time psi_min psi_min_x psi_min_y
    history "$dir/cavity-512/log.csv" psi_min
  fi
  if [[ " $only " == *" step "* ]]; then
    step mac2d "$kflow" run "$top/cases/mac2d/step-re800.toml" --backend cuda \
      --output "$dir/step-1920" --set "grid.cells=[1920, 128]" --set output.every=1000.0 || true
    last_row "$dir/step-1920/log.csv" time south_x1 north_x1 north_x2
  fi
}

do_mac2d_dfg() { # mac2d around the DFG cylinder, interpolated walls, three grids
  need_build
  local only=${KFLOW_MAC2D_DFG_RUNS:-all} d n m case dir sum
  want() { [[ $only == all || " $only " == *" $1 "* ]]; }
  for n in 20 40 80; do
    for case in 2d1 2d2; do
      want "$case-d$n" || continue
      dir=$out/runs/mac2d-$case-d$n
      if [[ $case == 2d1 ]]; then
        d=cylinder-re20 sum=(--velocity 0.2)
      else
        d=cylinder-re100 sum=(--periodic 6 --velocity 1.0)
      fi
      m=$((n * 22))
      step mac2d-dfg "$kflow" run "$top/cases/mac2d/$d.toml" --backend cuda --output "$dir" \
        --set "grid.cells=[$m, $((n * 41 / 10))]" --set numerics.body_walls=interpolated \
        --set numerics.convection=tvd --set solver.pressure.method=cg \
        --set solver.pressure.preconditioner=mg --set output.every=1000.0 \
        --set "analysis.pressure_probes=[0.15,0.2,0.25,0.2]" --set output.log_every=2 || continue
      step mac2d-dfg python3 "$top/tools/dfg-summary.py" "$dir" "${sum[@]}" \
        --drag drag_coefficient --lift lift_coefficient
      step mac2d-dfg python3 "$top/tools/dfg-summary.py" "$dir" "${sum[@]}" \
        --drag drag_balance --lift lift_balance
    done
  done
  grep -hE 'c_d|St =' "$out/mac2d-dfg.log" | grep -v '^==' || true
}

# history CSV COLUMN: the column at every tenth of the run's time (is it steady?)
history() {
  python3 - "$@" <<'PY' || true
import csv, sys
path, col = sys.argv[1], sys.argv[2]
rows = [r for r in csv.reader(l for l in open(path) if not l.startswith("#"))]
head, rows = rows[0], rows[1:]
t, c = head.index("time"), head.index(col)
end, marks, out = float(rows[-1][t]), [], []
for k in range(1, 11):
    want = end * k / 10
    r = min(rows, key=lambda r: abs(float(r[t]) - want))
    out.append("t = %s: %s" % (r[t], r[c]))
print(path + ": " + col + " history: " + "; ".join(out))
PY
}

# last_row CSV COLUMN...: the named columns of a log's last row.
last_row() {
  python3 - "$@" <<'PY' || true
import csv, sys
path, cols = sys.argv[1], sys.argv[2:]
rows = [r for r in csv.reader(l for l in open(path) if not l.startswith("#"))]
head, last = rows[0], rows[-1]
print(path + ": " + ", ".join(c + " = " + (last[head.index(c)] if c in head else "?") for c in cols))
PY
}

status=0
for item in "${items[@]}"; do
  fn=do_${item//-/_}
  "$fn" || { status=1; echo "gpu-checks: $item failed: $out/$item.log" >&2; }
done
exit $status
