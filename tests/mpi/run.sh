#!/usr/bin/env bash
# Distributed runs (mpirun) of kflow, compared with the single-rank run.
#   run.sh KFLOW MPIEXEC WORK same CASE [--runs 'N[:BLOCKS] ...'] [--set K=V]...
#                                                        1 rank = 2, 3, 4 ranks, bit for bit
#   run.sh KFLOW MPIEXEC WORK restart CASE [--steps 'A B C D'] [--set K=V]...
#                                                        1 -> 2 -> 1 -> 4 ranks by restarts
#   run.sh KFLOW MPIEXEC WORK order CASE                 second order on 3 ranks (exact solution)
#   run.sh KFLOW MPIEXEC WORK interrupt CASE             SIGTERM to a rank: checkpoint, restart
#   run.sh KFLOW MPIEXEC WORK refuse CASES_DIR           errors before any work, said once
#   run.sh KFLOW MPIEXEC WORK bench                      kflow bench lbm on 2 ranks
set -uo pipefail
kflow=$1 mpiexec=$2 work=$3 mode=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One host: shared memory (Open MPI probes UCX first otherwise, 1.1 s a launch).
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,sm}
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false OMP_WAIT_POLICY=passive
fail() { echo "FAIL: $*"; exit 1; }
on() {  # on N ARGS...: kflow on N ranks
  local n=$1
  shift
  "$mpiexec" --oversubscribe -n "$n" "$kflow" "$@"
}
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"

case $mode in
same)
  case_file=$1
  shift
  runs=()
  if [[ ${1:-} == --runs ]]; then  # N or N:[px,py(,pz)], space-separated
    read -r -a list <<<"$2"
    for r in "${list[@]}"; do runs+=("${r/:/ }"); done
    shift 2
  fi
  sets=("$@")
  "$kflow" run "$case_file" --quiet "${sets[@]}" --output "$work/one" || fail "1 rank (no mpirun)"
  # The blocks: kflow's choice (dist::choose_blocks), and given ones that split
  # every axis, the periodic one among them, into 2, 3 and 4.
  dim=$(grep -c . <<<"$(grep -o '^cells = \[[^]]*' "$case_file" | tr ',' '\n')")
  if ((${#runs[@]})); then
    :
  elif [[ $dim == 2 ]]; then
    runs=("1" "2" "4" "2 [2,1]" "2 [1,2]" "3 [3,1]" "4 [4,1]")
  else
    runs=("1" "2" "4" "2 [2,1,1]" "3 [1,1,3]" "4 [1,2,2]" "4 [4,1,1]")
  fi
  for r in "${runs[@]}"; do
    read -r n blocks <<<"$r"
    extra=()
    [[ -n ${blocks:-} ]] && extra=(--set "run.ranks=$blocks")
    out="$work/n$n${blocks:+-${blocks//[^0-9]/}}"
    on "$n" run "$case_file" --quiet "${sets[@]}" "${extra[@]}" --output "$out" ||
      fail "$n ranks ${blocks:-}"
    python3 "$here/same.py" "$work/one" "$out" || fail "$n ranks ${blocks:-} differ from 1 rank"
    if ((n > 1)); then
      grep -q "\"ranks\": {\"count\": $n" "$out/summary.json" ||
        fail "$out/summary.json has no per-rank times"
      grep -q '"exchange_share_of_stepping"' "$out/summary.json" || fail "no exchange share"
      grep -Eq '"halo": "(MPI through host memory|NCCL [0-9.]+ \(device to device\))"' "$out/summary.json" ||
        fail "summary.json does not say how the halo travelled"
    fi
  done
  ;;
restart)
  case_file=$1
  shift
  steps=(10 20 30 40)
  if [[ ${1:-} == --steps ]]; then
    read -r -a steps <<<"$2"
    shift 2
  fi
  sets=("$@")
  read -r s1 s2 s3 s4 <<<"${steps[*]}"
  "$kflow" run "$case_file" --quiet "${sets[@]}" --set time.steps="$s4" --output "$work/ref" ||
    fail "reference"
  "$kflow" run "$case_file" --quiet "${sets[@]}" --set time.steps="$s1" --output "$work/a" ||
    fail "1 rank to $s1"
  on 2 run "$case_file" --quiet "${sets[@]}" --set time.steps="$s2" --output "$work/b" \
    --restart "$work/a/checkpoint.kfc" || fail "2 ranks from $s1 to $s2"
  "$kflow" run "$case_file" --quiet "${sets[@]}" --set time.steps="$s3" --output "$work/c" \
    --restart "$work/b/checkpoint.kfc" || fail "1 rank from $s2 to $s3"
  on 4 run "$case_file" --quiet "${sets[@]}" --set time.steps="$s4" --output "$work/d" \
    --restart "$work/c/checkpoint.kfc" || fail "4 ranks from $s3 to $s4"
  python3 "$here/same.py" "$work/ref" "$work/d" || fail "1 -> 2 -> 1 -> 4 ranks differ from 1 rank"
  ;;
order)
  # The exact-solution check on 3 ranks: error_max at the end, 32^2 -> 64^2.
  case_file=$1
  for n in 32 64; do
    on 3 run "$case_file" --quiet --set "grid.cells=[$n,$n]" --output "$work/o$n" ||
      fail "3 ranks, $n^2"
  done
  python3 - "$work/o32/summary.json" "$work/o64/summary.json" <<'PY' || fail "order"
import json, math, sys
e = [json.load(open(f))["diagnostics"]["error_max"] for f in sys.argv[1:]]
p = math.log2(e[0] / e[1])
print(f"error_max {e[0]:.3e} (32^2) -> {e[1]:.3e} (64^2) on 3 ranks: order {p:.3f}")
sys.exit(0 if 1.8 < p < 2.2 else 1)
PY
  ;;
interrupt)
  # SIGTERM to one rank: every rank stops after the same step, rank 0 writes
  # the last frame and checkpoint, DIR.interrupted; a 1-rank restart from
  # there ends with the uninterrupted run's bits.
  case_file=$1
  long=(--quiet --set 'grid.cells=[192,128]' --set time.steps=20000 --set output.every_steps=2000)
  "$kflow" run "$case_file" "${long[@]}" --output "$work/ref" || fail "reference"
  on 2 run "$case_file" "${long[@]}" --output "$work/x" &
  pid=$!
  for _ in $(seq 300); do
    [[ -f $work/x.running/frame_00001.pvti || -f $work/x.running/frame_00001.kff ]] && break
    sleep 0.1
  done
  # One rank of this run (not mpirun: Open MPI 6's prterun kills its ranks at
  # once on SIGTERM or SIGINT, measured); the ranks agree after every step.
  rank=
  for p in $(pgrep -x kflow); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- "--output $work/x" && rank=$p && break
  done
  [[ -n $rank ]] || fail "no rank of the run found"
  kill -TERM "$rank"
  wait $pid
  status=$?
  [[ $status != 0 ]] || fail "mpirun exited 0 after SIGTERM (the run ended before it?)"
  [[ -f $work/x.interrupted/checkpoint.kfc ]] || fail "no $work/x.interrupted/checkpoint.kfc (status $status)"
  "$kflow" run "$case_file" "${long[@]}" --output "$work/x" \
    --restart "$work/x.interrupted/checkpoint.kfc" || fail "restart on 1 rank"
  python3 "$here/same.py" "$work/ref" "$work/x" --last || fail "interrupted on 2 ranks + restart differs"
  ;;
refuse)
  cases=$1
  expect() {  # expect NAME RC REGEX -- COMMAND...: status, message, said once, no output left
    local name=$1 rc=$2 re=$3
    shift 4
    local out status
    out=$("$@" 2>&1)
    status=$?
    [[ $status == "$rc" ]] || fail "$name: exit status $status, expected $rc: $out"
    grep -Eq -- "$re" <<<"$out" || fail "$name: the message does not match '$re': $out"
    [[ $(grep -c "kflow: error" <<<"$out") == 1 ]] || fail "$name: not said exactly once: $out"
    [[ ! -e $work/x && ! -e $work/x.running && ! -e $work/x.failed ]] ||
      fail "$name: output was written"
    echo "ok: $name"
  }
  for c in mac2d/cavity-re100.toml vorticity2d/cavity-re100.toml split3d/duct.toml; do
    [[ -f $cases/$c ]] || fail "no case $cases/$c"
    expect "$c on 2 ranks" 1 "model [a-z0-9]+ runs on one rank only.*2 ranks.*Models that run on several ranks: diffusion, lbm" \
      -- on 2 run "$cases/$c" --quiet --output "$work/x"
  done
  d=$cases/diffusion/sine-2d.toml
  expect "run.ranks product" 1 "ranks-3x1.toml:7: key 'run.ranks': \[3, 1\] is 3 blocks, but this run has 2 ranks" \
    -- on 2 run "$here/cases/ranks-3x1.toml" --quiet --output "$work/x"
  expect "run.ranks product (--set)" 1 "--set run.ranks=\[3,1\]: key 'run.ranks': \[3, 1\] is 3 blocks, but this run has 2 ranks" \
    -- on 2 run "$d" --quiet --set 'run.ranks=[3,1]' --output "$work/x"
  expect "run.ranks without mpirun" 1 "run.ranks.*\[1, 2\] is 2 blocks, but this run has 1 rank" \
    -- "$kflow" run "$d" --quiet --set 'run.ranks=[1,2]' --output "$work/x"
  expect "run.ranks length" 1 "run.ranks" \
    -- on 2 run "$d" --quiet --set 'run.ranks=[2,1,1]' --output "$work/x"
  expect "run.ranks beyond the cells" 1 "run.ranks.*8 blocks along axis 0, which has 4 cells" \
    -- on 2 run "$d" --quiet --set 'grid.cells=[4,4]' --set 'run.ranks=[8,1]' --output "$work/x"
  expect "no blocks fit the cells" 1 "5 ranks cannot split a grid of 2x2 cells into blocks of at least one cell each" \
    -- on 5 run "$d" --quiet --set 'grid.cells=[2,2]' --output "$work/x"
  expect "bench on 2 ranks" 1 "kflow bench runs on one rank" -- on 2 bench diffusion
  expect "bench lbm blocks" 1 "blocks=3,1,1: expected three block counts px,py,pz whose product is the 2 ranks" \
    -- on 2 bench lbm --set sizes=12 --set steps=1 --set blocks=3,1,1
  expect "KFLOW_HALO" 1 "KFLOW_HALO='bogus': expected auto, nccl or host" \
    -- env KFLOW_HALO=bogus "$mpiexec" --oversubscribe -n 2 "$kflow" run "$d" --quiet --output "$work/x"
  expect "KFLOW_HALO=nccl on CPUs" 1 "KFLOW_HALO=nccl, but the halo cannot go device to device with NCCL" \
    -- env KFLOW_HALO=nccl "$mpiexec" --oversubscribe -n 2 "$kflow" run "$d" --quiet --backend openmp --output "$work/x"
  ;;
bench)
  # Both schemes on 2 ranks: the aggregate MLUPS, each rank's and the
  # exchange time per step, reported once (by rank 0).
  out=$(on 2 bench lbm --set sizes=12 --set steps=4 --repeat 2 2>&1) || fail "bench on 2 ranks: $out"
  [[ $(grep -c "^bench lbm:" <<<"$out") == 1 ]] || fail "the report is not printed once: $out"
  for scheme in in_place two_grid; do
    grep -Eq "cavity 12\^3 $scheme .*\[[0-9.e+]+ MLUPS on 2 ranks \(blocks 1x1x2\), per rank [0-9.e+]+ to [0-9.e+]+ MLUPS, halo exchange up to [0-9.e+-]+ ms per step \((MPI through host memory|NCCL [0-9.]+ \(device to device\))\), [0-9.e+]+ B/cell\]" <<<"$out" ||
      fail "no $scheme row with per-rank MLUPS and the exchange time: $out"
  done
  # Chosen blocks, weak scaling: a 12^3 block per rank.
  out=$(on 2 bench lbm --set sizes=12 --set steps=2 --set streaming=in_place --set blocks=1,2,1 \
    --set scaling=weak 2>&1) || fail "bench on 2 ranks in blocks 1x2x1: $out"
  grep -q "cavity 12x24x12 in_place .*MLUPS on 2 ranks (blocks 1x2x1)" <<<"$out" ||
    fail "blocks=1,2,1 scaling=weak not used: $out"
  echo "$out"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo "ok"
