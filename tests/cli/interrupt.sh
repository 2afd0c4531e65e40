#!/usr/bin/env bash
# usage: interrupt.sh KFLOW OUTDIR CASE
set -euo pipefail
kflow=$1 out=$2 case=$3
rm -rf "$out" "$out".*
"$kflow" run "$case" --output "$out" --set time.end=1e5 --set output.every_steps=200 \
  --set output.every=\"x\" 2>/dev/null && { echo "a bad case ran"; exit 1; } || true
"$kflow" run "$case" --output "$out" --set time.end=1e5 --set 'output.fields=["u"]' \
  --set output.every=10 --set output.lines=[] >"$out.log" 2>&1 &
pid=$!
for _ in $(seq 200); do [[ -f "$out.running/checkpoint.kfc" ]] && break; sleep 0.05; done
sleep 0.3
kill -INT $pid
rc=0; wait $pid || rc=$?
cat "$out.log"
[[ $rc -eq 130 ]] || { echo "expected exit status 130, got $rc"; exit 1; }
grep -q "interrupted; continue with" "$out.log"
# The printed command reproduces the run: every --set, the output, the checkpoint.
cont=$(grep "continue with" "$out.log")
for part in "--set time.end=1e5" "--set 'output.fields=[\"u\"]'" "--set output.every=10" \
            "--set 'output.lines=[]'" "--output $out " "--restart $out.interrupted/checkpoint.kfc"; do
  [[ "$cont" == *"$part"* ]] || { echo "the printed command lacks: $part"; exit 1; }
done
[[ -f "$out.interrupted/checkpoint.kfc" && ! -e "$out.running" && ! -e "$out" ]]
grep -q '"status": "interrupted"' "$out.interrupted/summary.json"
step=$(grep -a -m1 '^step ' "$out.interrupted/checkpoint.kfc" | cut -d' ' -f2)
echo "interrupted at step $step"
"$kflow" run "$case" --quiet --output "$out" --restart "$out.interrupted/checkpoint.kfc" \
  --set time.end=1e5 --set time.steps=$((step + 10)) --set 'output.fields=["u"]' \
  --set output.every=10 --set output.lines=[] 2> "$out.restart.log"
cat "$out.restart.log"
# The checkpoint holds the case as run: the restart names the key it changes.
grep -q "note: the restart changes time.steps (not set in the run of $out.interrupted/checkpoint.kfc, $((step + 10)) now)" \
  "$out.restart.log" || { echo "no note of the changed key"; exit 1; }
grep -q "\"steps\": $((step + 10))" "$out/summary.json"
echo "restart ok"
