#!/usr/bin/env python3
"""Summarises a DFG cylinder run from its log.csv (Schaefer & Turek 1996).

  tools/dfg-summary.py RUN_DIR [--periodic T0] [--length D] [--velocity U]
                       [--drag COLUMN] [--lift COLUMN]

Steady cases (2D-1, 3D-1Z): the last row's c_d, c_l and delta_p, and how
much they moved over the last tenth of the run (a check that it is steady).
--periodic T0 (2D-2): the Strouhal number D f / U from the upward zero
crossings of c_l after T0; the maxima of c_d and c_l over the last two
periods (the periodic state the benchmark asks for), and the range of each
period's maxima after T0 (how periodic the run is: a run still settling, or
an outflow's reflections, spread them).
--drag, --lift: the log's columns to read (default c_d and c_l, as lbm and
split3d log them; mac2d logs drag_coefficient and lift_coefficient over the
walls, drag_balance and lift_balance from its momentum balance).
Plain Python, no packages: it runs on a GPU node as it is.
"""
import csv
import sys


def read(run_dir, columns):
    with open(run_dir.rstrip("/") + "/log.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"dfg-summary: {run_dir}/log.csv has no rows")
    for name in ("time",) + columns:
        if name not in rows[0]:
            sys.exit(f"dfg-summary: {run_dir}/log.csv has no column '{name}'")
    return rows


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    run_dir, opts = argv[0], argv[1:]
    t0, length, velocity, drag, lift = None, 0.1, 1.0, "c_d", "c_l"
    while opts:
        key = opts.pop(0)
        if not opts:
            sys.exit(f"dfg-summary: {key} needs a value")
        if key in ("--drag", "--lift"):
            drag, lift = (opts.pop(0), lift) if key == "--drag" else (drag, opts.pop(0))
            continue
        value = float(opts.pop(0))
        if key == "--periodic":
            t0 = value
        elif key == "--length":
            length = value
        elif key == "--velocity":
            velocity = value
        else:
            sys.exit(f"dfg-summary: unknown option {key}")
    rows = read(run_dir, (drag, lift))
    t = [float(r["time"]) for r in rows]
    cd = [float(r[drag]) for r in rows]
    cl = [float(r[lift]) for r in rows]
    if t0 is None:
        last = rows[-1]
        tail = [k for k in range(len(t)) if t[k] >= 0.9 * t[-1]]
        drift = max(abs(cd[k] - cd[-1]) for k in tail) if tail else float("nan")
        dp = last.get("delta_p", "")
        print(f"{run_dir}: t = {t[-1]:g}  c_d = {cd[-1]:.6g}  c_l = {cl[-1]:.6g}"
              + (f"  delta_p = {float(dp):.6g}" if dp else "")
              + f"  (c_d moved {drift:.2g} over the last tenth)")
        return 0
    up = []
    for k in range(1, len(t)):
        if t[k - 1] >= t0 and cl[k - 1] < 0 <= cl[k]:
            up.append(t[k - 1] + (t[k] - t[k - 1]) * -cl[k - 1] / (cl[k] - cl[k - 1]))
    if len(up) < 3:
        sys.exit(f"dfg-summary: {run_dir}: fewer than 3 periods of c_l after t = {t0:g}")
    period = (up[-1] - up[0]) / (len(up) - 1)
    last = [k for k in range(len(t)) if up[-3] <= t[k] <= up[-1]]
    per_d, per_l = [], []
    for a, b in zip(up, up[1:]):
        ks = [k for k in range(len(t)) if a <= t[k] <= b]
        per_d.append(max(cd[k] for k in ks))
        per_l.append(max(cl[k] for k in ks))
    print(f"{run_dir}: St = {length / (period * velocity):.5g} ({len(up) - 1} periods after t = {t0:g})"
          f"  c_d,max = {max(cd[k] for k in last):.5g}  c_l,max = {max(cl[k] for k in last):.5g}"
          f" (the last two periods; each period's after t = {t0:g}:"
          f" c_d,max {min(per_d):.5g}-{max(per_d):.5g}, c_l,max {min(per_l):.5g}-{max(per_l):.5g})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
