#!/usr/bin/env bash
# usage: safety.sh KFLOW WORKDIR CASE
# What kflow promises about output directories (docs/safety.md), each a
# reproducer of a way a user's data was lost: a file, a user's directory or
# the case's own directory given as the output; ., .., / and ''; a run
# killed without a word (SIGKILL) and restarted from DIR.running; two runs
# into one directory; a full disk while writing a frame.
source "$(dirname "$0")/common.sh"

# A file given as the output stays a file.
echo precious > a
refused "a exists and is not a directory" run "$case" "${small[@]}" --output a
[[ "$(cat a)" == precious ]] || fail "the file a changed"
# A directory of the user's files: refused, by check too, before any work.
mkdir userdata && echo keep > userdata/notes.txt
refused "userdata holds files kflow did not write" run "$case" "${small[@]}" --output userdata
refused "userdata holds files kflow did not write" check "$case" --output userdata
[[ "$(cat userdata/notes.txt)" == keep ]] || fail "userdata/notes.txt changed"
# The case's own directory, given as the output, or as output.directory.
mkdir mine && cp "$case" mine/mycase.toml
refused "mine holds files" run mine/mycase.toml "${small[@]}" --output mine
refused "output.directory" run mine/mycase.toml "${small[@]}" --set output.directory=\"mine\"
[[ -f mine/mycase.toml ]] || fail "the case file was deleted"
# A user's directory in place of DIR.failed (replaced when a run fails).
mkdir out2.failed && echo keep > out2.failed/x
refused "out2.failed holds files" run "$case" "${small[@]}" --output out2
# ., .., / and '' are no output directories.
for d in . .. /; do refused "names no directory of its own" run "$case" "${small[@]}" --output "$d"; done
refused "--output expects a path" run "$case" "${small[@]}" --output ''
# A trailing slash names the directory itself; an earlier run's output (and an
# empty directory) is replaced.
"$kflow" run "$case" "${small[@]}" --output out/t/ || fail "run into out/t/"
[[ -f out/t/summary.json && -f out/t/.kflow-run && ! -e out/t/.running ]] || fail "out/t/"
"$kflow" run "$case" "${small[@]}" --output out/t || fail "replacing an earlier output"
mkdir empty && "$kflow" run "$case" "${small[@]}" --output empty || fail "an empty directory"

# Killed without a word (SIGKILL): the restart from DIR.running's checkpoint
# carries over every frame and log row up to it.
long=(--set 'grid.cells=[64,64]' --set time.end=1e5 --set output.every=0.5 --set output.lines=[])
"$kflow" run "$case" "${long[@]}" --output k > k.log 2>&1 &
pid=$!
for _ in $(seq 400); do [[ -f k.running/frame_00003.vti || -f k.running/frame_00003.kff ]] && break; sleep 0.05; done
sleep 0.2
# Two runs into one directory: the second is refused at once, naming the first.
refused "being written by another kflow run \(process $pid" run "$case" "${small[@]}" --output k
kill -9 $pid; wait $pid 2>/dev/null
[[ -f k.running/checkpoint.kfc && -f k.lock ]] || fail "no checkpoint or lock in k.running"
step=$(grep -a -m1 '^step ' k.running/checkpoint.kfc | cut -d' ' -f2)
frames=$(grep -a -m1 '^next_frame ' k.running/checkpoint.kfc | cut -d' ' -f2)
echo "killed after step $step, $frames frames"
"$kflow" run "$case" --quiet "${long[@]}" --set time.steps=$((step + 5)) --output k \
  --restart k.running/checkpoint.kfc || fail "restart from k.running"
[[ ! -e k.running && ! -e k.lock && -f k/summary.json ]] || fail "after the restart"
for ((f = 0; f < frames; ++f)); do
  ls k/frame_$(printf %05d $f).* > /dev/null 2>&1 || fail "frame $f lost in the restart"
done
head -2 k/log.csv | tail -1 | grep -q '^0,' || fail "the log rows before the checkpoint were lost"
grep -q "\"steps\": $((step + 5))" k/summary.json || fail "steps"
ls -d k.running.restart-* 2> /dev/null && fail "the moved-aside directory was left"

# A full disk (here a file-size limit) while writing: every file is complete
# or absent, the message names the last complete frame, and log.csv keeps
# its rows.
(ulimit -f 40; "$kflow" run "$case" --quiet --set 'grid.cells=[16,16]' --set time.end=2 \
   --set output.every=0.01 --output full > full.log 2>&1) && fail "the run into a full disk passed"
cat full.log
grep -Eq "disk full|could not write|failed" full.log || fail "no word of the failed write"
grep -Eq "its last complete frame and checkpoint: t = |no complete frame" full.log || fail "message"
[[ -d full.failed && ! -e full.running ]] || fail "full.failed"
ls full.failed/*.tmp-* > /dev/null 2>&1 && fail "a partial file was left"
[[ $(wc -l < full.failed/log.csv) -ge 2 ]] || fail "log.csv lost its rows"
for f in full.failed/*.csv; do  # complete rows only: every row has the header's columns
  awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$f" || fail "$f has a partial row"
done
echo "safety ok"
