// physics/split3d: case parsing (nodes, sides, dimensionless numbers, scheme
// choices, the Peclet check), the initial state with its boundary values, and
// registration; the bodies' nodes and walls are placed in split3d_place.cpp.  The Kokkos code is in
// split3d_impl.hpp, instantiated per (backend, precision).

#include "split3d.hpp"

#include <algorithm>
#include <cmath>

#include "kflow/model/case_geometry.hpp"
#include "kflow/model/case_grid.hpp"
#include "kflow/model/case_solver.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/exact.hpp"
#include "kflow/model/registry.hpp"
#include "sides.hpp"

namespace kflow::split3d {

namespace {

// A side (physics/common/sides.hpp): walls, an inflow (a speed > 0 into the
// domain, or a duct or parabolic profile by its centre velocity), an
// outflow, periodic pairs; a wall's or inflow's temperature defaults to the
// initial one, a wall may be adiabatic.
Side parse_side(const Config::Section& bs, int axis, int high, const linalg::Grid& domain,
                double t0) {
  using K = sides::Kind;
  using P = sides::Profile;
  sides::Rules rules;
  rules.kinds = {K::no_slip, K::moving_wall, K::inflow, K::outflow, K::periodic};
  rules.profiles = {P::uniform, P::duct, P::parabolic};
  rules.peak_key = "centre_velocity";
  rules.inflow_positive = true;
  rules.thermal = true;
  rules.initial_temperature = t0;
  const auto r = sides::read(bs, axis, high, domain, rules);
  Side b;
  b.kind = r.kind == K::inflow     ? Kind::inflow
           : r.kind == K::outflow  ? Kind::outflow
           : r.kind == K::periodic ? Kind::periodic
                                   : Kind::wall;
  b.velocity = r.velocity;
  b.profile = r.profile == P::duct        ? Profile::duct
              : r.profile == P::parabolic ? Profile::parabolic
                                          : Profile::uniform;
  if (r.kind == K::inflow && r.profile == P::uniform)
    b.velocity[axis] = high ? -r.normal : r.normal;
  if (r.kind == K::inflow && r.profile != P::uniform) b.centre_velocity = r.normal;
  b.adiabatic = r.adiabatic;
  b.temperature = r.temperature;
  return b;
}

// [[body]] (docs/geometry.md) with split3d's thermal keys: temperature = T
// (default the initial temperature) or adiabatic = true.  Bodies keep off
// the inflow and outflow sides; the rest is checked on the nodes
// (Setup::place_cells).
void parse_bodies(Config& c, Setup& s, const linalg::Grid& domain) {
  if (!c.section("").tables("obstacle").empty())
    c.root().fail("obstacle",
                  "split3d's [[obstacle]] tables are replaced by [[body]] (docs/geometry.md): "
                  "shape = \"cylinder\", center = [x, y, z], radius = r, axis = [0, 0, 1] (a "
                  "cylinder through the domain); shape = \"box\", min = [x0, y0, z0], "
                  "max = [x1, y1, z1]; also sphere, rotate, stl and obj; temperature = T or "
                  "adiabatic = true as before");
  BodyRules rules;
  for (int sd = 0; sd < 6; ++sd)
    rules.keep_off[std::size_t(sd / 2)][std::size_t(sd % 2)] =
        s.side[sd].kind == Kind::inflow || s.side[sd].kind == Kind::outflow;
  rules.why = "which is an inflow or an outflow";
  s.bodies = kflow::parse_bodies(c, domain, rules, s.notes);
  for (const auto& t : c.section("").tables("body")) {
    BodyHeat b;
    if (t.has("temperature") && t.has("adiabatic"))
      t.fail("adiabatic", "give either temperature (fixed) or adiabatic = true, not both");
    if (t.has("adiabatic") && !t.get_bool("adiabatic", true))
      t.fail("adiabatic", "expected true (or give temperature = T for a fixed temperature)");
    b.adiabatic = t.has("adiabatic");
    b.temperature = t.get("temperature", s.initial_temperature);
    s.body_heat.push_back(b);
  }
}

}  // namespace

namespace {

// [physics] and the projection's [solver].
void read_physics(Setup& s, const Config::Section& ps, const Config::Section& ss) {
  s.reynolds = ps.require("reynolds", Range::positive());
  s.prandtl = ps.get("prandtl", 0.72, Range::positive());
  s.gamma = ps.get("gamma", 1.4, Range::at_least(1));
  const auto f = ps.get_numbers("body_force", 3, 3, {0, 0, 0});
  s.body_force = {f[0], f[1], f[2]};

  s.projection = ps.get_bool("projection", false);
  if (ps.has("projection_scheme") && !s.projection)
    ps.fail("projection_scheme", "applies with physics.projection = true only");
  s.incremental = s.projection && ps.get_choice("projection_scheme", {"plain", "incremental"},
                                                "incremental") == "incremental";
  s.projection_tolerance = ss.get("tolerance", 1e-8, Range::positive().at_most(1));
  s.projection_max_iterations = int(ss.get_int("max_iterations", 10000, 1, 1 << 30));
  s.projection_method = read_option(ss, "method", Method::cg,
                                    {Method::cg, Method::mg, Method::kk_cg, Method::kk_gmres});
  // Default: CG + multigrid (3.5x Jacobi-CG's speed at 64^3 on 2 cores, 10x at
  // 192^3 on the H200: docs/models/split3d.md, "The projection's default").
  s.projection_preconditioner =
      read_option(ss, "preconditioner",
                  s.projection_method == Method::cg ? Preconditioner::mg : Preconditioner::jacobi,
                  {Preconditioner::jacobi, Preconditioner::mg});
  if (s.projection_method != Method::cg && s.projection_preconditioner == Preconditioner::mg)
    ss.fail("preconditioner", "\"mg\" preconditions method = \"cg\" only (method is \"" +
                                  std::string(name(s.projection_method)) + "\")");
  s.projection_restart = int(ss.get_int("restart", 50, 1, 10000));
  s.mg = parse_mg_options(ss, s.projection_preconditioner == Preconditioner::mg, false);
  require_kokkos_kernels(ss, "method", s.projection_method);
}

// The nodes and the output grid from [grid] and the periodic axes; h: the
// spacings.
void place_nodes(Setup& s, const linalg::Grid& domain, double (&h)[3]) {
  // [grid] cells = interior nodes; the boundary nodes lie on the box's faces:
  // h = L / (n + 1).  A periodic axis: n cell-centred nodes, h = L / n, and
  // the nodes 0 and n + 1 (at -h/2 and L + h/2) ghost copies of n and 1.
  auto& nodes = s.nodes;
  nodes = domain;
  nodes.ghost = 1;
  auto& og = s.grid;  // output: every node, one cell each
  og = domain;
  og.ghost = 0;
  for (int d = 0; d < 3; ++d) {
    const int n = domain.cells[d];
    const bool per = s.periodic[d];
    h[d] = domain.length[d] / (per ? n : n + 1);
    nodes.origin[d] = domain.origin[d] + (per ? 0.0 : 0.5 * h[d]);
    nodes.length[d] = n * h[d];
    og.cells[d] = n + 2;
    og.origin[d] = domain.origin[d] - (per ? 1.0 : 0.5) * h[d];
    og.length[d] = (n + 2) * h[d];
  }
  s.fields = field_names(field_table);
  std::string per_axes;
  for (int d = 0; d < 3; ++d)
    if (s.periodic[d]) per_axes += std::string(per_axes.empty() ? "" : ", ") + "xyz"[d];
  s.notes.push_back(
      domain.cells_text() + " interior nodes and the boundary nodes on the faces (h = " +
      number_text(h[0]) + ", " + number_text(h[1]) + ", " + number_text(h[2]) +
      "); output cells are centred on the nodes, boundary nodes included" +
      (per_axes.empty()
           ? std::string()
           : "; periodic in " + per_axes + " (cyclic lines, h = L / n, ghost copies)"));
}

// Multigrid pairs the nodes of a periodic axis (linalg/multigrid.hpp): an
// odd count there takes CG + Jacobi where multigrid is the default, and is
// an error where the case asks for multigrid.
void check_multigrid_pairs(Setup& s, const Config::Section& ss, const linalg::Grid& domain) {
  std::string odd;
  for (int d = 0; d < 3; ++d)
    if (s.periodic[d] && domain.cells[d] % 2)
      odd += std::string(odd.empty() ? "" : ", ") + "xyz"[d] + " (" +
             std::to_string(domain.cells[d]) + ")";
  if (s.projection && !odd.empty() &&
      (s.projection_method == Method::mg || s.projection_preconditioner == Preconditioner::mg)) {
    const std::string why =
        "multigrid needs an even number of nodes along a periodic axis: " + odd +
        " in grid.cells = " + domain.cells_text();
    if (s.projection_method == Method::mg) ss.fail("method", "\"mg\": " + why);
    if (ss.has("preconditioner")) ss.fail("preconditioner", "\"mg\": " + why);
    s.projection_preconditioner = Preconditioner::jacobi;
    s.notes.push_back("solver.preconditioner = \"jacobi\", not the default \"mg\": " + why);
  }
}

// An inflow needs an outflow; a duct or parabolic profile needs walls round
// its side.
void check_sides(const Setup& s, const Config::Section& bs) {
  int inflow = -1, outflows = 0;
  for (int sd = 0; sd < 6; ++sd) {
    if (s.side[sd].kind == Kind::inflow && inflow < 0) inflow = sd;
    if (s.side[sd].kind == Kind::outflow) ++outflows;
    // the duct profile spans the side's rectangle between its edges
    const int ax = sd / 2, t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2;
    if (s.side[sd].profile != Profile::uniform && (s.periodic[t1] || s.periodic[t2]))
      bs.fail(
          side_names[ax][sd % 2],
          std::string("a duct or parabolic inflow needs walls on the side's four edges, but the ") +
              side_names[s.periodic[t1] ? t1 : t2][0] + " and " +
              side_names[s.periodic[t1] ? t1 : t2][1] +
              " sides are periodic; use a uniform inflow (velocity = U)");
  }
  if (inflow >= 0 && outflows == 0)
    bs.fail(side_names[inflow / 2][inflow % 2],
            "an inflow needs an outflow side for the fluid to leave by; make one side "
            "{ type = \"outflow\" }");
}

// [numerics], run.divergence_limit and time.dt.  Returns numerics.peclet =
// "warn".
bool read_numerics(Setup& s, Config& c, const Config::Section& ns) {
  s.third = ns.get_choice("substep", {"full", "third"}, "full") == "third";
  // Default Picard, 4 local x 1 global (decision 6, docs/models/split3d.md):
  // as accurate as the authors' relaxed 4 x 2 on every validation case, or
  // more, for half the sweeps; the authors' configuration stays one line away.
  s.update = ns.get_enum<Update>(
      "update", {{"picard", Update::picard}, {"relaxed", Update::relaxed}}, Update::picard);
  s.local_iterations = int(ns.get_int("local_iterations", 4, 1, 1000));
  s.global_iterations = int(ns.get_int("global_iterations", 1, 1, 1000));
  s.change_tolerance = ns.get("change_tolerance", 0.0, Range::at_least(0));
  // One assembly: rows built in the Thomas solve, X in the frame with x and y
  // exchanged (docs/models/split3d.md, "Assembly"); the key that chose among
  // the measured forms is gone.
  if (ns.has("assembly"))
    ns.problem("assembly",
               "was removed: split3d has one assembly (the rows built in the Thomas solve, X "
               "solved with x and y exchanged); delete the key");
  const bool warn_peclet = ns.get_choice("peclet", {"error", "warn"}, "error") == "warn";
  // The bodies' walls: on their nodes (the staircase), or at their true
  // surface in the rows of the nodes beside them (Setup::place_cut_walls).
  s.cut_walls =
      ns.get_choice("body_walls", {"staircase", "interpolated"}, "staircase") == "interpolated";
  s.divergence_limit = c.section("run").get("divergence_limit", 0.01, Range::positive());
  if (!c.section("time").has("dt"))
    c.section("time").fail("dt",
                           "missing; split3d is implicit and steps by a fixed time.dt "
                           "(no adaptive step)");
  return warn_peclet;
}

// Decision 2: central differences keep the rows diagonally dominant for a
// cell Peclet number |u| h / nu <= 2; checked with the largest boundary or
// initial speed and the largest spacing (the worst row).
void check_peclet(Setup& s, const Config::Section& ps, const double (&h)[3], bool warn_peclet) {
  const auto& u0 = s.initial_velocity;
  double umax = std::sqrt(u0[0] * u0[0] + u0[1] * u0[1] + u0[2] * u0[2]);
  for (const auto& b : s.side) {
    const auto& v = b.velocity;
    umax = std::max({umax, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), b.centre_velocity});
  }
  const double hmax = std::max({h[0], h[1], h[2]});
  const double nu = std::min(1 / s.reynolds, 1 / (s.reynolds * s.prandtl));
  s.peclet = umax * hmax / nu;
  const std::string pe = "cell Peclet number U h / nu = " + number_text(s.peclet) +
                         " (U = " + number_text(umax) +
                         ", the largest boundary or initial speed; h = " + number_text(hmax) +
                         ", the largest node spacing; nu = " + number_text(nu) +
                         ", the smaller of 1/Re and 1/(Re Pr))";
  if (s.peclet > 2 && !warn_peclet)
    ps.fail("reynolds", pe +
                            " exceeds 2: the central scheme's rows are not diagonally dominant; "
                            "refine grid.cells to h <= " +
                            number_text(2 * nu / std::max(umax, 1e-300)) +
                            ", lower physics.reynolds, or set numerics.peclet = \"warn\"");
  if (s.peclet > 2)
    s.notes.push_back("warning: " + pe +
                      " exceeds 2 (numerics.peclet = \"warn\"): rows may "
                      "lose diagonal dominance");
  else
    s.notes.push_back(pe);
}

// The notes on the projection and the iterations, and the memory a node.
void describe(Setup& s, Config& c) {
  // Float: the projection is solved in double (its residual in float stalls
  // near eps (n + 1)^2: docs/models/split3d.md, "Float and the projection").
  const bool single =
      c.section("run").get_choice("precision", {"double", "float", "float16s", "float16c"},
                                  "double") != "double";
  if (s.projection)
    s.notes.push_back(
        std::string(s.incremental ? "projection (incremental): -grad phi before each step, "
                                    "after it lap dphi = div u / dt by "
                                  : "projection: after each step, lap phi = div u / dt by ") +
        std::string(s.projection_method == Method::kk_cg ? "CG over Kokkos Kernels + Jacobi"
                    : s.projection_method == Method::kk_gmres
                        ? "GMRES(" + std::to_string(s.projection_restart) +
                              ") over Kokkos Kernels + Jacobi"
                    : s.projection_method == Method::mg ? "multigrid " + linalg::describe(s.mg)
                    : s.projection_preconditioner == Preconditioner::mg
                        ? "CG + multigrid " + linalg::describe(s.mg)
                        : "CG + Jacobi") +
        " to " + number_text(s.projection_tolerance) + (single ? " in double" : "") +
        (s.incremental ? ", u -= dt grad dphi, phi += dphi (approximate: "
                       : ", u -= dt grad phi (approximate: ") +
        "central differences on the nodes)");
  s.notes.push_back(std::string("tau = ") + (s.third ? "dt / 3" : "dt") + " per direction, " +
                    std::to_string(s.local_iterations) + " local x " +
                    std::to_string(s.global_iterations) + " global iterations, update " +
                    (s.update == Update::picard ? "picard" : "relaxed"));
  // Values a node: the state, the nonlinear layer and two outputs (4 each) and
  // the divergence field; Thomas' c' (4, GPUs: a line's c' per thread); z' of
  // the cyclic lines where an axis is periodic (4); X in the exchanged frame:
  // its input, layer and output (4 each).  The projection (in double: twice a
  // float's bytes): phi, its right-hand side, 7 coefficients and CG's 8
  // fields; multigrid's levels about 2 more (an eighth, a 64th ... of x, b, r
  // and 7 coefficients, and its work fields).
  const double wide = single ? 2 : 1;
  const bool mg =
      s.projection_method == Method::mg || s.projection_preconditioner == Preconditioner::mg;
  const bool cyclic = s.periodic[0] || s.periodic[1] || s.periodic[2];
  // (interpolated walls: 6 floats and 2 bytes a node, about 4 values)
  s.values_per_cell = 21 + (cyclic ? 4 : 0) + 12 + (s.cut_walls ? 4 : 0) +
                      (s.projection ? wide * (17 + s.incremental + (mg ? 2 : 0)) : 0);
  s.saved_values_per_cell = 4 + (s.projection ? wide : 0);
}

std::unique_ptr<ModelSetup> parse(Config& c) {
  auto s = std::make_unique<Setup>();
  const auto gs = c.section("grid");
  const linalg::Grid domain = parse_grid(gs, 3, 3, "[nx, ny, nz] (interior nodes)");
  const auto ps = c.section("physics");
  const auto ss = c.section("solver");
  read_physics(*s, ps, ss);
  const auto is = c.section("initial");
  const auto u0 = is.get_numbers("velocity", 3, 3, {0, 0, 0});
  s->initial_velocity = {u0[0], u0[1], u0[2]};
  s->initial_temperature = is.get("temperature", 1.0);

  const auto bs = c.section("boundary");
  // parse_sides: periodic sides in pairs, else an error naming the side
  s->periodic = parse_sides(bs, 3, [&](const std::string&, int a, int side) {
    s->side[2 * a + side] = parse_side(bs, a, side, domain, s->initial_temperature);
    return s->side[2 * a + side].kind == Kind::periodic;
  });

  double h[3];
  place_nodes(*s, domain, h);
  check_multigrid_pairs(*s, ss, domain);
  check_sides(*s, bs);
  parse_bodies(c, *s, domain);
  const bool warn_peclet = read_numerics(*s, c, c.section("numerics"));
  check_peclet(*s, ps, h, warn_peclet);
  describe(*s, c);
  return s;
}

}  // namespace

void initial_state(const Setup& s, std::vector<double> (&q)[4]) {
  const int e[3] = {s.nodes.cells[0] + 2, s.nodes.cells[1] + 2, s.nodes.cells[2] + 2};
  const std::size_t n = std::size_t(e[0]) * e[1] * e[2];
  for (int c = 0; c < 3; ++c) q[c].assign(n, s.initial_velocity[c]);
  q[3].assign(n, s.initial_temperature);
  double h[3];
  for (int d = 0; d < 3; ++d) h[d] = s.nodes.spacing(d);
  // Faces in turn: inflows and moving walls, then walls at rest (which win
  // the edges they share); outflow faces keep the initial values.
  for (int pass = 0; pass < 2; ++pass)
    for (int sd = 0; sd < 6; ++sd) {
      const Side& b = s.side[sd];
      if (b.kind == Kind::outflow || b.kind == Kind::periodic) continue;
      const bool rest = b.kind == Kind::wall && b.velocity == std::array<double, 3>{0, 0, 0};
      if (rest != (pass == 1)) continue;
      const int ax = sd / 2, t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2;
      const int at = sd % 2 ? e[ax] - 1 : 0;
      // duct profile: half-widths and centre of the side in t1, t2
      const double a = 0.5 * (e[t1] - 1) * h[t1], bw = 0.5 * (e[t2] - 1) * h[t2];
      const double scale = b.profile == Profile::duct
                               ? b.centre_velocity / exact::duct_velocity(0, 0, a, bw, 1, 1)
                               : 0;
      for (int j = 0; j < e[t2]; ++j)
        for (int i = 0; i < e[t1]; ++i) {
          int x[3];
          x[ax] = at, x[t1] = i, x[t2] = j;
          const std::size_t m = x[0] + std::size_t(e[0]) * (x[1] + std::size_t(e[1]) * x[2]);
          std::array<double, 3> v = b.velocity;
          if (b.profile != Profile::uniform) {
            const double y = i * h[t1] - a, z = j * h[t2] - bw;
            const bool edge = i == 0 || j == 0 || i == e[t1] - 1 || j == e[t2] - 1;
            // parabolic: s (1 - s) = (a^2 - y^2) / (4 a^2) with s = (y + a) / 2a
            const double u =
                b.profile == Profile::duct
                    ? scale * exact::duct_velocity(y, z, a, bw, 1, 1)
                    : b.centre_velocity * (1 - y * y / (a * a)) * (1 - z * z / (bw * bw));
            v = {0, 0, 0};
            v[ax] = (sd % 2 ? -1 : 1) * (edge ? 0 : u);
          }
          for (int c = 0; c < 3; ++c) q[c][m] = v[c];
          if (!b.adiabatic) q[3][m] = b.temperature;
        }
    }
  // Bodies: at rest, at their temperature (the first body listed holding a
  // node; an adiabatic one: the initial temperature, which its fluid
  // neighbours replace in the first sweeps).
  for (std::size_t m = 0; m < s.solid.size(); ++m) {
    if (!s.solid[m]) continue;
    for (int c = 0; c < 3; ++c) q[c][m] = 0;
    const auto& b = s.body_heat[std::size_t(s.solid_body[m] - 1)];
    q[3][m] = b.adiabatic ? s.initial_temperature : b.temperature;
  }
  // Periodic axes: ghosts 0 and n + 1 copy nodes n and 1 (axis by axis).
  for (int d = 0; d < 3; ++d) {
    if (!s.periodic[d]) continue;
    const std::size_t st[3] = {1, std::size_t(e[0]), std::size_t(e[0]) * e[1]};
    for (std::size_t m = 0; m < n; ++m) {
      const int xd = int(m / st[d] % e[d]);
      if (xd != 0 && xd != e[d] - 1) continue;
      const std::size_t from = xd == 0 ? m + (e[d] - 2) * st[d] : m - (e[d] - 2) * st[d];
      for (int c = 0; c < 4; ++c) q[c][m] = q[c][from];
    }
  }
}

KFLOW_REGISTER_MODEL((ModelInfo{
    "split3d",
    "3D Navier-Stokes (the paper's low-Mach gas: pressure = temperature) by coordinate "
    "splitting, X/Y/Z implicit lines through linalg's batched Tridiag, local and global "
    "nonlinear iterations (Berezin, Paskonov & Sakharnykh 2012)",
    parse,
    // The bench times the authors' configuration (relaxed, 4 local x 2 global
    // iterations: the paper's Table 1 and their code), not the run default.
    R"(
[case]
model = "split3d"
[grid]
cells = [63, 63, 63]
[physics]
reynolds = 100.0
[numerics]
update = "relaxed"
local_iterations = 4
global_iterations = 2
[boundary]
top = { type = "moving_wall", velocity = [1.0, 0.0, 0.0] }
[time]
steps = 5
dt = 0.01
[output]
log_every = 1000000
)"}))

}  // namespace kflow::split3d
