// physics/vorticity2d: case parsing (grid of nodes, sides, material or
// dimensionless numbers, boundary stream function) and registration.  The
// Kokkos code is in vorticity2d_impl.hpp, instantiated per (backend, precision).

#include "vorticity2d.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "kflow/model/case_grid.hpp"
#include "kflow/model/case_solver.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/registry.hpp"
#include "sides.hpp"

namespace kflow::vorticity2d {

namespace {

const char* side_name(int sd) {
  return kflow::side_names[sd / 2][sd % 2];
}

// Volume flux into the domain through side b from its start s0 to s (exact
// antiderivative of the profile, so that psi closes around the boundary
// exactly when the fluxes balance).
double flux_to(const Boundary& b, double s) {
  if (b.kind != Kind::inflow) return 0;
  const double c = std::clamp(s, b.lo, b.hi), w = b.hi - b.lo;
  if (b.profile == Profile::uniform) return b.normal * (c - b.lo);
  const double x = (c - b.lo) / w;
  return b.normal * w * (2 * x * x - 4.0 / 3.0 * x * x * x);  // integral of 4x(1-x)
}

// A side (physics/common/sides.hpp): walls, an inflow (uniform or
// parabolic), an outflow; temperature = T or adiabatic = true on any side
// (an outflow is adiabatic: it carries the temperature out).
Boundary parse_side(const Config::Section& bs, int axis, int high, const linalg::Grid& domain) {
  using K = sides::Kind;
  sides::Rules rules;
  rules.kinds = {K::no_slip, K::moving_wall, K::inflow, K::outflow};
  rules.profiles = {sides::Profile::uniform, sides::Profile::parabolic};
  rules.thermal = rules.outflow_adiabatic = rules.inflow_adiabatic = true;
  const auto r = sides::read(bs, axis, high, domain, rules);
  Boundary b;
  b.kind = r.kind == K::inflow ? Kind::inflow : r.kind == K::outflow ? Kind::outflow : Kind::wall;
  b.profile = r.profile == sides::Profile::parabolic ? Profile::parabolic : Profile::uniform;
  b.tangential = r.tangential, b.normal = r.normal, b.lo = r.lo, b.hi = r.hi;
  b.thermal = r.fixed ? Thermal::fixed : Thermal::adiabatic;
  b.temperature = r.temperature;
  b.thermal_given = r.fixed || r.adiabatic || r.kind == K::outflow;
  return b;
}

// Material of the thesis (its sec. 5), taken as printed: "water at
// 1 bar, 20 C" with nu = 1000 m^2/s (sic; water has 1e-6) and g = 9.81
// (the thesis gives none).
struct Material {
  double nu = 1000, lambda = 0.597, rho = 1000, cw = 4187, beta = 0.21e-3, g = 9.81;
};

// [grid]: cells = interior nodes; the boundary ring lies at distance h
// outside them: h = L / (n + 1) (the thesis leaves the placement open).
// Returns the domain as the case gives it.
linalg::Grid read_grid(Setup& s, const Config::Section& gs) {
  linalg::Grid domain = parse_grid(gs, 2, 2, "[nx, ny] (interior nodes)");
  const int nx = domain.cells[0], ny = domain.cells[1];
  const double hx = domain.length[0] / (nx + 1), hy = domain.length[1] / (ny + 1);
  auto& nodes = s.nodes;
  nodes = domain;
  nodes.ghost = 1;
  nodes.origin = {domain.origin[0] + 0.5 * hx, domain.origin[1] + 0.5 * hy, 0};
  nodes.length = {nx * hx, ny * hy, 1};
  auto& og = s.grid;  // output: the nodes and the ring, one cell each
  og = domain;
  og.ghost = 0;
  og.cells = {nx + 2, ny + 2, 1};
  og.origin = {domain.origin[0] - 0.5 * hx, domain.origin[1] - 0.5 * hy, 0};
  og.length = {(nx + 2) * hx, (ny + 2) * hy, 1};
  s.fields = field_names(field_table);
  s.notes.push_back(std::to_string(nx) + " x " + std::to_string(ny) +
                    " interior nodes and the boundary ring (h = " + number_text(hx) +
                    (hx == hy ? "" : ", " + number_text(hy)) +
                    "); output cells are centred on the nodes, the ring included");
  if (std::fabs(hx - hy) > 1e-9 * std::max(hx, hy))
    s.notes.push_back("the node spacing differs in x and y (hx = " + number_text(hx) + ", hy = " +
                      number_text(hy) + "); the thesis uses square cells, kflow allows both");
  return domain;
}

// [physics]: dimensionless numbers, or dimensional values (thesis).
// Returns whether buoyancy acts.
bool read_physics(Setup& s, const Config::Section& ps) {
  const bool dimless = ps.has("reynolds") || ps.has("rayleigh") || ps.has("grashof");
  const bool dimensional = ps.has("viscosity") || ps.has("material");
  if (dimless && dimensional)
    ps.fail(ps.has("viscosity") ? "viscosity" : "material",
            "give dimensionless numbers (reynolds, prandtl, rayleigh or grashof) or dimensional "
            "values (viscosity, diffusivity, expansion, gravity, or material), not both");
  if (ps.has("rayleigh") && ps.has("grashof"))
    ps.fail("grashof", "give rayleigh or grashof (Ra = Gr Pr), not both");
  bool buoyant = false;
  double pr = 0;
  if (dimless || !dimensional) {
    if (!dimless)
      ps.fail("reynolds",
              "missing; give reynolds (flow) or rayleigh/grashof with prandtl (natural "
              "convection), or dimensional values (viscosity, ...; material = \"thesis_water\")");
    pr = ps.get("prandtl", 0.71, Range::positive());
    const double ra = ps.has("grashof") ? ps.get("grashof", 0.0, Range::at_least(0)) * pr
                                        : ps.get("rayleigh", 0.0, Range::at_least(0));
    if (ps.has("gravity") && (ps.has("rayleigh") || ps.has("grashof")) &&
        ps.get("gravity", 1.0, Range::at_least(0)) == 0)
      ps.fail("gravity", "a Rayleigh (or Grashof) number needs gravity; it is 0 here");
    if (ps.has("reynolds")) {
      // Scales L, U: nu = 1/Re, kappa = 1/(Re Pr), C = Gr/Re^2 (Gr = Ra/Pr).
      const double re = ps.require("reynolds", Range::positive());
      s.nu = 1 / re;
      s.kappa = 1 / (re * pr);
      s.buoyancy = ra / pr / (re * re);
    } else {
      // Scales L, kappa/L (de Vahl Davis 1983): nu = Pr, kappa = 1, C = Ra Pr.
      s.nu = pr;
      s.kappa = 1;
      s.buoyancy = ra * pr;
    }
    buoyant = ra > 0;
  } else {
    Material m;
    const std::string mat = ps.get_choice("material", {"thesis_water", "none"}, "none");
    const bool thesis = mat == "thesis_water";
    s.nu = thesis ? ps.get("viscosity", m.nu, Range::positive())
                  : ps.require("viscosity", Range::positive());
    if (ps.has("diffusivity")) {
      s.kappa = ps.get("diffusivity", 1.0, Range::positive());
    } else if (thesis || ps.has("conductivity")) {
      const double lambda = ps.get("conductivity", m.lambda, Range::positive());
      const double rho = ps.get("density", m.rho, Range::positive());
      const double cw = ps.get("heat_capacity", m.cw, Range::positive());
      s.kappa = lambda / (rho * cw);  // a = lambda / (rho c_w), thesis eq. (12)
    } else {
      s.kappa = s.nu;
    }
    const double beta = ps.get("expansion", thesis ? m.beta : 0.0, Range::at_least(0));
    const double g = ps.get("gravity", thesis ? m.g : 9.81, Range::at_least(0));
    if (ps.has("expansion") && beta > 0 && g == 0)
      ps.fail("gravity", "buoyancy (expansion > 0) needs gravity; it is 0 here");
    s.buoyancy = beta * g;
    // With a material, buoyancy acts once the temperature equation is on
    // (an isothermal case needs no temperature conditions); an explicit
    // expansion coefficient asks for it.
    buoyant = ps.has("expansion") && s.buoyancy > 0;
  }

  return buoyant;
}

// The temperature equation is solved when anything asks for it: its side
// conditions and initial values.
void read_heat(Setup& s, const Config::Section& bs, const Config::Section& is,
               const Config::Section& ps, bool buoyant, const linalg::Grid& domain) {
  bool any_thermal = false;
  for (const auto& b : s.side)
    if (b.thermal_given && b.kind != Kind::outflow) any_thermal = true;
  s.heat = buoyant || any_thermal || is.has("temperature") || is.has("temperature_left") ||
           ps.has("prandtl") || ps.has("diffusivity") || ps.has("conductivity");
  if (s.heat)
    for (int sd = 0; sd < 4; ++sd)
      if (!s.side[sd].thermal_given)
        bs.fail(side_name(sd),
                std::string("no temperature condition on this side") +
                    (buoyant ? " (buoyancy is on)" : " (the temperature equation is solved)") +
                    ": give { ..., temperature = T } (fixed) or { ..., adiabatic = true }");
  if (!s.heat) s.buoyancy = 0;
  if (s.heat) {
    if (is.has("temperature_left") || is.has("temperature_right")) {
      s.split_initial = true;
      s.t_left = is.require("temperature_left");
      s.t_right = is.require("temperature_right");
      s.split = is.get("split_x", domain.origin[0] + 0.5 * domain.length[0]);
      if (is.has("temperature"))
        is.fail("temperature", "give temperature (uniform) or temperature_left/_right, not both");
    } else {
      if (!is.has("temperature"))
        is.fail("temperature",
                "missing; the temperature equation needs an initial temperature (uniform "
                "temperature = T, or temperature_left, temperature_right and split_x)");
      s.t0 = is.get("temperature", 0.0);
    }
  }
}

// [numerics] and [solver]: the scheme's choices and the solves.
void read_solver(Setup& s, Config& c, int nx, int ny) {
  const auto ns = c.section("numerics");
  s.wall_vorticity = ns.get_enum<WallVorticity>("wall_vorticity",
                                                {{"woods", WallVorticity::woods},
                                                 {"thom", WallVorticity::thom},
                                                 {"thesis", WallVorticity::thesis}},
                                                WallVorticity::woods);
  s.convection = ns.get_enum<Convection>(
      "convection", {{"upwind", Convection::upwind}, {"tvd", Convection::tvd}}, Convection::upwind);

  const auto ss = c.section("solver");
  s.method = read_option(ss, "method", Method::cg,
                         {Method::cg, Method::mg, Method::kk_cg, Method::kk_gmres});
  const bool kk = over_kokkos_kernels(s.method);
  s.preconditioner =
      read_option(ss, "preconditioner", Preconditioner::jacobi,
                  {Preconditioner::jacobi, Preconditioner::none, Preconditioner::mg});
  if (kk && s.preconditioner == Preconditioner::mg)
    ss.fail("preconditioner", "\"" + std::string(name(s.method)) +
                                  "\" (psi over Kokkos Kernels) takes \"jacobi\" or \"none\" "
                                  "(multigrid is matrix-free: method = \"cg\" or \"mg\")");
  s.restart = int(ss.get_int("restart", 50, 1, 10000));
  // The thesis gives no tolerance (1e-9 reproduces the CG iteration counts of
  // its sec. 4.4, bench case); kflow's criterion max |b - A x| / max |b|
  // at 1e-6 moves a steady state by < 1e-8 (docs/models/vorticity2d.md).
  s.control.tolerance = ss.get("tolerance", 1e-6, Range::at_least(0));
  if (c.section("run").get_choice("precision", {"double", "float"}, "double") == "float" &&
      s.control.tolerance > 0 && s.control.tolerance < float_tolerance(nx, ny, true))
    s.notes.push_back("solver.tolerance = " + number_text(s.control.tolerance) +
                      " is below what float reaches on this grid; the solves use at least " +
                      number_text(float_tolerance(nx, ny, true)) + " (psi) and " +
                      number_text(float_tolerance(nx, ny, false)) +
                      " (omega, T): docs/models/vorticity2d.md");
  s.control.max_iterations = int(ss.get_int("max_iterations", 20000, 1, 1 << 30));
  // Multigrid converges in a few cycles (iterations): checked every one.
  const bool mg = s.method == Method::mg || s.preconditioner == Preconditioner::mg;
  s.control.check_every = int(ss.get_int("check_every", mg ? 1 : 10, 1, 1 << 20));
  s.control.criterion = linalg::Criterion::residual;
  s.mg = parse_mg_options(ss, s.method == Method::cg && s.preconditioner == Preconditioner::mg,
                          s.control.tolerance == 0);
  s.unconverged_is_error = ss.get_choice("on_unconverged", {"warn", "error"}, "warn") == "error";
  s.extrapolate_psi =
      ss.get_choice("guess", {"extrapolated", "previous"}, "extrapolated") == "extrapolated";
  require_kokkos_kernels(ss, "method", s.method);
  {
    const std::string jacobi = s.preconditioner == Preconditioner::none ? "CG" : "CG + Jacobi";
    const std::string over_kk =
        s.method == Method::kk_cg ? " over Kokkos Kernels (kk_cg)"
        : s.method == Method::kk_gmres
            ? " over Kokkos Kernels (kk_gmres, restart " + std::to_string(s.restart) + ")"
            : "";
    const std::string psi =
        s.method == Method::mg                   ? "multigrid " + linalg::describe(s.mg)
        : s.preconditioner == Preconditioner::mg ? "CG + multigrid " + linalg::describe(s.mg)
        : s.method == Method::kk_gmres
            ? std::string(s.preconditioner == Preconditioner::none ? "GMRES" : "GMRES + Jacobi") +
                  over_kk
            : jacobi + over_kk;
    s.notes.push_back("solves: psi by " + psi + ", omega" + (s.heat ? " and T" : "") + " by " +
                      jacobi);
  }
}

// Boundary psi: integrate the normal velocity counter-clockwise around the
// boundary (d psi = -(inflow) ds) from the corner after the outflow side
// (or the south-west corner); psi = 0 there.  Mass must balance.
void boundary_psi(Setup& s, const Config::Section& bs, const linalg::Grid& domain, int outflows,
                  int outflow) {
  const int nx = domain.cells[0], ny = domain.cells[1];
  const double hx = domain.length[0] / (nx + 1), hy = domain.length[1] / (ny + 1);
  s.psi_ring.resize(nx, ny);
  auto P = [&](int i, int j) -> double& {
    return s.psi_ring.at(i, j);
  };
  const int ccw[4] = {2, 1, 3, 0};  // south, east, north, west
  double net = 0, total = 0;
  for (int sd = 0; sd < 4; ++sd) {
    const auto& b = s.side[sd];
    const int along = sd < 2 ? 1 : 0;
    const double q =
        flux_to(b, domain.origin[along] + domain.length[along]) - flux_to(b, domain.origin[along]);
    net += q;
    total += std::fabs(q);
  }
  if (outflows == 0 && std::fabs(net) > 1e-10 * std::max(total, 1e-300)) {
    int first = 0;
    while (s.side[first].kind != Kind::inflow) ++first;
    bs.fail(side_name(first),
            "the prescribed velocities bring a net volume flux of " + number_text(net) +
                " into the domain (mass is not conserved: psi cannot close around the "
                "boundary); balance the inflows or make one side an outflow");
  }
  int start = 0;
  for (int k = 0; k < 4; ++k)
    if (ccw[k] == outflow) start = (k + 1) % 4;
  double corner = 0;
  for (int m = 0; m < 4; ++m) {
    const int sd = ccw[(start + m) % 4];
    const auto& b = s.side[sd];
    const int along = sd < 2 ? 1 : 0;
    const int n = along == 0 ? nx : ny;
    const double h = along == 0 ? hx : hy, s0 = domain.origin[along];
    const bool forward = sd == 2 || sd == 1;  // south and east run in +x, +y
    auto node = [&](int k) -> double& {
      return sd == 2 ? P(k, 0) : sd == 3 ? P(k, ny + 1) : sd == 0 ? P(0, k) : P(nx + 1, k);
    };
    const double f0 = flux_to(b, s0), f1 = flux_to(b, s0 + (n + 1) * h);
    if (b.kind == Kind::outflow) continue;  // filled below
    for (int k = 0; k <= n + 1; ++k) {
      const double f = flux_to(b, s0 + k * h);
      node(k) = forward ? corner - (f - f0) : corner - (f1 - f);
    }
    corner -= f1 - f0;
  }
  if (outflow >= 0) {  // initial guess on the open side: linear between its corners
    const int along = outflow < 2 ? 1 : 0, n = along == 0 ? nx : ny;
    for (int k = 1; k <= n; ++k) {
      const double w = double(k) / (n + 1);
      if (outflow == 0) P(0, k) = (1 - w) * P(0, 0) + w * P(0, ny + 1);
      if (outflow == 1) P(nx + 1, k) = (1 - w) * P(nx + 1, 0) + w * P(nx + 1, ny + 1);
      if (outflow == 2) P(k, 0) = (1 - w) * P(0, 0) + w * P(nx + 1, 0);
      if (outflow == 3) P(k, ny + 1) = (1 - w) * P(0, ny + 1) + w * P(nx + 1, ny + 1);
    }
  }
  // d psi / dn (inward) on each side: the tangential velocity, signed
  // (south u, north -u, west -v, east v); 0 on inflows.
  for (int sd = 0; sd < 4; ++sd) {
    const int n = sd < 2 ? ny : nx;
    const double sign = (sd == 2 || sd == 1) ? 1.0 : -1.0;
    s.psi_normal[sd].assign(n + 2,
                            s.side[sd].kind == Kind::wall ? sign * s.side[sd].tangential : 0.0);
  }
}

// Reference scales, the dimensionless numbers actually run, the memory per
// cell and the stable time step.
void reference_scales(Setup& s, const Config::Section& ps, const linalg::Grid& domain) {
  const int nx = domain.cells[0], ny = domain.cells[1];
  const double hx = domain.length[0] / (nx + 1), hy = domain.length[1] / (ny + 1);
  double umax = 0;
  for (const auto& b : s.side)
    umax = std::max({umax, std::fabs(b.tangential), std::fabs(b.normal)});
  double tmin = std::numeric_limits<double>::infinity(), tmax = -tmin;
  auto temp = [&](double t) {
    tmin = std::min(tmin, t), tmax = std::max(tmax, t);
  };
  if (s.heat) {
    for (const auto& b : s.side)
      if (b.thermal == Thermal::fixed && b.kind != Kind::outflow) temp(b.temperature);
    if (s.split_initial)
      temp(s.t_left), temp(s.t_right);
    else
      temp(s.t0);
  }
  s.ref_dt = s.heat ? tmax - tmin : 0;
  s.ref_velocity = umax;
  s.ref_length = ps.get("reference_length", domain.length[1], Range::positive());
  const double L = s.ref_length;
  s.velocity_scale = L / s.kappa;
  auto& nb = s.numbers;
  if (umax > 0) nb.emplace_back("reynolds", umax * L / s.nu);
  if (s.heat) {
    nb.emplace_back("prandtl", s.nu / s.kappa);
    if (s.buoyancy > 0) {
      const double gr = s.buoyancy * s.ref_dt * L * L * L / (s.nu * s.nu);
      nb.emplace_back("grashof", gr);
      nb.emplace_back("rayleigh", gr * s.nu / s.kappa);
    }
  }
  std::string line = "dimensionless numbers run (L = " + number_text(L) +
                     ", U = " + number_text(umax) + ", delta T = " + number_text(s.ref_dt) + "):";
  for (const auto& [k, v] : nb) line += " " + k + " = " + number_text(v);
  if (nb.empty()) line += " none (fluid at rest, no buoyancy)";
  s.notes.push_back(line);

  // psi, omega, T, three right-hand sides; CG's two r, s and w, p and the
  // inverse diagonal per solve.  psi over Kokkos Kernels instead of CG:
  // kk_cg 8 vectors of the rows and the CRS matrix (about 8 values' worth),
  // kk_gmres 5 vectors, the matrix and restart + 5 Krylov vectors.
  s.values_per_cell = 6 + 24 +
                      (s.method == Method::kk_cg      ? 16 - 8
                       : s.method == Method::kk_gmres ? 18 + s.restart - 8
                                                      : 0);
  s.saved_values_per_cell = 3;
  // Stable explicit step (docs/models/vorticity2d.md): convection dt (|u|/hx +
  // |v|/hy) <= 1 with |u| <= the fastest boundary velocity at the start, and
  // buoyancy dt sqrt(C dT / h) <= 1; the lagged wall vorticity nu dt / h^2 <= c.
  double bound = wall_vorticity_limit(s.wall_vorticity) * std::min(hx * hx, hy * hy) / s.nu;
  if (umax > 0) bound = std::min(bound, 1 / (umax / hx + umax / hy));
  if (s.buoyancy > 0 && s.ref_dt > 0)
    bound = std::min(bound, 1 / std::sqrt(s.buoyancy * s.ref_dt / std::min(hx, hy)));
  s.stable_dt_bound = std::isfinite(bound) ? bound : 0;
}

std::unique_ptr<ModelSetup> parse(Config& c) {
  auto s = std::make_unique<Setup>();
  const linalg::Grid domain = read_grid(*s, c.section("grid"));
  const auto bs = c.section("boundary");
  const auto periodic = parse_sides(bs, 2, [&](const std::string&, int a, int side) {
    s->side[2 * a + side] = parse_side(bs, a, side, domain);
    return false;
  });
  (void)periodic;
  int outflows = 0, outflow = -1;
  for (int sd = 0; sd < 4; ++sd)
    if (s->side[sd].kind == Kind::outflow) ++outflows, outflow = sd;
  if (outflows > 1)
    bs.fail(side_name(outflow),
            "at most one outflow side: psi on the boundary comes from integrating the "
            "prescribed velocities around it, which leaves one side open at most");

  const auto ps = c.section("physics");
  const bool buoyant = read_physics(*s, ps);
  read_heat(*s, bs, c.section("initial"), ps, buoyant, domain);
  read_solver(*s, c, domain.cells[0], domain.cells[1]);
  boundary_psi(*s, bs, domain, outflows, outflow);
  reference_scales(*s, ps, domain);
  return s;
}

}  // namespace

KFLOW_REGISTER_MODEL((ModelInfo{
    "vorticity2d",
    "2D stream function-vorticity with Boussinesq heat transport, IMEX (implicit diffusion), "
    "upwind or TVD convection, three CG solves per step (Baumann & Buran 2010)",
    parse,
    R"(
[case]
model = "vorticity2d"
[grid]
cells = [1022, 1022]
[physics]
rayleigh = 1.0e6
prandtl = 0.71
[boundary]
west = { type = "no_slip", temperature = 0.5 }
east = { type = "no_slip", temperature = -0.5 }
south = { type = "no_slip", adiabatic = true }
north = { type = "no_slip", adiabatic = true }
[initial]
temperature = 0.0
[solver]
tolerance = 1.0e-9
[time]
steps = 20
dt = 1.0e-6
[output]
log_every = 1000000
)"}))

}  // namespace kflow::vorticity2d
