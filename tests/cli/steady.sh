#!/usr/bin/env bash
# usage: steady.sh KFLOW WORKDIR STEADY_CASE SINE_CASE
# time.steady against exact solutions (docs/cases.md, "[time]"):
# - heat conduction settling to u = 1 - x stops when the residual falls to its
#   tolerance: at the time the slowest transient predicts, with u within
#   tolerance / lambda of the exact steady state;
# - a decaying sine mode, exp(-lambda t) sin sin, has the constant residual
#   (exp(lambda every) - 1) / every: it runs to time.end with a warning.
set -uo pipefail
kflow=$1 w=$2 steady=$3 sine=$4
rm -rf "$w" && mkdir -p "$w" && cd "$w" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

"$kflow" run "$steady" --output conduction > conduction.log 2>&1 || { cat conduction.log; fail "run"; }
cat conduction.log
grep -q "kflow: steady: the change of u fell to .* (tolerance 0.0001) at t = " conduction.log ||
  fail "no steady message"
python3 - conduction <<'PY' || fail "conduction: see above"
import csv, json, math, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
st = s["steady"]
tol, every, lam = 1e-4, 0.02, math.pi ** 2  # kappa = 1, length 1
assert st["converged"] is True and st["residual"] <= tol, st
# The slowest transient (2/pi) exp(-lam t) sin(pi x) against the largest
# interior value 1 - h/2 (h = 1/32): its residual reaches tol at
t_pred = math.log((2 / math.pi) * (math.exp(lam * every) - 1) / (every * tol * (1 - 1 / 64))) / lam
t = st["time"]
print("stopped at t = %.5f, predicted %.5f (checks every %g)" % (t, t_pred, every))
assert t_pred - 0.005 <= t <= t_pred + every + 0.005, (t, t_pred)
# u against 1 - x along y = 0.5: what is left of the transient is at most
# tol / lam (its residual (exp(lam every) - 1) / every > lam) times max |u| <= 1.
rows = list(csv.DictReader(l for l in open(d + "/line_u_mid.csv") if not l.startswith("#")))
rows = [r for r in rows if r["time"] == rows[-1]["time"]]  # the last frame's
assert abs(float(rows[-1]["time"]) - t) < 1e-9, "the stop wrote no last frame"
err = max(abs(float(r["u"]) - (1 - float(r["x"]))) for r in rows)
print("max |u - (1 - x)| = %.3g, bound tol / lambda = %.3g" % (err, tol / lam))
assert err <= tol / lam, err
# The residual history is in the log, falling to the last value.
log = [r for r in csv.DictReader(l for l in open(d + "/log.csv") if not l.startswith("#"))]
res = [float(r["steady_residual"]) for r in log if r["steady_residual"] != "nan"]
assert len(res) >= 5 and res[-1] <= tol < res[0], res
PY

# The decaying sine mode never settles (its relative change is constant).
"$kflow" run "$sine" --output sine --set time.end=1.0 --set 'time.steady={tolerance=0.01}' \
  --set output.lines=[] > sine.log 2>&1 || { cat sine.log; fail "sine run"; }
cat sine.log
grep -q "kflow: warning: not steady by the end (t = 1): the change of u is .* per unit time, time.steady.tolerance 0.01" \
  sine.log || fail "no warning for a run that did not settle"
python3 - sine <<'PY' || fail "sine: see above"
import csv, json, math, sys
d = sys.argv[1]
st = json.load(open(d + "/summary.json"))["steady"]
assert st["converged"] is False and st["field"] == "u", st
lam, every = 2 * math.pi ** 2 * 0.01, 1.0 / 100  # kappa 0.01; every = time.end / 100
exact = (math.exp(lam * every) - 1) / every
print("residual %.6g, exact %.6g" % (st["residual"], exact))
assert abs(st["residual"] / exact - 1) < 0.005, st
PY
# A restart that adds time.steady adds its column to log.csv: one layout,
# the rows before the restart empty there.
grep -v '^steady = ' "$steady" > plain.toml
"$kflow" run plain.toml --set time.end=0.5 --output restarted --quiet || fail "plain run"
"$kflow" run plain.toml --set time.end=5.0 --set 'time.steady={tolerance=1e-4, every=0.02}' \
  --output restarted --restart restarted/checkpoint.kfc > restart.log 2>&1 ||
  { cat restart.log; fail "restart"; }
cat restart.log
grep -q "note: log.csv: column steady_residual added by the restart" restart.log ||
  fail "no note of the added column"
python3 - restarted <<'PY' || fail "restarted log: see above"
import csv, sys
rows = list(csv.reader(open(sys.argv[1] + "/log.csv")))
head, rows = rows[0], rows[1:]
assert head[-1] == "steady_residual", head
assert all(len(r) == len(head) for r in rows), "rows of another width"
before = [r for r in rows if float(r[1]) <= 0.5]
after = [r for r in rows if float(r[1]) > 0.5]
assert before and after and all(r[-1] == "" for r in before), before[-1]
assert float(after[-1][-1]) <= 1e-4, after[-1]
print("restarted log: %d rows before the restart, %d after, one layout" % (len(before), len(after)))
PY
echo "steady: ok"
