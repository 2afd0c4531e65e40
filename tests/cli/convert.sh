#!/usr/bin/env bash
# usage: convert.sh KFLOW WORKDIR CASE
# kflow convert replaces nothing until every frame has converted, never
# deletes a user's file and leaves a live run alone (docs/safety.md).
# Reproducers: a truncated .kff among the frames deleted the .vti files
# already there; convert of a live run's DIR.running left the finished
# run's run.pvd listing part of its frames.
source "$(dirname "$0")/common.sh"
kff=(--quiet --set 'grid.cells=[16,16]' --set time.end=0.05 --set output.every=0.01
     --set output.lines=[] --set output.format=\"kff\")
if ! "$kflow" info | grep -q "VTK output: yes"; then echo "no VTK in this build: skipped"; exit 0; fi

# Converted files are the run's: a rerun into the directory replaces them.
"$kflow" run "$case" "${kff[@]}" --output c || fail "the kff run"
"$kflow" convert c || fail "convert c"
grep -qx frame_00003.vti c/.kflow-run && grep -qx run.pvd c/.kflow-run || fail "c's marker"
"$kflow" run "$case" "${kff[@]}" --output c || fail "a rerun into a converted output"
"$kflow" convert c || fail "convert c again"
# A damaged frame: refused, the .vti files and run.pvd already there untouched.
cp c/frame_00001.vti one.vti && cp c/run.pvd one.pvd
truncate -s 200 c/frame_00003.kff
refused "frame_00003.kff" convert c
cmp c/frame_00001.vti one.vti && cmp c/run.pvd one.pvd || fail "a failed convert changed the .vti"
[[ $(ls c/*.vti | wc -l) -eq 6 ]] || fail "a failed convert removed .vti files"
ls c/*.convert-* 2> /dev/null && fail "a temporary .vti was left"

# A .vti that kflow did not write: refused, kept.
"$kflow" run "$case" "${kff[@]}" --output e || fail "the run into e"
echo mine > e/frame_00002.vti
refused "frame_00002.vti, which kflow did not write" convert e
[[ "$(cat e/frame_00002.vti)" == mine ]] || fail "e/frame_00002.vti"

# A live run's directory: refused; the run's output is whole.
"$kflow" run "$case" --set 'grid.cells=[128,128]' --set time.end=1e5 --set output.every=0.5 \
  --set output.lines=[] --set output.format=\"kff\" --output d > d.log 2>&1 &
pid=$!
for _ in $(seq 400); do [[ -f d.running/checkpoint.kfc ]] && break; sleep 0.02; done
refused "d.running is in use by a running kflow" convert d.running
kill -INT $pid; wait $pid
[[ -f d.interrupted/checkpoint.kfc && ! -e d.interrupted/run.pvd ]] || fail "d.interrupted"
"$kflow" convert d.interrupted || fail "convert d.interrupted"
kffs=$(ls d.interrupted/*.kff | wc -l)
[[ $(grep -c "<DataSet" d.interrupted/run.pvd) -eq $kffs ]] || fail "run.pvd lists part of the frames"
echo "convert ok"
