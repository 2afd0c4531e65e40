#!/usr/bin/env python3
"""Runs tools/peers/openfoam on a small cavity and checks its table.

  check_openfoam.py PEER_SCRIPT KFLOW_PROGRAM WORKDIR

The script's own exit status 4 (OpenFOAM not installed) is passed on, so
that CTest reports the test as skipped with the script's message.  Otherwise
every solver's row must be in table.csv with a finite wall time and a finite,
negative psi_min inside the cavity.
"""
import csv
import math
import os
import subprocess
import sys


def main(script, kflow, workdir):
    cmd = [sys.executable, script, "cavity", "--cells", "32", "--end", "10", "--repeat", "1",
           "--cores", "1", "--kflow", kflow, "--workdir", workdir]
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
    for s in ("icoFoam", "simpleFoam", "mac2d", "vorticity2d"):
        if s not in seen:
            bad.append(f"no row for {s}")
    for r in rows:
        wall, psi = float(r["wall_s"]), float(r["psi_min"])
        x, y = float(r["x"]), float(r["y"])
        if not (math.isfinite(wall) and wall > 0):
            bad.append(f"{r['solver']}: wall time {r['wall_s']}")
        if not (math.isfinite(psi) and psi < 0 and 0 < x < 1 and 0 < y < 1):
            bad.append(f"{r['solver']}: psi_min {r['psi_min']} at ({r['x']}, {r['y']})")
    for b in bad:
        print("check: " + b)
    print(f"check: {len(rows)} rows, " + ("all finite" if not bad else f"{len(bad)} problems"))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip())
    sys.exit(main(*sys.argv[1:]))
