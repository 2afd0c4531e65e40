#!/usr/bin/env python3
"""Plot the line samples of a kflow run as PNG files.

usage: tools/plot OUTPUT_DIR [--time T] [--out DIR]

Reads OUTPUT_DIR/summary.json for the run's lines, takes each line's samples
at the last output time (or the one nearest to --time), and writes one PNG per
group of lines that share the same path (so u and u_exact on one line are
overlaid).  Where the case names a reference for a line (reference = "x.csv"),
its data is drawn as markers.  Reference CSV: '#' comment lines (the source),
a header, then two columns: the coordinate along the line (x, y, z or s,
named in the header) and the value.
"""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def fail(msg):
    print(f"plot: error: {msg}", file=sys.stderr)
    sys.exit(1)


def read_line(path, want_time):
    with open(path) as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        fail(f"{path}: no samples")
    header, data = rows[0], [[float(v) for v in r] for r in rows[1:]]
    times = sorted({r[0] for r in data})
    t = times[-1] if want_time is None else min(times, key=lambda x: abs(x - want_time))
    pts = [r for r in data if r[0] == t]
    return header, t, pts


def read_reference(path):
    with open(path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.lstrip().startswith("#")) if r]
    header = [h.strip() for h in rows[0]]
    return header, [(float(r[0]), float(r[1])) for r in rows[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a kflow output directory (holds summary.json)")
    ap.add_argument("--time", type=float, help="model time to plot (default: the last)")
    ap.add_argument("--out", help="directory for the PNG files (default: RUN/plots)")
    a = ap.parse_args()
    summary_path = os.path.join(a.run, "summary.json")
    if not os.path.isfile(summary_path):
        fail(f"{summary_path} not found: is {a.run} a kflow output directory?")
    with open(summary_path) as f:
        summary = json.load(f)
    lines = summary.get("lines", [])
    if not lines:
        fail(f"{a.run}: the case wrote no lines ([output] lines = [...])")
    out = a.out or os.path.join(a.run, "plots")
    os.makedirs(out, exist_ok=True)

    groups = {}
    for line in lines:
        header, t, pts = read_line(os.path.join(a.run, line["file"]), a.time)
        first, last = pts[0], pts[-1]
        key = tuple(round(v, 12) for v in first[2:5] + last[2:5])
        groups.setdefault(key, []).append((line, header, t, pts))

    for key, members in groups.items():
        # The coordinate that varies along the path is the plot's abscissa.
        span = [abs(key[3 + d] - key[d]) for d in range(3)]
        axis = max(range(3), key=lambda d: span[d])
        aligned = sum(1 for s in span if s > 1e-12) == 1
        xcol = 2 + axis if aligned else 1
        xname = "xyz"[axis] if aligned else "s"
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for line, header, t, pts in members:
            ax.plot([p[xcol] for p in pts], [p[5] for p in pts], label=f"{line['field']} (kflow)")
            ref = line.get("reference")
            if ref:
                rh, rdata = read_reference(ref)
                ax.plot([r[0] for r in rdata], [r[1] for r in rdata], "o", mfc="none",
                        label=f"{rh[1]} ({os.path.basename(ref)})")
        names = ", ".join(m[0]["name"] for m in members)
        ax.set_title(f"{summary.get('case', '')}\n{names} at t = {members[0][2]:g}", fontsize=9)
        ax.set_xlabel(xname)
        ax.set_ylabel(", ".join(sorted({m[0]["field"] for m in members})))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(out, members[0][0]["name"] + ".png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(f"plot: {path}")


if __name__ == "__main__":
    main()
