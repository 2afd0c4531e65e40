"""The OpenFOAM side of tools/peers/openfoam: its dictionaries, the cavity
(blockMesh) and the DFG channel (gmsh) cases, and their results."""
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

from peerlib import *  # noqa: F401,F403 (the script's helpers)


# ---------------------------------------------------------------- OpenFOAM dictionaries
def control_dict(app, end, dt, write_interval, functions=""):
    return foam("controlDict", f"""
application {app};
startFrom startTime;
startTime 0;
stopAt endTime;
endTime {end:.12g};
deltaT {dt:.12g};
writeControl {"runTime" if app != "simpleFoam" else "timeStep"};
writeInterval {write_interval:.12g};
purgeWrite 0;
writeFormat ascii;
writePrecision 12;
writeCompression off;
timeFormat general;
timePrecision 10;
runTimeModifiable false;
functions
{{
{functions}
}}
""")


# Transient: Euler in time, central (linear) convection, PISO (icoFoam) or
# PIMPLE with one outer corrector (pimpleFoam); steady: SIMPLEC with
# linearUpwind convection.  Pressure: GAMG with Gauss-Seidel smoothing.
def fv_schemes(steady, orthogonal):
    corr = "orthogonal" if orthogonal else "corrected"
    div = ("bounded Gauss linearUpwind grad(U)" if steady else "Gauss linear")
    return foam("fvSchemes", f"""
ddtSchemes {{ default {"steadyState" if steady else "Euler"}; }}
gradSchemes {{ default Gauss linear; }}
divSchemes
{{
    default none;
    div(phi,U) {div};
    div((nuEff*dev2(T(grad(U))))) Gauss linear;
}}
laplacianSchemes {{ default Gauss linear {corr}; }}
interpolationSchemes {{ default linear; }}
snGradSchemes {{ default {corr}; }}
""")


def fv_solution(app, p_ref):
    ref = "pRefCell 0;\n    pRefValue 0;" if p_ref else ""
    p = """
    p
    {
        solver GAMG;
        smoother GaussSeidel;
        tolerance 1e-7;
        relTol %s;
    }""" % ("0.1" if app == "simpleFoam" else "0.01")
    u = """
    "(U|UFinal)"
    {
        solver smoothSolver;
        smoother symGaussSeidel;
        tolerance 1e-8;
        relTol %s;
    }""" % ("0.1" if app == "simpleFoam" else "0")
    if app == "simpleFoam":
        algo = f"""
SIMPLE
{{
    consistent yes;
    nNonOrthogonalCorrectors 0;
    {ref}
    residualControl {{ p 1e-6; U 1e-7; }}
}}
relaxationFactors {{ equations {{ U 0.9; }} }}
"""
    else:
        algo = f"""
{"PISO" if app == "icoFoam" else "PIMPLE"}
{{
    nOuterCorrectors 1;
    nCorrectors 2;
    nNonOrthogonalCorrectors 0;
    {ref}
}}
"""
    return foam("fvSolution", "solvers\n{" + p + "\n    pFinal\n    {\n        $p;\n"
                "        relTol 0;\n    }" + u + "\n}\n" + algo)


def transport(nu):
    return (foam("transportProperties", f"transportModel Newtonian;\nnu [0 2 -1 0 0 0 0] {nu};"),
            foam("turbulenceProperties", "simulationType laminar;"))


def field(name, cls, dims, boundary):
    return foam(name, f"dimensions {dims};\ninternalField uniform "
                f"{'(0 0 0)' if cls == 'volVectorField' else '0'};\nboundaryField\n{{\n"
                + boundary + "\n}").replace("class dictionary", f"class {cls}")


def write_common(d, app, nu, steady, orthogonal, p_ref):
    tp, turb = transport(nu)
    write(os.path.join(d, "constant", "transportProperties"), tp)
    write(os.path.join(d, "constant", "turbulenceProperties"), turb)
    write(os.path.join(d, "system", "fvSchemes"), fv_schemes(steady, orthogonal))
    write(os.path.join(d, "system", "fvSolution"), fv_solution(app, p_ref))


# ---------------------------------------------------------------- cavity
def cavity_openfoam(d, app, n, end, env):
    thick = 1.0 / n
    write(os.path.join(d, "system", "blockMeshDict"), foam("blockMeshDict", f"""
convertToMeters 1;
vertices ((0 0 0) (1 0 0) (1 1 0) (0 1 0) (0 0 {thick}) (1 0 {thick}) (1 1 {thick}) (0 1 {thick}));
blocks (hex (0 1 2 3 4 5 6 7) ({n} {n} 1) simpleGrading (1 1 1));
edges ();
boundary
(
    movingWall {{ type wall; faces ((3 7 6 2)); }}
    fixedWalls {{ type wall; faces ((0 4 7 3) (2 6 5 1) (1 5 4 0)); }}
    frontAndBack {{ type empty; faces ((0 3 2 1) (4 5 6 7)); }}
);
mergePatchPairs ();
"""))
    if app == "simpleFoam":
        write(os.path.join(d, "system", "controlDict"), control_dict(app, 100000, 1, 100000))
    else:
        steps = math.ceil(2 * end * n)  # Courant number 0.5 at the lid's speed
        write(os.path.join(d, "system", "controlDict"), control_dict(app, end, end / steps, end))
    write_common(d, app, 1e-3, app == "simpleFoam", True, True)
    write(os.path.join(d, "0", "U"), field("U", "volVectorField", "[0 1 -1 0 0 0 0]", """
    movingWall { type fixedValue; value uniform (1 0 0); }
    fixedWalls { type noSlip; }
    frontAndBack { type empty; }"""))
    write(os.path.join(d, "0", "p"), field("p", "volScalarField", "[0 2 -2 0 0 0 0]", """
    movingWall { type zeroGradient; }
    fixedWalls { type zeroGradient; }
    frontAndBack { type empty; }"""))
    run(["blockMesh"], d, env, os.path.join(d, "log.blockMesh"))


def cavity_result_openfoam(d, n):
    t, name = latest_time(d)
    vel = read_internal(os.path.join(d, name, "U"), 3)
    u = [c[0] for c in vel]
    if len(u) != n * n:
        die(f"{d}/{name}/U: {len(u)} cells, not {n * n}")
    v, x, y = psi_min_from_u(u, n, n)
    du, dv = ghia_deviation(u, [c[1] for c in vel], n, n, (0.0, 0.0), (1.0 / n, 1.0 / n))
    return v, x, y, t, du, dv


# ---------------------------------------------------------------- DFG
DFG = {  # peak inflow, mean U, end time of the transient runs
    "dfg-2d-1": dict(um=0.3, U=0.2, re=20, mac2d="mac2d/cylinder-re20.toml", mac2d_end=15.0,
                     lbm="lbm/dfg-2d-1.toml", lbm_end=60.0),
    "dfg-2d-2": dict(um=1.5, U=1.0, re=100, mac2d="mac2d/cylinder-re100.toml", mac2d_end=12.0,
                     lbm="lbm/dfg-2d-2.toml", lbm_end=12.0),
}
H, D = 0.41, 0.1


def dfg_openfoam(d, app, case, pd, end, env):
    h = D / pd
    thick = h
    geo = f"""// DFG channel with the cylinder, quadrilaterals of size {h:g}, one cell thick
h = {h!r};
Point(1) = {{0, 0, 0, h}}; Point(2) = {{2.2, 0, 0, h}}; Point(3) = {{2.2, 0.41, 0, h}};
Point(4) = {{0, 0.41, 0, h}}; Point(5) = {{0.2, 0.2, 0, h}}; Point(6) = {{0.25, 0.2, 0, h}};
Point(7) = {{0.2, 0.25, 0, h}}; Point(8) = {{0.15, 0.2, 0, h}}; Point(9) = {{0.2, 0.15, 0, h}};
Line(1) = {{1, 2}}; Line(2) = {{2, 3}}; Line(3) = {{3, 4}}; Line(4) = {{4, 1}};
Circle(5) = {{6, 5, 7}}; Circle(6) = {{7, 5, 8}}; Circle(7) = {{8, 5, 9}}; Circle(8) = {{9, 5, 6}};
Curve Loop(1) = {{1, 2, 3, 4}}; Curve Loop(2) = {{5, 6, 7, 8}};
Plane Surface(1) = {{1, 2}};
Recombine Surface{{1}};
Mesh.Algorithm = 6;
Mesh.RecombinationAlgorithm = 1;
ex[] = Extrude {{0, 0, {thick!r}}} {{ Surface{{1}}; Layers{{1}}; Recombine; }};
Physical Surface("walls") = {{ex[2], ex[4]}};
Physical Surface("outlet") = {{ex[3]}};
Physical Surface("inlet") = {{ex[5]}};
Physical Surface("cylinder") = {{ex[6], ex[7], ex[8], ex[9]}};
Physical Surface("frontAndBack") = {{1, ex[0]}};
Physical Volume("fluid") = {{ex[1]}};
Mesh.MshFileVersion = 2.2;
"""
    write(os.path.join(d, "dfg.geo"), geo)
    run(["gmsh", "-3", "-nt", "1", "dfg.geo", "-o", "dfg.msh"], d, env,
        os.path.join(d, "log.gmsh"))
    p = DFG[case]
    if app == "simpleFoam":
        ctl = (100000, 1, 100000)
    else:
        # Courant number about 0.5 at 1.5 times the peak inflow speed
        steps = math.ceil(end * 1.5 * p["um"] / (0.5 * h))
        ctl = (end, end / steps, end)
    functions = f"""
    forceCoeffs
    {{
        type forceCoeffs;
        libs ("libforces.so");
        writeControl timeStep;
        writeInterval 1;
        patches (cylinder);
        rho rhoInf;
        rhoInf 1;
        liftDir (0 1 0);
        dragDir (1 0 0);
        CofR (0.2 0.2 0);
        pitchAxis (0 0 1);
        magUInf {p["U"]};
        lRef {D};
        Aref {D * thick!r};
    }}
    probes
    {{
        type probes;
        libs ("libsampling.so");
        writeControl timeStep;
        writeInterval 1;
        fields (p);
        probeLocations (({0.15 - 1e-3 * h!r} 0.2 {thick / 2!r}) ({0.25 + 1e-3 * h!r} 0.2 {thick / 2!r}));
    }}"""
    write(os.path.join(d, "system", "controlDict"), control_dict(app, *ctl, functions))
    write_common(d, app, 1e-3, app == "simpleFoam", False, False)
    run(["gmshToFoam", "dfg.msh"], d, env, os.path.join(d, "log.gmshToFoam"))
    bpath = os.path.join(d, "constant", "polyMesh", "boundary")
    b = open(bpath).read()
    for patch, kind in (("frontAndBack", "empty"), ("walls", "wall"), ("cylinder", "wall")):
        b, k = re.subn(r"(\n\s*%s\s*\{[^}]*?type\s+)\w+;" % patch, r"\g<1>%s;" % kind, b)
        if k != 1:
            die(f"{bpath}: no patch {patch}")
        b = re.sub(r"(\n\s*%s\s*\{[^}]*?physicalType\s+)\w+;" % patch, r"\g<1>%s;" % kind, b)
    open(bpath, "w").write(b)
    os.makedirs(os.path.join(d, "0"), exist_ok=True)
    run(["postProcess", "-func", "writeCellCentres", "-time", "0"], d, env,
        os.path.join(d, "log.writeCellCentres"))
    cpath = os.path.join(d, "0", "C")
    text = open(cpath).read()
    m = re.search(r"inlet\s*\{[^}]*?value\s+nonuniform\s+List<vector>\s*(\d+)\s*\(", text)
    if not m:
        die(f"{cpath}: no face centres of the inlet")
    n = int(m.group(1))
    ys = [float(v) for v in re.findall(r"\(\s*\S+\s+(\S+)\s+\S+\s*\)", text[m.end():])[:n]]
    prof = "\n".join(f"({4 * p['um'] * y * (H - y) / H ** 2!r} 0 0)" for y in ys)
    for f in glob.glob(os.path.join(d, "0", "C*")):
        os.remove(f)
    write(os.path.join(d, "0", "U"), field("U", "volVectorField", "[0 1 -1 0 0 0 0]", f"""
    inlet {{ type fixedValue; value nonuniform List<vector> {n}
(
{prof}
); }}
    outlet {{ type zeroGradient; }}
    walls {{ type noSlip; }}
    cylinder {{ type noSlip; }}
    frontAndBack {{ type empty; }}"""))
    write(os.path.join(d, "0", "p"), field("p", "volScalarField", "[0 2 -2 0 0 0 0]", """
    inlet { type zeroGradient; }
    outlet { type fixedValue; value uniform 0; }
    walls { type zeroGradient; }
    cylinder { type zeroGradient; }
    frontAndBack { type empty; }"""))
    cells = re.search(r"nCells:\s*(\d+)",
                      open(os.path.join(d, "constant", "polyMesh", "owner")).read())
    say(f"{case}: gmsh mesh of {cells.group(1) if cells else '?'} cells (h = D/{pd})")


def table_columns(path, names):
    """Columns of an OpenFOAM postProcessing .dat file by header name."""
    header, rows = None, []
    for line in open(path):
        if line.startswith("#"):
            words = line[1:].split()
            if words and words[0] == "Time":
                header = words
            continue
        w = line.replace("(", " ").replace(")", " ").split()
        if w:
            rows.append([float(x) for x in w])
    if header is None:
        die(f"{path}: no header line")
    idx = [header.index(n) for n in names]
    return [[r[k] for k in idx] for r in rows]


def dfg_result_openfoam(d):
    t, _ = latest_time(d)
    fc = sorted(glob.glob(os.path.join(d, "postProcessing", "forceCoeffs", "*", "*.dat")))
    pr = sorted(glob.glob(os.path.join(d, "postProcessing", "probes", "*", "p")))
    if not fc or not pr:
        die(f"{d}/postProcessing: no forceCoeffs or probes output")
    coef = table_columns(fc[-1], ["Time", "Cd", "Cl"])
    probes = []
    for line in open(pr[-1]):
        if not line.startswith("#") and line.split():
            probes.append([float(x) for x in line.split()])
    return dict(t=[r[0] for r in coef], cd=[r[1] for r in coef], cl=[r[2] for r in coef],
                pt=[r[0] for r in probes], dp=[r[1] - r[2] for r in probes], end=t)


def periodic(t, cd, cl, t0):
    """Strouhal number from c_l's upward zero crossings after t0, and c_d,
    c_l maxima over the last two periods (tools/dfg-summary.py's reading)."""
    up = [t[k - 1] + (t[k] - t[k - 1]) * -cl[k - 1] / (cl[k] - cl[k - 1])
          for k in range(1, len(t)) if t[k - 1] >= t0 and cl[k - 1] < 0 <= cl[k]]
    if len(up) < 3:
        return None
    period = (up[-1] - up[0]) / (len(up) - 1)
    last = [k for k in range(len(t)) if up[-3] <= t[k] <= up[-1]]
    return D / period, max(cd[k] for k in last), max(cl[k] for k in last)


def interval_text(name, v, lo, hi):
    mid = "in" if lo <= v <= hi else (f"{100 * (v / lo - 1):+.2f} % below" if v < lo
                                      else f"{100 * (v / hi - 1):+.2f} % above")
    return f"{name} {v:.5g} ({mid})"


REF = {"dfg-2d-1": dict(c_D=(5.57, 5.59), c_L=(0.0104, 0.0110), Delta_p=(0.1172, 0.1176)),
       "dfg-2d-2": dict(c_D_max=(3.22, 3.24), c_L_max=(0.99, 1.01), St=(0.295, 0.305))}


def dfg_accuracy(case, t, cd, cl, dp):
    r = REF[case]
    if case == "dfg-2d-1":
        parts = [interval_text("c_D", cd[-1], *r["c_D"]), interval_text("c_L", cl[-1], *r["c_L"])]
        if dp is not None:
            parts.append(interval_text("Δp", dp, *r["Delta_p"]))
        return "; ".join(parts), dict(c_d=cd[-1], c_l=cl[-1], delta_p=dp)
    p = periodic(t, cd, cl, 6.0)
    if p is None:
        return "fewer than 3 periods after t = 6", dict(st=math.nan)
    st, cdm, clm = p
    return ("; ".join([interval_text("St", st, *r["St"]), interval_text("c_D,max", cdm,
                                                                         *r["c_D_max"]),
                       interval_text("c_L,max", clm, *r["c_L_max"])]),
            dict(st=st, c_d_max=cdm, c_l_max=clm))
