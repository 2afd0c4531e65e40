#!/usr/bin/env bash
# usage: stop.sh KFLOW WORKDIR CASE
# Signals during a long step: a second Ctrl-C stops the step's pressure solve
# at once (not after its iterations) and keeps the last complete checkpoint,
# which continues the run; one signal delivered twice is one; SIGHUP ends a run
# like SIGTERM (no stale .running).
set -uo pipefail
kflow=$1 w=$2 case=$3
rm -rf "$w" && mkdir -p "$w" && cd "$w" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
wait_for() { for _ in $(seq 400); do [[ -e $1 ]] && return 0; sleep 0.05; done; fail "no $1"; }

# A step that would take hours: the pressure solve to a tolerance it never reaches.
slow=(--set 'grid.cells=[64,64]' --set solver.pressure.tolerance=1e-300
      --set solver.pressure.max_iterations=1000000000 --set output.lines=[])
"$kflow" run "$case" "${slow[@]}" --output slow > slow.log 2>&1 &
pid=$!
wait_for slow.running/checkpoint.kfc
sleep 0.5
kill -INT $pid; sleep 1; kill -INT $pid
start=$SECONDS
rc=0; wait $pid || rc=$?
cat slow.log
[[ $rc -eq 130 ]] || fail "exit status $rc, expected 130"
(( SECONDS - start < 20 )) || fail "the second Ctrl-C took $((SECONDS - start)) s"
grep -q "stopping after this step" slow.log || fail "no word after the first signal"
grep -q "stopped during step 1; the checkpoint in slow.interrupted is the last complete one, t = 0" \
  slow.log || fail "message"
[[ -f slow.interrupted/checkpoint.kfc && ! -e slow.running && ! -e slow.lock ]] || fail "output"
# The kept checkpoint continues the run (a short step this time).
"$kflow" run "$case" --quiet --set 'grid.cells=[64,64]' --set output.lines=[] \
  --set time.steps=3 --output slow --restart slow.interrupted/checkpoint.kfc || fail "restart"
grep -q '"steps": 3' slow/summary.json || fail "steps after the restart"
# (the checkpoint is at step 0: its frame and log row are carried over once)
[[ $(grep -c "<DataSet" slow/run.pvd) -eq 2 ]] || fail "frame 0 repeated after the restart"
[[ -z $(tail -n +2 slow/log.csv | cut -d, -f1 | sort | uniq -d) ]] || fail "a log row repeated"

# One request delivered twice (`timeout` signals the process, then its process
# group): the step finishes with a last checkpoint.  Steps of about 3 s (both
# signals land in the first) in device-dt batches of up to 1000 (a log row
# every 1000 steps): the signal ends the batch after its step, not at its end.
"$kflow" run "$case" --set 'grid.cells=[64,64]' --set solver.pressure.tolerance=1e-300 \
  --set solver.pressure.max_iterations=200000 --set time.end=1e9 --set output.every=1e9 \
  --set output.log_every=1000 --set output.lines=[] --output twice > twice.log 2>&1 &
pid=$!
wait_for twice.running/checkpoint.kfc
sleep 0.5
kill -TERM $pid; sleep 0.05; kill -TERM $pid || fail "the run ended before the second signal"
start=$SECONDS
rc=0; wait $pid || rc=$?
cat twice.log
[[ $rc -eq 130 ]] || fail "signal twice: exit status $rc, expected 130"
! grep -q "stopped during step" twice.log || fail "one request taken as two"
step=$(grep -a -m1 '^step ' twice.interrupted/checkpoint.kfc | cut -d' ' -f2)
(( step >= 1 && step < 1000 )) || fail "signal twice: checkpoint at step $step, expected 1-999"
(( SECONDS - start < 60 )) || fail "signal twice: stopped after $((SECONDS - start)) s"

# SIGHUP (a closed terminal) ends the run like SIGTERM.
"$kflow" run "$case" --set 'grid.cells=[64,64]' --set time.end=1e5 --set output.lines=[] \
  --output hup > hup.log 2>&1 &
pid=$!
wait_for hup.running/checkpoint.kfc
kill -HUP $pid
rc=0; wait $pid || rc=$?
cat hup.log
[[ $rc -eq 130 ]] || fail "SIGHUP: exit status $rc"
[[ -f hup.interrupted/checkpoint.kfc && ! -e hup.running && ! -e hup.lock ]] || fail "SIGHUP output"
grep -q '"status": "interrupted"' hup.interrupted/summary.json || fail "SIGHUP summary"
echo "stop ok"
