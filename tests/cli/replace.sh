#!/usr/bin/env bash
# usage: replace.sh KFLOW WORKDIR CASE
# A run deletes only what an earlier run wrote (docs/safety.md): the marker
# file .kflow-run lists the files of its run.  Reproducers of files lost on
# a rerun: a note added to an earlier output, a run directory nested in it,
# files added while the new run runs, a killed run's DIR.running holding a
# user's file, the output of a kflow whose marker had no list.
source "$(dirname "$0")/common.sh"

# The marker lists every file of the run.
"$kflow" run "$case" "${small[@]}" --output a || fail "the first run"
for f in a/* a/.kflow-run; do
  grep -qx -- "$(basename "$f")" a/.kflow-run || fail "$f is not listed in a/.kflow-run"
done
# A note added to the output: refused (by check too), kept.
echo mine > a/my-notes.txt
refused "a holds files kflow did not write \(my-notes.txt\)" run "$case" "${small[@]}" --output a
refused "a holds files kflow did not write \(my-notes.txt\)" check "$case" --output a
[[ "$(cat a/my-notes.txt)" == mine ]] || fail "a/my-notes.txt changed"
rm a/my-notes.txt
# A run directory nested in an earlier output: refused, kept.
"$kflow" run "$case" "${small[@]}" --output a/sub || fail "the nested run"
refused "a holds files kflow did not write \(sub/\)" run "$case" "${small[@]}" --output a
[[ -f a/sub/summary.json && -f a/sub/frame_00005.vti ]] || fail "the nested run lost files"
rm -r a/sub
"$kflow" run "$case" "${small[@]}" --output a || fail "replacing a"

# Files added to the earlier output while the new run runs: kept, in the new
# output, and named.
"$kflow" run "$case" --set 'grid.cells=[64,64]' --set time.end=6 --set output.every=0.5 \
  --set output.lines=[] --output a > late.log 2>&1 &
pid=$!
for _ in $(seq 400); do [[ -f a.running/checkpoint.kfc ]] && break; sleep 0.02; done
echo added > a/late-notes.txt
mkdir a/late-dir && echo x > a/late-dir/f
wait $pid || { cat late.log; fail "the run with late files"; }
cat late.log
[[ "$(cat a/late-notes.txt)" == added && -f a/late-dir/f ]] || fail "files added during the run were lost"
grep -q "note: kept late-dir/, late-notes.txt" late.log || fail "no note of the kept files"
[[ -f a/frame_00004.vti ]] || fail "the new output"
ls -d a.old-* 2> /dev/null && fail "a moved-aside directory was left"
rm -r a/late-dir a/late-notes.txt

# A killed run's staging directory with a user's file in it: refused, kept.
mkdir b.running && cp a/.kflow-run b.running/ && echo mine > b.running/notes.txt
refused "b.running holds files kflow did not write \(notes.txt\)" run "$case" "${small[@]}" --output b
[[ -f b.running/notes.txt ]] || fail "b.running/notes.txt was deleted"

# An earlier kflow's output (a marker without a list): kflow's file names go,
# anything else is refused.
mkdir old && echo "written by kflow run; kflow may replace this directory" > old/.kflow-run
touch old/frame_00000.vti old/log.csv old/summary.json old/run.pvd
echo mine > old/analysis.py
refused "old holds files kflow did not write \(analysis.py\)" run "$case" "${small[@]}" --output old
mv old/analysis.py .
"$kflow" run "$case" "${small[@]}" --output old || fail "replacing an older kflow's output"
[[ -f old/frame_00005.vti ]] || fail "old"
echo "replace ok"
