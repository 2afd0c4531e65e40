#!/usr/bin/env bash
# Grid studies of vorticity2d behind the tables in docs/models/vorticity2d.md:
# the Re = 1000 cavity's primary vortex on 127^2, 255^2 and 511^2 interior
# nodes against Ghia et al. (1982) and Botella & Peyret (1998) with the
# observed order, and the heated cavity per Rayleigh number and grid against
# de Vahl Davis (1983), TVD against upwind.  The runs take minutes on a GPU
# and hours on two CPU cores.
#
#   tools/vorticity2d-study.sh KFLOW OUTDIR [BACKEND] [JOBS] [SET]
#
# KFLOW: the kflow binary (or tools/kflow); OUTDIR: a new directory for the
# runs and table.md; BACKEND: cuda (default) or openmp; JOBS: runs side by
# side (4); SET: "cavity", "convection" or "all" (default).  With
# KFLOW_STUDY_TIMEOUT=S a run still going after S seconds is stopped (SIGTERM:
# it ends after its step) and the table shows its last log row, marked;
# KFLOW_STUDY_ONLY=REGEX runs only the runs whose names match (e.g.
# "cavity-re1000-n511|ra1e6-n255-tvd"); KFLOW_STUDY_SETS="KEY=VALUE ..." adds
# --set overrides to every run (e.g. "solver.method=mg").
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n 2,20p "$0"; exit 2; }
kflow=$1 out=$2 backend=${3:-cuda} jobs=${4:-4} set=${5:-all}
top=$(cd "$(dirname "$0")/.." && pwd -P)
cases=$top/cases/vorticity2d
[[ -e $out ]] && { echo "vorticity2d-study: $out exists; give a new directory" >&2; exit 1; }
mkdir -p "$out"

# name | case | overrides (space-separated --set values)
runs=()
if [[ $set == all || $set == cavity ]]; then
  for n in 511 255 127; do  # the longest first
    runs+=("cavity-re1000-n$n|cavity-re1000.toml|grid.cells=[$n,$n] output.every=120.0")
  done
fi
if [[ $set == all || $set == convection ]]; then
  for spec in 1e6:255:0.4 1e5:255:0.6 1e5:127:0.6 1e4:127:1.0 1e3:127:1.0 1e4:63:1.0 \
              1e3:63:1.0; do
    IFS=: read -r ra n end <<<"$spec"
    for conv in tvd upwind; do
      runs+=("ra$ra-n$n-$conv|natural-convection-ra$ra.toml|grid.cells=[$n,$n] time.end=$end output.every=$end numerics.convection=\"$conv\"")
    done
  done
fi

if [[ -n ${KFLOW_STUDY_ONLY:-} ]]; then  # a regular expression on the run names
  kept=()
  for r in "${runs[@]}"; do [[ ${r%%|*} =~ ^($KFLOW_STUDY_ONLY)$ ]] && kept+=("$r"); done
  runs=("${kept[@]}")
fi

one() {
  IFS='|' read -r name file sets <<<"$1"
  local args=(--set output.log_every=200)
  for s in $sets ${KFLOW_STUDY_SETS:-}; do args+=(--set "$s"); done
  local t0=$SECONDS
  if timeout "${KFLOW_STUDY_TIMEOUT:-0}" "$kflow" run "$cases/$file" --backend "$backend" --quiet --output "$out/$name" "${args[@]}" \
      >"$out/$name.log" 2>&1; then
    echo "$name: done in $((SECONDS - t0)) s"
  else
    echo "$name: FAILED after $((SECONDS - t0)) s (see $name.log)"
  fi
}
export -f one
export kflow out backend cases KFLOW_STUDY_TIMEOUT KFLOW_STUDY_SETS
printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {}

python3 - "$out" "$top/cases/reference" <<'EOF' | tee "$out/table.md"
import csv, glob, json, math, os, sys
out, ref = sys.argv[1], sys.argv[2]
def table(name):
    with open(os.path.join(ref, name)) as f:
        return list(csv.DictReader(l for l in f if not l.startswith('#')))
def logfile(name):
    # a finished run's log, or one stopped by KFLOW_STUDY_TIMEOUT (DIR.interrupted)
    for d in (name, name + '.interrupted', name + '.failed', name + '.running'):
        p = os.path.join(out, d, 'log.csv')
        if os.path.exists(p): return p
    return None
def summary(name):
    p = os.path.join(out, name, 'summary.json')
    if os.path.exists(p): return json.load(open(p))['diagnostics']
    p = logfile(name)
    if not p: return None
    rows = list(csv.DictReader(open(p)))
    if len(rows) < 2: return None
    d = {k: float(v) for k, v in rows[-1].items()}
    d['stopped'] = 1
    return d
def tag(d):
    return f" (stopped at t = {d['time']:.4g})" if d.get('stopped') else ''
def drift(name, key):
    # relative change of key over the last 10 % of the run (steadiness)
    p = logfile(name)
    if not p: return float('nan')
    rows = list(csv.DictReader(open(p)))
    t_end = float(rows[-1]['time'])
    early = [r for r in rows if float(r['time']) <= 0.9 * t_end][-1]
    a, b = float(early[key]), float(rows[-1][key])
    return abs(b - a) / max(abs(b), 1e-300)

vortex = table('cavity_primary_vortex.csv')
assert len(vortex) == 4, 'cavity_primary_vortex.csv: expected 4 rows'
ghia = next(r for r in vortex if r['source'] == 'ghia1982' and r['reynolds'] == '1000')
bp = next(r for r in vortex if r['source'] == 'botella_peyret1998')
def runs(prefix):
    # run names in OUTDIR (a stopped run's directory has a suffix)
    return sorted({os.path.basename(p).split('.')[0] for p in glob.glob(os.path.join(out, prefix + '*'))
                   if os.path.isdir(p)})
cav = sorted((int(n[15:]), summary(n)) for n in runs('cavity-re1000-n'))
if any(d for _, d in cav):
    print('## Cavity Re = 1000, primary vortex (TVD, Woods)\n')
    print('| interior nodes | h | psi_min | x | y | vs Ghia | vs Botella & Peyret | psi_min change over the last 10 % of t |')
    print('|---|---|---|---|---|---|---|---|')
    for n, d in cav:
        if not d: print(f'| {n}^2 | 1/{n+1} | (no result) |||||'); continue
        p = d['psi_min']
        print(f"| {n}^2{tag(d)} | 1/{n+1} | {p:.7f} | {d['psi_min_x']:.4f} | {d['psi_min_y']:.4f} | "
              f"{(p - float(ghia['psi_min'])) / abs(float(ghia['psi_min'])) * 100:+.3f} % | "
              f"{(p - float(bp['psi_min'])) / abs(float(bp['psi_min'])) * 100:+.3f} % | "
              f"{drift(f'cavity-re1000-n{n}', 'psi_min'):.1e} |")
    ps = [d['psi_min'] for _, d in cav if d and not d.get('stopped')]
    if len(ps) == 3 and (ps[1] - ps[2]) != 0 and (ps[0] - ps[1]) / (ps[1] - ps[2]) > 0:
        order = math.log2((ps[0] - ps[1]) / (ps[1] - ps[2]))
        rich = ps[2] + (ps[2] - ps[1]) / (2 ** order - 1)
        print(f'\nobserved order of psi_min (three grids, ratio 2): {order:.2f}; '
              f'Richardson-extrapolated psi_min {rich:.7f} '
              f'({(rich - float(bp["psi_min"])) / abs(float(bp["psi_min"])) * 100:+.3f} % from Botella & Peyret)')
    for k in (1, 2):
        if k < len(cav) and all(d and not d.get('stopped') for d in (cav[k - 1][1], cav[k][1])):
            e0 = abs(cav[k - 1][1]['psi_min'] - float(bp['psi_min']))
            e1 = abs(cav[k][1]['psi_min'] - float(bp['psi_min']))
            if e1 > 0:
                print(f'order from the error against Botella & Peyret, {cav[k-1][0]}^2 -> {cav[k][0]}^2: '
                      f'{math.log2(e0 / e1):.2f}')
    print()

dvd = table('devahldavis1983_natural_convection.csv')
assert len(dvd) == 4, 'devahldavis1983_natural_convection.csv: expected 4 rows'
names = runs('ra')
if names:
    print('## Heated cavity against de Vahl Davis (1983): deviation in %, positions in L\n')
    print('| Ra | interior nodes | convection | Nu hot wall | Nu cold wall | u_max (y) | v_max (x) | Nu change over the last 10 % of t |')
    print('|---|---|---|---|---|---|---|---|')
    def key(n):
        ra, grid, conv = n.split('-')
        return (float(ra[2:]), int(grid[1:]), conv)
    for name in sorted(names, key=key):
        d = summary(name)
        ra, grid, conv = name.split('-')
        if not d: print(f'| {ra[2:]} | {grid[1:]}^2 | {conv} | (no result) ||||'); continue
        r = next(r for r in dvd if float(r['rayleigh']) == float(ra[2:]))
        dev = lambda got, want: (got - float(r[want])) / float(r[want]) * 100
        print(f"| {ra[2:]} | {grid[1:]}^2{tag(d)} | {conv} | {d['nusselt_hot']:.4f} ({dev(d['nusselt_hot'], 'nusselt_hot_wall_average'):+.2f}) | "
              f"{d['nusselt_cold']:.4f} ({dev(d['nusselt_cold'], 'nusselt_hot_wall_average'):+.2f}) | "
              f"{d['midline_u_max']:.3f} ({dev(d['midline_u_max'], 'u_max'):+.2f}) at {d['midline_u_max_y']:.4f} ({float(r['u_max_y'])}) | "
              f"{d['midline_v_max']:.3f} ({dev(d['midline_v_max'], 'v_max'):+.2f}) at {d['midline_v_max_x']:.4f} ({float(r['v_max_x'])}) | "
              f"{drift(name, 'nusselt_hot'):.1e} |")
EOF
