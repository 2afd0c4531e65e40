#!/usr/bin/env python3
"""Compares two kflow output directories of the same case: every frame, the
run.pvd and every line sample byte for byte, and the log's columns (maxima
and the clock exactly, sums to 1e-12 of max |u| (diffusion) or of
themselves (lbm): partial sums per rank add in another order).  A frame
written by several ranks (frame_NNNNN.pvti and its pieces) is read with
VTK's parallel reader and compared with the single-rank .vti value by value
(every array, the extent, origin and spacing); run.pvd then names .pvti
files where the other names .vti.  Usage: same.py REF OUT [--last].  Exit
status 1 on a difference."""
import csv
import os
import sys

last = "--last" in sys.argv  # the last frame and log row only (a run
                              # interrupted and restarted has one frame more)
ref, out = [a for a in sys.argv[1:] if a != "--last"]
bad = []


def outputs(d):
    # Frames by stem (frame_NNNNN -> its .vti, .kff or .pvti; pieces are read
    # through their .pvti), line samples and run.pvd by name.
    return sorted(f for f in os.listdir(d)
                  if (f.startswith(("frame_", "line_")) and "_r" not in f[6:])
                  or f == "run.pvd")


def stem(f):
    return f.rsplit(".", 1)[0] if f.startswith("frame_") else f


def image(path):
    # VTK's XML readers alone (0.25 s to import; the whole of vtk takes 1.2 s).
    from vtkmodules.util import numpy_support
    from vtkmodules.vtkIOXML import vtkXMLImageDataReader, vtkXMLPImageDataReader
    r = vtkXMLPImageDataReader() if path.endswith(".pvti") else vtkXMLImageDataReader()
    r.SetFileName(path)
    r.Update()
    im = r.GetOutput()
    cd = im.GetCellData()
    arrays = {cd.GetArrayName(k): numpy_support.vtk_to_numpy(cd.GetArray(k))
              for k in range(cd.GetNumberOfArrays())}
    return im.GetExtent(), im.GetOrigin(), im.GetSpacing(), arrays


def same_file(a, b):
    if a.endswith(".pvti") != b.endswith(".pvti"):
        ea, oa, sa, xa = image(a)
        eb, ob, sb, xb = image(b)
        if (ea, oa, sa) != (eb, ob, sb):
            return f"grids differ: {(ea, oa, sa)} vs {(eb, ob, sb)}"
        if sorted(xa) != sorted(xb):
            return f"arrays differ: {sorted(xa)} vs {sorted(xb)}"
        for k in xa:
            if xa[k].shape != xb[k].shape or (xa[k] != xb[k]).any():
                return f"array {k} differs"
        return ""
    da, db = open(a, "rb").read(), open(b, "rb").read()
    if os.path.basename(a) == "run.pvd":
        da, db = (x.replace(b".pvti", b".vti") for x in (da, db))
    return "" if da == db else "bytes differ"


names, others = outputs(ref), outputs(out)
if not any(f.startswith("frame_") for f in names):
    bad.append(f"{ref} has no frames")
by_stem = {stem(f): f for f in others}
pairs = [(f, by_stem.get(stem(f), f)) for f in names]
if last:
    final = [max(f for f in x if f.startswith("frame_")) for x in (names, others)]
    pairs = [tuple(final)]
elif [stem(f) for f in names] != [stem(f) for f in others]:
    bad.append(f"files differ: {names} vs {others}")
for f, g in pairs:
    a, b = os.path.join(ref, f), os.path.join(out, g)
    why = "missing" if not os.path.exists(b) else same_file(a, b)
    if why:
        bad.append(f"{f} differs from {g}: {why}")

def rows(d):
    with open(os.path.join(d, "log.csv")) as fh:
        return list(csv.DictReader(fh))

ra, rb = rows(ref), rows(out)
if last:
    ra, rb = ra[-1:], rb[-1:]
if len(ra) != len(rb) or not ra:
    bad.append(f"log.csv: {len(ra)} rows vs {len(rb)}")
for x, y in zip(ra, rb):
    for k in x:
        if k.startswith("wall"):
            continue
        if k in ("mean_u", "error_rms", "kinetic_energy", "mean_density"):
            # Relative to the field's size: a mean near zero cancels.
            p, q = float(x[k]), float(y[k])
            scale = max(abs(p), abs(q), abs(float(x.get("max_abs_u", 0))), 1e-300)
            if abs(p - q) > 1e-12 * scale:
                bad.append(f"log.csv step {x['step']}: {k} {p!r} vs {q!r}")
        elif x[k] != y.get(k):
            bad.append(f"log.csv step {x['step']}: {k} {x[k]} vs {y.get(k)}")
for m in bad[:10]:
    print(f"same.py: {out}: {m}")
print(f"same.py: {out}: {len(pairs)} files and {len(ra)} log rows "
      + ("identical" if not bad else f"DIFFER ({len(bad)} problems)"))
sys.exit(1 if bad else 0)
