// physics/lbm: case parsing, unit conversion, stability checks and
// registration.  The Kokkos code is in lbm_impl.hpp, instantiated once per
// (backend, precision) by CMake.

#include "lbm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kflow/model/case_geometry.hpp"
#include "kflow/model/case_grid.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/registry.hpp"
#include "lbm_inflow_table.hpp"

namespace kflow::lbm {

namespace {

// Stability and accuracy thresholds (the checks before the run, docs/models/lbm.md).
constexpr double tau_error = 0.5;       // tau <= 0.5: viscosity <= 0
constexpr double tau_warning = 0.55;    // BGK/TRT near the stability limit
constexpr double mach_error = 0.6;      // Ma = u sqrt(3)
constexpr double mach_warning = 0.3;    // compressibility error ~ Ma^2 ~ 10 %
constexpr double grid_re_error = 30.0;  // u_max / nu_lat
constexpr double grid_re_warning = 10.0;
constexpr double inflow_mach_error = 0.3;  // an inflow's peak, lattice Mach number
constexpr double inflow_mach_note = 0.1;
// tau above these: outside the scheme's range.  Measured in the lid-driven
// cavity (BGK): in 2D (64^2 and 256^2) it diverges from tau = 4.3 on and runs
// at 4.06; in 3D (48^3) it runs at tau = 29 and diverges at 1440.  At large
// tau the viscosity is not the one asked for either (the periodic
// Taylor-Green vortex decays slower at tau = 96 than at 20).
constexpr double tau_high_error_2d = 4.0, tau_high_error_3d = 25.0;

// [grid]: square cells, walls halfway outside the first and last cells.
void read_grid(Setup& s, const Config::Section& gs) {
  auto& g = s.grid;
  g = parse_grid(gs, 2, 3, "[nx, ny] or [nx, ny, nz]");
  g.ghost = 0;  // walls lie halfway outside the first and last cells
  s.dx = g.spacing(0);
  for (int d = 1; d < g.dim; ++d)
    if (std::abs(g.spacing(d) - s.dx) > 1e-9 * s.dx)
      gs.fail("length", "the lattice needs square cells: length/cells is " + number_text(s.dx) +
                            " along x but " + number_text(g.spacing(d)) + " along axis " +
                            std::to_string(d));
}

// [lattice]: the stencil, the collision and the streaming.
void read_lattice(Setup& s, const Config::Section& ls) {
  const int dim = s.grid.dim;
  const auto stencil =
      ls.get_choice("stencil", {"D2Q9", "D3Q19", "D3Q27"}, dim == 2 ? "D2Q9" : "D3Q19");
  s.stencil = stencil == "D2Q9"    ? Stencil::d2q9
              : stencil == "D3Q19" ? Stencil::d3q19
                                   : Stencil::d3q27;
  if ((dim == 2) != (s.stencil == Stencil::d2q9))
    ls.fail("stencil", "a " + std::to_string(dim) + "D grid needs " +
                           (dim == 2 ? "D2Q9" : "D3Q19 or D3Q27") + ", not " + stencil);
  s.trt = ls.get_choice("collision", {"bgk", "trt"}, "bgk") == "trt";
  s.magic = ls.get("magic", 3.0 / 16.0, Range::positive().at_most(1e3));
  if (!s.trt && ls.has("magic"))
    ls.fail("magic", "the magic parameter belongs to collision = \"trt\"");
  s.in_place = ls.get_choice("streaming", {"two_grid", "in_place"}, "two_grid") == "in_place";
  if (ls.has("velocity") && ls.has("tau"))
    ls.fail("tau", "give either lattice.velocity or lattice.tau, not both");
}

// [physics]: the Reynolds number, its velocity and length, the body force.
void read_physics(Setup& s, const Config::Section& ps) {
  const auto& g = s.grid;
  s.reynolds = ps.require("reynolds", Range::positive().at_most(1e12));
  s.velocity = ps.get("velocity", 1.0, Range::positive());
  s.length = ps.get("length", g.length[g.dim >= 2 ? 1 : 0], Range::positive());
  s.viscosity = s.velocity * s.length / s.reynolds;
  const auto f = ps.get_numbers("body_force", g.dim, g.dim, std::vector<double>(g.dim, 0.0));
  for (int d = 0; d < g.dim; ++d) s.force[d] = f[d];
}

// Lattice units from lattice.tau or lattice.velocity: the lattice
// viscosity and speed, the step, the relaxation rates, the body force.
void to_lattice_units(Setup& s, const Config::Section& ls) {
  const double n_l = s.length / s.dx;  // the characteristic length in cells
  if (ls.has("tau")) {
    s.tau = ls.require("tau", Range::positive().at_most(1e6));
    if (!(s.tau > tau_error))
      ls.fail("tau", "tau = " + number_text(s.tau) +
                         " gives a lattice viscosity (tau - 0.5) / 3 <= 0: BGK needs tau > 0.5");
    s.nu_lat = (s.tau - 0.5) / 3.0;
    s.u_lat = s.reynolds * s.nu_lat / n_l;
  } else {
    s.u_lat = ls.get("velocity", 0.1, Range::positive().at_most(1));
    s.nu_lat = s.u_lat * n_l / s.reynolds;
    s.tau = 0.5 + 3.0 * s.nu_lat;
  }
  s.dt = s.u_lat * s.dx / s.velocity;
  s.omega_plus = 1.0 / s.tau;
  s.omega_minus = s.trt ? 1.0 / (s.magic / (s.tau - 0.5) + 0.5) : s.omega_plus;
  for (int d = 0; d < s.grid.dim; ++d) s.force_lat[d] = s.force[d] * s.dt * s.dt / s.dx;
}

// What the sides set that the checks after them need: the largest lattice
// speed (the lattice velocity, a moving wall's, an inflow's) and an
// inflow's peak; whether there is an inflow and an outflow.
struct Sides {
  double u_max = 0, u_inflow = 0;
  bool inflows = false, outflows = false;
};

// A moving side's velocity (a wall's or an inflow's), physical and in
// lattice units; its lattice speed, which also bounds u_max.
double set_wall(Setup& s, Sides& sides, int d, int side, const std::vector<double>& v) {
  double sq = 0;
  for (int e = 0; e < s.grid.dim; ++e) {
    s.wall_velocity[d][side][e] = v[std::size_t(e)];
    s.wall_lat[d][side][e] = v[std::size_t(e)] * s.dt / s.dx;
    sq += s.wall_lat[d][side][e] * s.wall_lat[d][side][e];
  }
  sides.u_max = std::max(sides.u_max, std::sqrt(sq));
  return std::sqrt(sq);
}

// A table inflow (lbm_inflow_table.hpp): its samples; returns the fastest
// one (the Mach number's check).
std::vector<double> read_inflow_table(Setup& s, const Config& c, const Config::Section& bs,
                                      const Config::Section& side_s, const std::string& key, int d,
                                      int side) {
  const auto& g = s.grid;
  s.profile[d][side] = Profile::table;
  for (const char* k : {"velocity", "max_velocity"})
    if (side_s.has(k))
      bs.fail(key + "." + k, "a table inflow takes its velocity from the table's file");
  auto& t = s.table[d][side];
  t = inflow_table(side_s, c.directory(), g, d, side);
  std::vector<double> peak(std::size_t(g.dim), 0.0);
  double most = 0;
  for (std::size_t k = 0; k + 2 < t.size(); k += 3) {
    const double sq = t[k] * t[k] + t[k + 1] * t[k + 1] + t[k + 2] * t[k + 2];
    if (sq > most)
      for (int e = 0; e < g.dim; ++e) peak[std::size_t(e)] = t[k + std::size_t(e)], most = sq;
  }
  return peak;
}

// An inflow side: its profile (uniform, parabolic or table) and velocity,
// and the ramp every inflow shares.
void read_inflow(Setup& s, Sides& sides, const Config& c, const Config::Section& bs,
                 const Config::Section& side_s, const std::string& key, int d, int side) {
  const int dim = s.grid.dim;
  sides.inflows = true;
  // Into the domain: +1 on a low side, -1 on a high one.
  const double inward = side ? -1.0 : 1.0;
  const auto profile = side_s.get_choice("profile", {"uniform", "parabolic", "table"}, "uniform");
  std::vector<double> v(std::size_t(dim), 0.0);
  if (profile != "table" && side_s.has("file"))
    bs.fail(key + ".file", "a file belongs to profile = \"table\"");
  if (profile == "table") {
    v = read_inflow_table(s, c, bs, side_s, key, d, side);
  } else if (profile == "parabolic") {
    s.profile[d][side] = Profile::parabolic;
    if (side_s.has("velocity"))
      bs.fail(key + ".velocity",
              "a parabolic inflow takes max_velocity (its peak, normal to "
              "the side), not velocity");
    v[std::size_t(d)] = inward * side_s.require("max_velocity", Range::positive());
  } else {
    if (side_s.has("max_velocity"))
      bs.fail(key + ".max_velocity",
              "max_velocity belongs to profile = \"parabolic\"; a "
              "uniform inflow takes velocity = [...]");
    v = side_s.get_numbers("velocity", dim, dim, {});
    if (v.empty()) bs.fail(key + ".velocity", "missing; a uniform inflow needs its velocity");
    if (!(v[std::size_t(d)] * inward > 0))
      bs.fail(key + ".velocity", "an inflow's velocity must point into the domain: component " +
                                     std::to_string(d) + " must be " +
                                     (side ? "negative" : "positive") + ", got " +
                                     number_text(v[std::size_t(d)]));
  }
  const double ramp = side_s.get("ramp_time", 0.0, Range::at_least(0));
  if (ramp > 0 && s.ramp_time > 0 && ramp != s.ramp_time)
    bs.fail(key + ".ramp_time", "every inflow rises over the same ramp_time (" +
                                    number_text(s.ramp_time) + " on another side)");
  if (ramp > 0) s.ramp_time = ramp;
  sides.u_inflow = std::max(sides.u_inflow, set_wall(s, sides, d, side, v));
}

// An outflow side: its pressure and condition.
void read_outflow(Setup& s, Sides& sides, const Config::Section& bs, const Config::Section& side_s,
                  const std::string& key, int d, int side) {
  const auto& g = s.grid;
  sides.outflows = true;
  const double p = side_s.get("pressure", 0.0);
  s.outflow_density[d][side] = 1 + 3 * p * (s.dt / s.dx) * (s.dt / s.dx);
  // condition: "pressure" holds the side's density (anti-bounce-back);
  // "characteristic" carries waves out, relaxing to it at sigma
  // (lbm_outflow.hpp).
  s.outflow[d][side] = side_s.get_enum(
      "condition",
      {{"pressure", OutflowKind::pressure}, {"characteristic", OutflowKind::characteristic}},
      OutflowKind::pressure);
  if (s.outflow[d][side] == OutflowKind::pressure && side_s.has("sigma"))
    bs.fail(key + ".sigma", "sigma belongs to condition = \"characteristic\"");
  if (s.outflow[d][side] == OutflowKind::characteristic) {
    s.outflow_sigma[d][side] = side_s.get("sigma", 0.25, Range::positive().at_most(2));
    if (g.cells[std::size_t(d)] < 3)
      bs.fail(key, "condition = \"characteristic\" needs at least 3 cells across the side (got " +
                       std::to_string(g.cells[std::size_t(d)]) + ")");
  }
  if (side_s.has("velocity")) bs.fail(key + ".velocity", "an outflow side takes no velocity");
}

// A side (kflow::parse_sides): its kind, no key of another kind's, then the
// kind's own keys.  Returns whether it is periodic.
bool read_side(Setup& s, Sides& sides, const Config& c, const Config::Section& bs,
               const std::string& key, int d, int side) {
  const int dim = s.grid.dim;
  const auto kind =
      bs.get_kind(key, {"no_slip", "moving_wall", "periodic", "inflow", "outflow"}, "no_slip");
  s.bc[d][side] = kind == "no_slip"       ? Bc::no_slip
                  : kind == "moving_wall" ? Bc::moving_wall
                  : kind == "inflow"      ? Bc::inflow
                  : kind == "outflow"     ? Bc::outflow
                                          : Bc::periodic;
  const auto side_s = bs.section(key);
  for (const char* k : {"condition", "sigma"})
    if (kind != "outflow" && side_s.has(k))
      bs.fail(key + "." + k, std::string("only an outflow side takes ") + k);
  for (const char* k : {"profile", "max_velocity", "ramp_time", "file"})
    if (kind != "inflow" && side_s.has(k))
      bs.fail(key + "." + k, std::string("only an inflow side takes ") + k);
  if (kind != "outflow" && side_s.has("pressure"))
    bs.fail(key + ".pressure", "only an outflow side takes a pressure");
  if (kind == "inflow") {
    read_inflow(s, sides, c, bs, side_s, key, d, side);
    return false;
  }
  if (kind == "outflow") {
    read_outflow(s, sides, bs, side_s, key, d, side);
    return false;
  }
  if (kind == "moving_wall") {
    const auto v = side_s.get_numbers("velocity", dim, dim, {});
    if (v.empty()) bs.fail(key + ".velocity", "missing; a moving wall needs its velocity");
    if (v[d] != 0)
      bs.fail(key + ".velocity",
              "the wall moves in its own plane: the component normal "
              "to the wall must be 0, got " +
                  number_text(v[d]));
    set_wall(s, sides, d, side, v);
  } else if (side_s.has("velocity")) {
    bs.fail(key + ".velocity", "only a moving_wall side takes a velocity");
  }
  return kind == "periodic";
}

// [boundary]: every side; an inflow needs an outflow.
Sides read_boundary(Setup& s, const Config& c, const Config::Section& bs) {
  Sides sides;
  sides.u_max = s.u_lat;
  parse_sides(bs, s.grid.dim, [&](const std::string& key, int d, int side) {
    return read_side(s, sides, c, bs, key, d, side);
  });
  if (sides.inflows && !sides.outflows)
    bs.fail("", "an inflow needs an outflow side for its mass to leave (type = \"outflow\")");
  return sides;
}

// [[body]] (kflow::geometry) and lattice.body_walls: none on an inflow or
// outflow side, at most 250, inside the domain along periodic axes.
void read_bodies(Setup& s, Config& c, const Config::Section& ls) {
  const auto& g = s.grid;
  BodyRules rules;
  for (int d = 0; d < g.dim; ++d)
    for (int side = 0; side < 2; ++side)
      rules.keep_off[std::size_t(d)][std::size_t(side)] =
          s.bc[d][side] == Bc::inflow || s.bc[d][side] == Bc::outflow;
  rules.why = "which is an inflow or an outflow";
  s.bodies = parse_bodies(c, g, rules, s.notes);
  s.walls = ls.get_enum<Walls>(
      "body_walls", {{"interpolated", Walls::interpolated}, {"bounce_back", Walls::bounce_back}},
      Walls::interpolated);
  if (s.bodies.size() > 250)
    c.root().fail("body", "lbm takes at most 250 bodies, got " + std::to_string(s.bodies.size()));
  for (std::size_t b = 0; b < s.bodies.size(); ++b)
    for (int d = 0; d < g.dim; ++d) {
      const auto box = geometry::bounds(s.bodies[b]);
      const double lo = g.origin[std::size_t(d)], hi = lo + g.length[std::size_t(d)];
      if (s.bc[d][0] == Bc::periodic && (box.lo[d] <= lo || box.hi[d] >= hi))
        c.root().fail("body[" + std::to_string(b) + "]",
                      "the body reaches the periodic sides of axis " + std::string(1, "xyz"[d]) +
                          ": lbm's bodies lie inside the domain along periodic axes");
    }
}

// [forces]: the reference values of the coefficients and the moments' points.
void read_forces(Setup& s, const Config::Section& fs) {
  const auto& g = s.grid;
  s.force_velocity = fs.get("reference_velocity", s.velocity, Range::positive());
  s.force_length = fs.get("reference_length", s.length, Range::positive());
  s.force_area = fs.get("reference_area", s.force_length * s.force_length, Range::positive());
  if (g.dim == 2 && fs.has("reference_area"))
    fs.fail("reference_area", "a 2D case's forces are per unit depth: give reference_length");
  if (s.bodies.empty())
    for (const char* k :
         {"reference_velocity", "reference_length", "reference_area", "moment_center"})
      if (fs.has(k)) fs.fail(k, "forces are on bodies; this case has no [[body]]");
  // The moments' point: one for every body, or the centre of each body's
  // bounding box within the domain (a cylinder through it is infinite).
  const auto mc = fs.get_numbers("moment_center", std::size_t(g.dim), std::size_t(g.dim), {});
  for (const auto& b : s.bodies) {
    const auto box = geometry::bounds(b);
    std::array<double, 3> p{};
    for (std::size_t d = 0; d < std::size_t(g.dim); ++d) {
      const double lo = std::max(box.lo[int(d)], g.origin[d]),
                   hi = std::min(box.hi[int(d)], g.origin[d] + g.length[d]);
      p[d] = mc.empty() ? 0.5 * (lo + hi) : mc[d];
    }
    s.moment_centers.push_back(p);
  }
}

// analysis.pressure_probes: two points at cell centres.
void read_probes(Setup& s, const Config::Section& as) {
  const auto& g = s.grid;
  s.probes = as.get_numbers("pressure_probes", std::size_t(2 * g.dim), std::size_t(2 * g.dim), {});
  for (std::size_t k = 0; k < s.probes.size(); ++k) {
    const std::size_t d = k % std::size_t(g.dim);
    if (!(s.probes[k] >= g.origin[d] + 0.5 * s.dx &&
          s.probes[k] <= g.origin[d] + g.length[d] - 0.5 * s.dx))
      as.fail("pressure_probes", "point " + std::to_string(k / std::size_t(g.dim) + 1) +
                                     " lies outside the cell centres along " +
                                     std::string(1, "xyz"[d]) + " (" + number_text(s.probes[k]) +
                                     ")");
  }
}

// [initial]: at rest, or a Taylor-Green vortex (periodic on every axis).
void read_initial(Setup& s, const Config::Section& is) {
  const auto& g = s.grid;
  using Initial = Setup::Initial;
  s.initial = is.get_enum<Initial>(
      "type", {{"rest", Initial::rest}, {"taylor_green", Initial::taylor_green}}, Initial::rest);
  if (s.initial == Initial::taylor_green) {
    const auto m =
        is.get_ints("modes", g.dim, g.dim, 1, 1 << 20, std::vector<std::int64_t>(g.dim, 1));
    for (int d = 0; d < g.dim; ++d) {
      s.tg_modes[d] = static_cast<int>(m[d]);
      if (s.bc[d][0] != Bc::periodic)
        is.fail("type", "the Taylor-Green vortex needs periodic sides on every axis");
    }
  } else if (is.has("modes")) {
    is.fail("modes", "modes belong to type = \"taylor_green\"");
  }
}

// Stability and accuracy checks (thresholds above); errors name the numbers.
void check_stability(Setup& s, const Config::Section& ls, const Config::Section& bs,
                     const Sides& sides) {
  const double n_l = s.length / s.dx;  // the characteristic length in cells
  const double u_max = sides.u_max, u_inflow = sides.u_inflow;
  const double mach = u_max * std::sqrt(3.0), grid_re = u_max / s.nu_lat;
  const std::string numbers = "tau = " + number_text(s.tau) + ", lattice viscosity " +
                              number_text(s.nu_lat) + ", largest lattice speed " +
                              number_text(u_max) + " (Ma = " + number_text(mach) +
                              "), grid Reynolds number u/nu = " + number_text(grid_re) +
                              " (Re = " + number_text(s.reynolds) + ", " + number_text(n_l) +
                              " cells per length " + number_text(s.length) + ")";
  const auto key = ls.has("tau") ? "tau" : "velocity";
  if (!(s.tau > tau_error))
    ls.fail(key, "unstable set-up: tau <= 0.5 (" + numbers + "); use a finer grid or a smaller Re");
  if (const double high = s.grid.dim == 2 ? tau_high_error_2d : tau_high_error_3d; s.tau > high)
    ls.fail(key, "unstable set-up: tau above " + number_text(high) + " in " +
                     std::to_string(s.grid.dim) + "D" +
                     ", where the lattice Boltzmann scheme no longer holds the viscosity asked for "
                     "and bounce-back walls diverge (" +
                     numbers + "); a larger Re, a coarser grid or a smaller lattice.velocity");
  if (mach > mach_error)
    ls.fail(key, "unstable set-up: lattice Mach number above " + number_text(mach_error) + " (" +
                     numbers + "); lower lattice.velocity or the wall speed");
  if (grid_re > grid_re_error)
    ls.fail(key, "unstable set-up: grid Reynolds number above " + number_text(grid_re_error) +
                     " (" + numbers + "); use a finer grid or a larger lattice.velocity");
  if (s.tau < tau_warning)
    s.notes.push_back("tau = " + number_text(s.tau) + " is close to 0.5 (below " +
                      number_text(tau_warning) + "): " + numbers);
  if (mach > mach_warning)
    s.notes.push_back("lattice Mach number " + number_text(mach) + " above " +
                      number_text(mach_warning) + " (compressibility error ~ Ma^2): " + numbers);
  // An inflow's lattice Mach number (its peak): compressibility shows in the
  // forces long before the scheme's limits.
  if (u_inflow * std::sqrt(3.0) > inflow_mach_error)
    bs.fail("", "an inflow at lattice Mach number " + number_text(u_inflow * std::sqrt(3.0)) +
                    " (above " + number_text(inflow_mach_error) + ": " + numbers +
                    "); lower lattice.velocity");
  if (u_inflow * std::sqrt(3.0) > inflow_mach_note)
    s.notes.push_back("inflow at lattice Mach number " + number_text(u_inflow * std::sqrt(3.0)) +
                      " (above " + number_text(inflow_mach_note) +
                      "): the density varies by ~Ma^2 along the flow; a smaller "
                      "lattice.velocity makes it more incompressible");
  if (grid_re > grid_re_warning)
    s.notes.push_back("grid Reynolds number " + number_text(grid_re) + " above " +
                      number_text(grid_re_warning) + " (under-resolved): " + numbers);
}

// The output fields, the memory a cell and the step.
void size_and_step(Setup& s) {
  s.fields = field_names(field_table, s.grid.dim == 3);
  // populations (one set in place, two for two-grid; no ghost layer), a flag
  // byte; ghost layers of the grid description make this an upper bound
  const int q = s.stencil == Stencil::d2q9 ? 9 : s.stencil == Stencil::d3q19 ? 19 : 27;
  // (a checkpoint adds one canonical copy of the populations on the device)
  s.values_per_cell = q * (s.in_place ? 2 : 3) + 0.25;
  s.saved_values_per_cell = q;
  s.fixed_dt = s.dt;  // one lattice step
}

}  // namespace

// In the order of docs/models/lbm.md's keys; every problem is recorded (on
// its key) before the case is refused.
std::unique_ptr<ModelSetup> parse_case(Config& c) {
  auto s = std::make_unique<Setup>();
  read_grid(*s, c.section("grid"));
  const auto ls = c.section("lattice");
  read_lattice(*s, ls);
  read_physics(*s, c.section("physics"));
  to_lattice_units(*s, ls);
  const auto bs = c.section("boundary");
  const Sides sides = read_boundary(*s, c, bs);
  read_bodies(*s, c, ls);
  read_forces(*s, c.section("forces"));
  read_probes(*s, c.section("analysis"));
  read_initial(*s, c.section("initial"));
  check_stability(*s, ls, bs, sides);
  size_and_step(*s);
  return s;
}

KFLOW_REGISTER_MODEL((ModelInfo{
    "lbm",
    "lattice Boltzmann D2Q9/D3Q19/D3Q27, BGK or TRT; bodies with interpolated bounce-back and "
    "forces; halfway bounce-back, moving walls, velocity inflows, pressure and characteristic "
    "outflows, periodic sides, Guo body force; two-grid pull or in-place (AA) streaming",
    parse_case,
    R"(
[case]
model = "lbm"
[grid]
cells = [256, 256, 256]
[lattice]
stencil = "D3Q19"
streaming = "in_place"
[physics]
reynolds = 100.0
[boundary]
top = { type = "moving_wall", velocity = [1.0, 0.0, 0.0] }
[time]
steps = 100
[output]
log_every = 1000000
)",
    // mpirun -n N kflow run, both schemes: the same bits as one rank
    ModelInfo::Ranks::several}))

}  // namespace kflow::lbm
