#!/usr/bin/env bash
# usage: lock.sh KFLOW WORKDIR CASE
# One run per output directory, with a lock that cannot be stale or stolen
# (docs/safety.md).  Reproducers: a user's own DIR.lock (a file, a
# directory, a link) was deleted; a lock naming a live process that is not
# kflow (PID 1) blocked for ever; deleting a live run's lock let a second run
# take its directory.
source "$(dirname "$0")/common.sh"

# A user's file, directory or link named DIR.lock: refused (by check too), kept.
echo "my lock notes" > u.lock
refused "u.lock exists and is not a kflow lock \(a file of other contents\)" \
  run "$case" "${small[@]}" --output u
refused "u.lock exists and is not a kflow lock" check "$case" --output u
[[ "$(cat u.lock)" == "my lock notes" && ! -e u && ! -e u.running ]] || fail "u.lock"
mkdir v.lock && echo x > v.lock/f
refused "v.lock exists and is not a kflow lock \(a directory\)" run "$case" "${small[@]}" --output v
[[ -f v.lock/f ]] || fail "v.lock"
ln -s u.lock l.lock
refused "l.lock exists and is not a kflow lock \(a symbolic link\)" run "$case" "${small[@]}" --output l
[[ -L l.lock && "$(cat u.lock)" == "my lock notes" ]] || fail "l.lock"

# A lock file (an older kflow's, a process id alone) naming a live process
# that is not kflow: nobody holds it, so it is taken over at once.
echo 1 > p.lock
timeout 60 "$kflow" run "$case" "${small[@]}" --output p || fail "the run with p.lock naming PID 1"
[[ -f p/summary.json && ! -e p.lock ]] || fail "p"

# A live run's lock deleted: a second run is still refused, and the first
# keeps all its output.
"$kflow" run "$case" --set 'grid.cells=[64,64]' --set time.end=100 --set output.every=0.01 \
  --set output.lines=[] --output q > q.log 2>&1 &
pid=$!
for _ in $(seq 400); do [[ -f q.running/frame_00003.vti ]] && break; sleep 0.02; done
grep -q "^process $pid$" q.lock || fail "q.lock does not name the run's process"
rm q.lock
refused "q.running is in use by another kflow process" run "$case" "${small[@]}" --output q
kill -INT $pid
rc=0; wait $pid || rc=$?
cat q.log
[[ $rc -eq 130 ]] || fail "the first run: exit status $rc"
frames=$(grep -a -m1 '^next_frame ' q.interrupted/checkpoint.kfc | cut -d' ' -f2)
(( frames >= 4 )) || fail "q.interrupted holds $frames frames"
for ((f = 0; f < frames; ++f)); do
  [[ -f q.interrupted/frame_$(printf %05d $f).vti ]] || fail "q lost frame $f"
done
[[ ! -e q.running && ! -e q.lock && ! -e q ]] || fail "q after the run"
ls ./*.tmp-* 2> /dev/null && fail "a temporary lock file was left"
echo "lock ok"
