#!/usr/bin/env bash
# usage: pipes.sh KFLOW WORKDIR CASE
# A run whose stdout or stderr loses its reader ends like an interrupted one:
# after its step, with a checkpoint, in DIR.interrupted (docs/safety.md).
# Reproducers: `kflow run ... | head` (killed by SIGPIPE, rc 141) and a
# hang-up of `kflow run ... | tee log` (the SIGHUP handler's message to the
# closed pipe killed it) left only DIR.running and DIR.lock.
set -uo pipefail
kflow=$1 w=$2 case=$3
rm -rf "$w" && mkdir -p "$w" && cd "$w" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
long=(--set 'grid.cells=[64,64]' --set time.end=1e5 --set output.every=0.5 --set output.lines=[])
check() {  # check DIR RC: the run ended interrupted, with its checkpoint
  [[ $2 -eq 130 ]] || fail "$1: exit status $2, expected 130"
  [[ -f $1.interrupted/checkpoint.kfc && ! -e $1.running && ! -e $1.lock ]] ||
    fail "$1: no interrupted output, or a stale $1.running or $1.lock"
  grep -q '"status": "interrupted"' "$1.interrupted/summary.json" || fail "$1: summary"
}

# | head -1: head reads the first line and exits.
start=$SECONDS
{ "$kflow" run "$case" "${long[@]}" --output h 2>&1; echo $? > h.rc; } | head -1
(( SECONDS - start < 60 )) || fail "the run went on after head had gone"
check h "$(cat h.rc)"

# | tee, then a hang-up: tee dies first, then kflow gets SIGHUP and its
# message meets the closed pipe.
{ "$kflow" run "$case" "${long[@]}" --output t 2>&1; echo $? > t.rc; } | tee t.log > /dev/null &
tee_pid=$!  # (the last command of the pipeline)
for _ in $(seq 400); do [[ -f t.running/checkpoint.kfc ]] && break; sleep 0.02; done
pid=$(sed -n 's/^process //p' t.lock)
[[ -n $pid ]] || fail "no process in t.lock"
kill -9 "$tee_pid"
kill -HUP "$pid"
for _ in $(seq 600); do [[ -f t.rc ]] && break; sleep 0.05; done
check t "$(cat t.rc)"
echo "pipes ok"
