#!/usr/bin/env python3
"""Runs tools/peers/openfoam on a small cavity and checks its table.

  check_openfoam.py PEER_SCRIPT KFLOW_PROGRAM WORKDIR

The script's own exit status 4 (OpenFOAM not installed) is passed on, so
that CTest reports the test as skipped with the script's message.  Otherwise
every solver's row must be in table.csv with a finite wall time, a finite,
negative psi_min inside the cavity and finite deviations from Ghia's centre
lines.  A second pass runs kflow's mac2d with --steady and checks that its
row says where the run settled.
"""
import csv
import math
import os
import subprocess
import sys


def main(script, kflow, workdir):
    rc = table(script, kflow, workdir, ["--end", "10"], ("icoFoam", "simpleFoam", "mac2d",
                                                         "vorticity2d"))
    if rc != 0:
        return rc
    return table(script, kflow, os.path.join(workdir, "steady"),
                 ["--steady", "1e-3", "--end", "60", "--solvers", "mac2d"], ("mac2d",),
                 settled=True)


def table(script, kflow, workdir, options, solvers, settled=False):
    cmd = [sys.executable, script, "cavity", "--cells", "32", "--repeat", "1", "--cores", "1",
           "--kflow", kflow, "--workdir", workdir] + options
    print("check: " + " ".join(cmd), flush=True)
    rc = subprocess.run(cmd).returncode
    if rc == 4:
        print("check: skipped: OpenFOAM is not installed where the tests run (under tools/test:"
              " the toolchain root; 'tools/in-root.sh -- tools/peers/openfoam --install'"
              " installs it there)", flush=True)
        return 4
    if rc != 0:
        print(f"check: the peer script failed (exit {rc})")
        return 1
    with open(os.path.join(workdir, "table.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    bad = []
    seen = {r["solver"] for r in rows}
    for s in solvers:
        if s not in seen:
            bad.append(f"no row for {s}")
    for r in rows:
        wall, psi = float(r["wall_s"]), float(r["psi_min"])
        x, y = float(r["x"]), float(r["y"])
        du, dv = float(r["ghia_u"]), float(r["ghia_v"])
        if not (math.isfinite(wall) and wall > 0):
            bad.append(f"{r['solver']}: wall time {r['wall_s']}")
        if not (math.isfinite(psi) and psi < 0 and 0 < x < 1 and 0 < y < 1):
            bad.append(f"{r['solver']}: psi_min {r['psi_min']} at ({r['x']}, {r['y']})")
        if not (0 <= du < 1 and 0 <= dv < 1):
            bad.append(f"{r['solver']}: deviations from Ghia {r['ghia_u']}, {r['ghia_v']}")
        if settled and not r["model_time"].startswith("steady at t = "):
            bad.append(f"{r['solver']}: not settled: {r['model_time']}")
    for b in bad:
        print("check: " + b)
    print(f"check: {len(rows)} rows, " + ("all finite" if not bad else f"{len(bad)} problems"))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip())
    sys.exit(main(*sys.argv[1:]))
