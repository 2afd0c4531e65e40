"""Helpers of tools/peers/openfoam: messages, the directories it owns, running
OpenFOAM and kflow, reading their results, and psi_min from a velocity field."""
import csv
import glob
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
MARK = ".kflow-peers"  # in every directory this script creates
NOT_AVAILABLE = 4
PSI_REF, PSI_X, PSI_Y = -0.1189366, 0.5308, 0.5652  # Botella & Peyret 1998



def say(msg):
    print("peers: " + msg, file=sys.stderr, flush=True)


def die(msg, code=1):
    say(msg)
    sys.exit(code)


# ---------------------------------------------------------------- running
def fresh_dir(path):
    """An empty directory this script owns: an earlier one of its own is
    replaced, anything else refused."""
    if os.path.lexists(path):
        if not os.path.isfile(os.path.join(path, MARK)):
            die(f"{path} exists and was not made by this script: move it away or pick "
                "another --workdir")
        shutil.rmtree(path)
    os.makedirs(path)
    open(os.path.join(path, MARK), "w").close()
    return path


def own_dir(path):
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, MARK)) and os.listdir(path):
            die(f"{path} holds files this script did not write: pick another --workdir")
    else:
        os.makedirs(path)
    open(os.path.join(path, MARK), "w").close()
    return path


def run(cmd, cwd, env, log, cores=None):
    """Runs cmd (pinned to the first `cores` CPUs), its output to log; the
    wall time in seconds."""
    if cores and shutil.which("taskset"):
        cmd = ["taskset", "-c", ",".join(str(c) for c in range(cores))] + cmd
    with open(log, "w") as f:
        t0 = time.monotonic()
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
        wall = time.monotonic() - t0
    if r.returncode != 0:
        tail = open(log, errors="replace").read().splitlines()[-15:]
        die(f"'{' '.join(cmd)}' failed (exit {r.returncode}) in {cwd}; the end of {log}:\n  "
            + "\n  ".join(tail))
    return wall


def foam(name, body):
    return ("FoamFile\n{\n    version 2.0;\n    format ascii;\n    class dictionary;\n"
            f"    object {name};\n}}\n\n" + body.strip() + "\n")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def foam_run(solver, case_dir, env, cores, log):
    """Runs an OpenFOAM solver on `cores` cores; the solver's wall time."""
    if cores == 1:
        return run([solver], case_dir, env, log, cores)
    write(os.path.join(case_dir, "system", "decomposeParDict"), foam("decomposeParDict", f"""
numberOfSubdomains {cores};
method simple;
simpleCoeffs {{ n ({cores} 1 1); delta 0.001; }}
"""))
    run(["decomposePar", "-force"], case_dir, env, log + ".decompose")
    wall = run(["mpirun", "-np", str(cores), "--bind-to", "none",
                solver, "-parallel"], case_dir, env, log, cores)
    run(["reconstructPar", "-latestTime"], case_dir, env, log + ".reconstruct")
    return wall


def latest_time(case_dir):
    times = []
    for d in os.listdir(case_dir):
        try:
            t = float(d)
        except ValueError:
            continue
        if t > 0 and os.path.isdir(os.path.join(case_dir, d)):
            times.append((t, d))
    if not times:
        die(f"{case_dir}: no time directory written")
    return max(times)


def read_internal(path, ncomp):
    """The internalField of an ASCII OpenFOAM field: a list of tuples (or floats)."""
    text = open(path).read()
    m = re.search(r"internalField\s+nonuniform\s+List<\w+>\s*(\d+)\s*\(", text)
    if not m:
        die(f"{path}: no nonuniform internalField")
    n = int(m.group(1))
    body = text[m.end():]
    nums = re.findall(r"[-+0-9.eE]+", body[:body.index("\n)\n") if "\n)\n" in body else None])
    vals = [float(x) for x in nums[:n * ncomp]]
    if len(vals) != n * ncomp:
        die(f"{path}: {len(vals)} numbers where {n * ncomp} were expected")
    return [tuple(vals[k * ncomp:(k + 1) * ncomp]) for k in range(n)] if ncomp > 1 else vals


class Kflow:
    """The kflow program, in the toolchain root unless KFLOW_NATIVE=1 or inside it."""

    def __init__(self, program, workdir):
        self.program = program
        if not os.access(program, os.X_OK):
            die(f"no kflow program at {program}: build it (tools/kflow builds it; tools/build.sh "
                "--target kflow) or name one with --kflow")
        inside = os.environ.get("KFLOW_NATIVE") == "1" or os.environ.get("KFLOW_ROOT_BINDS")
        self.prefix = []
        if not inside:
            build = os.path.dirname(program)
            if build.endswith(os.path.join("src", "app")):
                build = os.path.dirname(os.path.dirname(build))
            self.prefix = [os.path.join(TOP, "tools", "in-root.sh"), "--bind", build,
                           "--bind", workdir, "--"]

    def run(self, case, sets, out, threads, log):
        cmd = self.prefix + [self.program, "run", os.path.join(TOP, "cases", case), "--quiet",
                             "--output", out, "--threads", str(threads)]
        for s in sets:
            cmd += ["--set", s]
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="spread",
                   OMP_PLACES="threads")
        return run(cmd, os.path.dirname(out), env, log, threads)


def last_log_row(out):
    with open(os.path.join(out, "log.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        die(f"{out}/log.csv has no rows")
    return rows


def read_vti_cells(path, name):
    """A cell array of kflow's .vti frame (appended raw, zlib or none)."""
    data = open(path, "rb").read()
    head = data[:data.index(b"<AppendedData")].decode()
    ext = [int(x) for x in re.search(r'WholeExtent="([^"]+)"', head).group(1).split()]
    zlibbed = "vtkZLibDataCompressor" in head
    m = re.search(r'<DataArray[^>]*Name="%s"[^>]*>' % re.escape(name), head)
    if not m:
        die(f"{path}: no array {name}")
    tag = m.group(0)
    off = int(re.search(r'offset="\s*(\d+)', tag).group(1))
    ncomp = int(re.search(r'NumberOfComponents="(\d+)"', tag).group(1)) \
        if "NumberOfComponents" in tag else 1
    kind = re.search(r'type="(\w+)"', tag).group(1)
    fmt, size = {"Float64": ("d", 8), "Float32": ("f", 4)}[kind]
    utype = re.search(r'header_type="(\w+)"', head)
    hfmt, hs = ("Q", 8) if utype and utype.group(1) == "UInt64" else ("I", 4)
    base = data.index(b"_", data.index(b"<AppendedData")) + 1 + off
    if zlibbed:
        nb, _, _ = struct.unpack_from("<3" + hfmt, data, base)
        csizes = struct.unpack_from(f"<{nb}{hfmt}", data, base + 3 * hs)
        p = base + (3 + nb) * hs
        raw = b""
        for c in csizes:
            raw += zlib.decompress(data[p:p + c])
            p += c
    else:
        (nbytes,) = struct.unpack_from("<" + hfmt, data, base)
        raw = data[base + hs:base + hs + nbytes]
    vals = struct.unpack(f"<{len(raw) // size}{fmt}", raw)
    nx, ny = ext[1] - ext[0], ext[3] - ext[2]
    return nx, ny, [vals[k * ncomp:(k + 1) * ncomp] for k in range(nx * ny)]


# ---------------------------------------------------------------- psi_min
def parabola(a, b, c):
    den = a - 2 * b + c
    off = 0.5 * (a - c) / den if den != 0 else 0.0
    off = max(-0.5, min(0.5, off))
    return off, b - 0.25 * (a - c) * off


def psi_min_from_u(u, nx, ny):
    """psi = integral of u dy from the bottom wall on the cell centres'
    vertical lines (midpoint rule, psi at the cell faces), the minimum refined
    by a parabola along x and y as kflow's models do: (value, x, y)."""
    h, k = 1.0 / ny, 1.0 / nx
    P = [[0.0] * (ny + 1) for _ in range(nx)]  # P[i][j]: x = (i + 1/2) k, y = j h
    for i in range(nx):
        q = 0.0
        for j in range(ny):
            q += u[i + nx * j] * h
            P[i][j + 1] = q
    best, bi, bj = 0.0, 0, 0
    for i in range(nx):
        for j in range(ny + 1):
            if P[i][j] < best:
                best, bi, bj = P[i][j], i, j
    ox = oy = 0.0
    vx = vy = best
    if 0 < bi < nx - 1 and 0 < bj < ny:
        ox, vx = parabola(P[bi - 1][bj], best, P[bi + 1][bj])
        oy, vy = parabola(P[bi][bj - 1], best, P[bi][bj + 1])
    return vx + vy - best, (bi + 0.5 + ox) * k, (bj + oy) * h


# ------------------------------------------------------ Ghia's centre lines
def read_vti_geometry(path):
    """Origin and spacing (x, y) of a kflow .vti frame."""
    head = open(path, "rb").read(4096).decode(errors="replace")
    origin = [float(x) for x in re.search(r'Origin="([^"]+)"', head).group(1).split()]
    spacing = [float(x) for x in re.search(r'Spacing="([^"]+)"', head).group(1).split()]
    return origin[:2], spacing[:2]


def reference_columns(name):
    """(coordinates, values) of a two-column reference CSV in cases/reference."""
    with open(os.path.join(TOP, "cases", "reference", name)) as f:
        rows = list(csv.reader(l for l in f if not l.startswith("#")))
    return [float(r[0]) for r in rows[1:]], [float(r[1]) for r in rows[1:]]


def bilinear(c, nx, ny, origin, h, x, y):
    """Cell values c (i fastest) at cell centres origin + (i + 1/2) h, at (x, y)."""
    fx = min(max((x - origin[0]) / h[0] - 0.5, 0.0), nx - 1.0)
    fy = min(max((y - origin[1]) / h[1] - 0.5, 0.0), ny - 1.0)
    i, j = min(int(fx), nx - 2), min(int(fy), ny - 2)
    a, b = fx - i, fy - j
    at = lambda ii, jj: c[ii + nx * jj]
    return ((1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) +
            (1 - a) * b * at(i, j + 1) + a * b * at(i + 1, j + 1))


def ghia_deviation(u, v, nx, ny, origin, h):
    """The largest |u - Ghia| on the vertical centre line and |v - Ghia| on the
    horizontal one (Ghia, Ghia & Shin 1982, Re = 1000, Tables I and II; the
    interior points, the walls' values being given), cell values interpolated
    bilinearly: (du, dv)."""
    ys, us = reference_columns("ghia1982_re1000_u.csv")
    xs, vs = reference_columns("ghia1982_re1000_v.csv")
    du = max(abs(bilinear(u, nx, ny, origin, h, 0.5, y) - r) for y, r in zip(ys, us) if 0 < y < 1)
    dv = max(abs(bilinear(v, nx, ny, origin, h, x, 0.5) - r) for x, r in zip(xs, vs) if 0 < x < 1)
    return du, dv


def ghia_text(du, dv):
    return f"centre lines against Ghia: u {du:.4f}, v {dv:.4f}"


def psi_text(v, x, y):
    return f"ψ_min {v:.5f} at ({x:.4f}, {y:.4f}): {100 * (v / PSI_REF - 1):+.2f} %"
