#!/usr/bin/env bash
# usage: restarts.sh KFLOW WORKDIR CASE CAVITY EVERY_STEP
# A stop at any moment and its restart never duplicate a frame or a log row,
# and a restart names what it cannot carry over (docs/safety.md).
# Reproducers: a signal while a frame was written repeated that frame in
# run.pvd and a row in log.csv (and the restart carried them: 42 frames for
# 41); a SIGTERM during a step repeated its log row; a restart from a
# checkpoint at step 0 (SIGKILL before frame 1) repeated frame 0; a damaged
# log.csv row stopped the restart with "stod"; a frame deleted by hand went
# unmentioned.
set -uo pipefail
kflow=$1 w=$2 case=$3 cavity=$4 every_step=$5
rm -rf "$w" && mkdir -p "$w" && cd "$w" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
wait_for() { for _ in $(seq 600); do [[ -e $1 ]] && return 0; sleep 0.02; done; fail "no $1"; }
# stop_run DIR DELAY CMD...: CMD (a run into DIR, its output in DIR.log) in the
# background, SIGTERM DELAY seconds after its first checkpoint; exit status 130.
stop_run() {
  local d=$1 delay=$2 rc=0
  shift 2
  "$@" > "$d.log" 2>&1 &
  local pid=$!
  wait_for "$d.running/checkpoint.kfc"
  sleep "$delay"
  kill -TERM $pid
  wait $pid || rc=$?
  [[ $rc -eq 130 ]] || { cat "$d.log"; fail "$d: exit status $rc after SIGTERM"; }
}
# unique DIR: no time twice in run.pvd, no step twice in log.csv
unique() {
  local d=$1
  if [[ -f $d/run.pvd ]]; then
    local dup
    dup=$(grep -o 'timestep="[^"]*"' "$d/run.pvd" | sort | uniq -d)
    [[ -z $dup ]] || fail "$d/run.pvd lists $dup twice"
  fi
  dup=$(tail -n +2 "$d/log.csv" | cut -d, -f1 | sort | uniq -d)
  [[ -z $dup ]] || fail "$d/log.csv has step $dup twice"
}

# A signal while frames are written (a frame every step, most of the time
# spent writing them), at several moments: the interrupted output and its
# restart hold each frame and row once, as many as a run without a stop.
for delay in 0.4 0.7 1.0 1.3; do
  rm -rf f f.*
  stop_run f $delay "$kflow" run "$every_step" --output f
  unique f.interrupted
  step=$(grep -a -m1 '^step ' f.interrupted/checkpoint.kfc | cut -d' ' -f2)
  [[ $(grep -c "<DataSet" f.interrupted/run.pvd) -eq $((step + 1)) ]] || fail "frames at step $step"
  # The printed command continues the run (with a step limit added here).
  cont=$(grep -o "continue with: .*" f.log | sed 's/^continue with: //')
  [[ -n $cont ]] || fail "no continue command"
  eval "${cont/#kflow/\"\$kflow\"} --quiet --set time.steps=$((step + 3))" || fail "the restart"
  unique f
  [[ $(grep -c "<DataSet" f/run.pvd) -eq $((step + 4)) ]] || fail "frames after the restart"
  [[ $(tail -n +2 f/log.csv | wc -l) -eq $((step + 4)) ]] || fail "log rows after the restart"
  echo "SIGTERM after ${delay}s: step $step, frames and rows once each"
done

# SIGTERM between two frames, once and twice, each restart to the end: the
# stop's own frame, log row and line samples are not output times', so the
# output holds what a run without a stop holds, numbered alike (the stop's
# frame was kept and numbered on: 7 frames for 6, frame_00002 at t = 0.02).
sine=(--set 'grid.cells=[256,256]' --set time.end=5.0 --set output.every=1.0)
"$kflow" run "$case" --quiet "${sine[@]}" --output r0 || fail "r0"
times() { grep -o 'timestep="[^"]*" [^>]*file="[^"]*"' "$1/run.pvd"; }
for stops in 1 2; do
  rm -rf s s.*
  restart=()
  for _ in $(seq "$stops"); do
    stop_run s 0.3 "$kflow" run "$case" "${sine[@]}" --output s "${restart[@]}"
    restart=(--restart s.interrupted/checkpoint.kfc)
  done
  "$kflow" run "$case" --quiet "${sine[@]}" --output s "${restart[@]}" || fail "s: the last restart"
  unique s
  [[ "$(times s)" == "$(times r0)" ]] || { times s; fail "$stops stop(s): frames differ from r0's"; }
  for f in log.csv line_u_horizontal.csv; do
    [[ $(wc -l < s/$f) -eq $(wc -l < r0/$f) ]] ||
      fail "$stops stop(s): s/$f has $(wc -l < s/$f) lines, r0's $(wc -l < r0/$f)"
  done
  echo "$stops SIGTERM(s) between frames: the frames, log rows and line samples of a run without a stop"
done

# SIGKILL before frame 1: the restart from the checkpoint at step 0 repeats nothing.
"$kflow" run "$case" --set 'grid.cells=[64,64]' --set time.end=1e5 --set output.every=1e4 \
  --set output.lines=[] --output z > z.log 2>&1 &
pid=$!
wait_for z.running/checkpoint.kfc
kill -9 $pid; wait $pid 2> /dev/null
grep -aq '^step 0$' z.running/checkpoint.kfc || fail "z's checkpoint is not at step 0"
"$kflow" run "$case" --quiet --set 'grid.cells=[64,64]' --set time.end=1e5 --set output.every=1e4 \
  --set output.lines=[] --set time.steps=20 --output z --restart z.running/checkpoint.kfc ||
  fail "the restart from step 0"
unique z
[[ $(grep -c "<DataSet" z/run.pvd) -eq 2 ]] || fail "z: frames 0 and 20 expected"

# SIGTERM during a long step, a log row every step: the row of that step once.
stop_run m 0.3 "$kflow" run "$cavity" --set 'grid.cells=[64,64]' \
  --set solver.pressure.tolerance=1e-300 --set solver.pressure.max_iterations=100000 \
  --set output.log_every=1 --set output.lines=[] --set time.end=1e5 --set output.every=1e4 \
  --set time.device_dt=false --output m
unique m.interrupted

# A deleted frame and a damaged log row in the output restarted from.
"$kflow" run "$case" --quiet --set 'grid.cells=[16,16]' --set time.end=0.05 \
  --set output.every=0.01 --set output.lines=[] --output g || fail "g"
rm g/frame_00002.vti
"$kflow" run "$case" --set 'grid.cells=[16,16]' --set time.end=0.08 --set output.every=0.01 \
  --set output.lines=[] --output g --restart g/checkpoint.kfc > g.log 2>&1 || { cat g.log; fail "g restart"; }
cat g.log
grep -q "note: 1 frame before the checkpoint is missing from g (its run.pvd lists them): frame_00002.vti" \
  g.log || fail "no word of the missing frame"
grep -q frame_00002 g/run.pvd && fail "g/run.pvd lists the missing frame"
sed -i '3s/^[0-9]*,/x7,/' g/log.csv
"$kflow" run "$case" --set 'grid.cells=[16,16]' --set time.end=0.1 --set output.every=0.01 \
  --set output.lines=[] --output g --restart g/checkpoint.kfc > g2.log 2>&1 && fail "a damaged log ran"
cat g2.log
grep -q "g/log.csv:3: column 1 (step) is \"x7\"; expected a step number" g2.log ||
  fail "the damaged row is not named"
grep -q "internal error" g2.log && fail "an internal error"
[[ -f g/summary.json && ! -e g.running && ! -e g.lock ]] || fail "g after the refused restart"
echo "restarts ok"
