// physics/mac2d: case parsing, geometry (flag field) and registration.  The
// Kokkos code is in mac2d_impl.hpp, instantiated per (backend, precision).

#include "mac2d.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kflow/linalg/stencil.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/case_grid.hpp"
#include "kflow/model/case_solver.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/registry.hpp"
#include "sides.hpp"

namespace kflow::mac2d {

namespace {

namespace mb = linalg::mask_bits;
// Side sd = 2 axis + (0 low, 1 high): west, east, south, north.
const char* side_name(int sd) {
  return kflow::side_names[sd / 2][sd % 2];
}

// A side (physics/common/sides.hpp): mac2d's kinds and inflow profiles, an
// inflow with a tangential velocity.
Boundary parse_side(const Config::Section& bs, int axis, int high, const linalg::Grid& g) {
  using K = sides::Kind;
  using P = sides::Profile;
  sides::Rules rules;
  rules.kinds = {K::no_slip, K::free_slip, K::moving_wall, K::inflow, K::outflow, K::periodic};
  rules.profiles = {P::uniform, P::parabolic, P::table};
  rules.inflow_tangential = true;
  const auto r = sides::read(bs, axis, high, g, rules);
  Boundary b;
  b.type = r.kind == K::free_slip     ? Bc::free_slip
           : r.kind == K::moving_wall ? Bc::moving_wall
           : r.kind == K::inflow      ? Bc::inflow
           : r.kind == K::outflow     ? Bc::outflow
           : r.kind == K::periodic    ? Bc::periodic
                                      : Bc::no_slip;
  b.profile = r.profile == P::parabolic ? Profile::parabolic
              : r.profile == P::table   ? Profile::table
                                        : Profile::uniform;
  b.tangential = r.tangential, b.normal = r.normal, b.lo = r.lo, b.hi = r.hi;
  b.table_s = r.table_s, b.table_u = r.table_u;
  return b;
}

}  // namespace

// The flag field from the bodies' cells (the book's obstacle cells, Griebel
// et al. 1998, sec. 3.1.3) and the checks that need it, all reported at once.
std::vector<int> Setup::fluid_parts(std::vector<int>& sizes) const {
  const int nx = grid.cells[0], ny = grid.cells[1], ex = nx + 2;
  std::vector<int> part(flags.size(), -1), stack;
  sizes.clear();
  for (int j0 = 1; j0 <= ny; ++j0)
    for (int i0 = 1; i0 <= nx; ++i0) {
      const std::size_t k0 = std::size_t(i0) + std::size_t(ex) * j0;
      if (!(flags[k0] & mb::self) || part[k0] >= 0) continue;
      const int id = int(sizes.size());
      sizes.push_back(0);
      part[k0] = id;
      stack.assign(1, int(k0));
      while (!stack.empty()) {
        const int k = stack.back();
        stack.pop_back();
        ++sizes.back();
        const int i = k % ex, j = k / ex;
        const int nb[4][3] = {{mb::west, i == 1 && periodic_x ? nx : i - 1, j},
                              {mb::east, i == nx && periodic_x ? 1 : i + 1, j},
                              {mb::south, i, j == 1 && periodic_y ? ny : j - 1},
                              {mb::north, i, j == ny && periodic_y ? 1 : j + 1}};
        for (const auto& n : nb)
          if (flags[std::size_t(k)] & n[0]) {
            const std::size_t kn = std::size_t(n[1]) + std::size_t(ex) * n[2];
            if (part[kn] < 0) part[kn] = id, stack.push_back(int(kn));
          }
      }
    }
  return part;
}

void Setup::place_cells(const std::vector<unsigned char>& solid) {
  const auto& g = grid;
  const int nx = g.cells[0], ny = g.cells[1], ex = nx + 2;
  std::vector<char> fluid(std::size_t(ex) * (ny + 2), 0);
  auto at = [&](int i, int j) -> char& {
    return fluid[i + std::size_t(ex) * j];
  };
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i)
      at(i, j) = solid[std::size_t(i - 1) + std::size_t(nx) * (j - 1)] == 0;
  std::string problems;
  auto problem = [&](const std::string& p) {
    problems += "\n  " + p;
  };
  auto body_at = [&](int i, int j) -> std::string {
    const int id = solid[std::size_t(i - 1) + std::size_t(nx) * (j - 1)] - 1;
    for (const auto& b : bodies)
      if (b.id == id) return "[[body]] '" + b.name + "'";
    return "a body";
  };
  auto wrap_i = [&](int i) {
    return periodic_x ? (i < 1 ? nx : i > nx ? 1 : i) : i;
  };
  auto wrap_j = [&](int j) {
    return periodic_y ? (j < 1 ? ny : j > ny ? 1 : j) : j;
  };
  auto is_fluid = [&](int i, int j) {
    return at(wrap_i(i), wrap_j(j)) != 0;
  };

  // Bodies keep off periodic sides (axis a's first and last cells).
  for (int a = 0; a < 2; ++a) {
    if (!(a == 0 ? periodic_x : periodic_y)) continue;
    std::string named;
    for (int k = 1; k <= g.cells[1 - a] && named.empty(); ++k)
      for (int end : {1, g.cells[a]})
        if (!(a == 0 ? at(end, k) : at(k, end))) {
          named = a == 0 ? body_at(end, k) : body_at(k, end);
          break;
        }
    if (!named.empty())
      problem(named + " covers a cell on the periodic sides of " + "xy"[a] +
              " (the first or last cell along " + "xy"[a] +
              "): mac2d's bodies keep off periodic sides");
  }

  // The book's rule: an obstacle cell may not have fluid on two opposite
  // sides (it would be a wall one cell thick, with two different boundary
  // values on one face).  Such cells become fluid, as the book does, repeated
  // until none is left.
  long fixed = 0;
  for (bool again = true; again;) {
    again = false;
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i)
        if (!at(i, j) && ((is_fluid(i - 1, j) && is_fluid(i + 1, j)) ||
                          (is_fluid(i, j - 1) && is_fluid(i, j + 1)))) {
          at(i, j) = 1, again = true, ++fixed;
        }
  }
  if (fixed > 0)
    notes.push_back(std::to_string(fixed) +
                    " body cell(s) had fluid on two opposite sides (a body must be at least "
                    "two cells thick, Griebel et al. 1998, sec. 3.1.3) and were made fluid; "
                    "refine the grid to resolve thin bodies");

  flags.assign(std::size_t(ex) * (ny + 2), 0);
  fluid_cells = 0;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      if (!at(i, j)) continue;
      ++fluid_cells;
      std::uint8_t m = mb::self;
      if ((i > 1 || periodic_x) && is_fluid(i - 1, j)) m |= mb::west;
      if ((i < nx || periodic_x) && is_fluid(i + 1, j)) m |= mb::east;
      if ((j > 1 || periodic_y) && is_fluid(i, j - 1)) m |= mb::south;
      if ((j < ny || periodic_y) && is_fluid(i, j + 1)) m |= mb::north;
      flags[i + std::size_t(ex) * j] = m;
    }

  // Connected fluid regions (flood fill over the pressure graph).
  std::vector<int> region_size;
  fluid_parts(region_size);
  const std::size_t regions = region_size.size();
  if (regions > 1)
    problem("the bodies split the fluid into " + std::to_string(regions) +
            " disconnected regions (a closed-off region has no well-posed pressure); remove "
            "or shrink the bodies that close the domain");

  // The inflows' cells: no body on an inflow's open part (where its profile
  // is not 0: it would silently take that part of the inflow away), and,
  // with no outflow (and not periodic), the net inflow through the sides
  // must vanish, or the pressure equation has no solution.
  bool outflow = false;
  double net = 0, total = 0;
  for (int sd = 0; sd < 4; ++sd) {
    const auto& b = side[sd];
    if (b.type == Bc::outflow) outflow = true;
    if (b.type != Bc::inflow) continue;
    const int along = sd < 2 ? 1 : 0, n = g.cells[along];
    bool covered = false;  // (one problem a side)
    for (int k = 1; k <= n; ++k) {
      const int i = sd == 0 ? 1 : sd == 1 ? nx : k, j = sd == 2 ? 1 : sd == 3 ? ny : k;
      const double x = g.centre(along, k - 1), u = inflow_at(b, x);
      if (!at(i, j)) {
        if (u != 0 && !covered)
          problem(body_at(i, j) + " covers the inflow on boundary." + side_name(sd) + " at " +
                  "xy"[along] + " = " + number_text(x) + " (the inflow spans " + number_text(b.lo) +
                  " to " + number_text(b.hi) + "); keep bodies off an inflow's open part");
        covered = covered || u != 0;
        continue;
      }
      net += u * g.spacing(along);
      total += std::fabs(u * g.spacing(along));
    }
  }
  if (!outflow && std::fabs(net) > 1e-12 * std::max(total, 1e-300)) {
    int first = 0;
    while (side[first].type != Bc::inflow) ++first;
    problem(std::string("boundary.") + side_name(first) +
            ": the inflow sides bring a net volume flux of " + number_text(net) +
            " into a domain with no outflow side: the pressure equation has no solution "
            "(incompressible fluid); add an outflow side or balance the inflows");
  }
  project_rhs = outflow;
  if (!problems.empty()) throw Error("mac2d cannot run this case's geometry:" + problems);
  if (walls == Walls::interpolated && !bodies.empty()) place_walls();
  place_probes();
  place_force_box();
}

namespace {

// [physics] and the scheme's choices in [numerics].
void read_physics(Setup& s, Config& c) {
  const auto ps = c.section("physics");
  s.re = ps.require("reynolds", Range::positive());
  s.gamma = ps.get("gamma", 0.9, Range::between(0, 1));
  s.convection = c.section("numerics")
                     .get_enum<Convection>("convection",
                                           {{"blend", Convection::blend}, {"tvd", Convection::tvd}},
                                           Convection::blend);
  s.walls =
      c.section("numerics")
          .get_enum<Walls>("body_walls",
                           {{"staircase", Walls::staircase}, {"interpolated", Walls::interpolated}},
                           Walls::staircase);
  if (s.convection == Convection::tvd && ps.has("gamma"))
    s.notes.push_back("physics.gamma = " + number_text(s.gamma) +
                      " is the blend's donor-cell share; numerics.convection = \"tvd\" does "
                      "not use it");
  const auto gravity = ps.get_numbers("gravity", 2, 2, {0.0, 0.0});
  s.gx = gravity[0], s.gy = gravity[1];
}

// [[body]] (kflow::geometry): none on an outflow side; placed (the flag
// field and its checks) in place_cells.
void read_bodies(Setup& s, Config& c) {
  const auto& g = s.grid;
  if (!c.section("").tables("obstacle").empty())
    c.root().fail("obstacle",
                  "mac2d's [[obstacle]] tables are replaced by [[body]] (docs/geometry.md): "
                  "shape = \"circle\", center = [x, y], radius = r; or shape = \"box\", "
                  "min = [x0, y0], max = [x1, y1]; rotate = { degrees = a } and "
                  "shape = \"stl\" also work");
  // (an inflow's open part is checked on the cells, in place_cells: a step
  // may lie beside an inflow over part of its side)
  BodyRules rules;
  for (int sd = 0; sd < 4; ++sd)
    rules.keep_off[std::size_t(sd / 2)][std::size_t(sd % 2)] = s.side[sd].type == Bc::outflow;
  rules.why = "which is an outflow";
  s.bodies = parse_bodies(c, g, rules, s.notes);
}

// [initial].
void read_initial(Setup& s, const Config::Section& is) {
  using Initial = Setup::Initial;
  s.initial = is.get_enum<Initial>(
      "type", {{"uniform", Initial::uniform}, {"taylor_green", Initial::taylor_green}},
      Initial::uniform);
  const auto vel = is.get_numbers("velocity", 2, 2, {0.0, 0.0});
  s.u0 = vel[0], s.v0 = vel[1];
  s.init_box = is.get_numbers("box", 4, 4, {});
  if (s.initial == Initial::taylor_green && (!s.periodic_x || !s.periodic_y))
    is.fail("type", "\"taylor_green\" needs periodic sides in x and y");
}

// [solver.pressure].
void read_pressure_solver(Setup& s, const Config::Section& ss) {
  s.method = read_option(ss, "method", Method::rbsor);
  const bool kk = over_kokkos_kernels(s.method);
  s.omega = ss.get("omega", 1.7, Range::positive().at_most(2));
  if (!(s.omega < 2.0)) ss.fail("omega", "SOR converges only for 0 < omega < 2");
  s.alpha = ss.get("alpha", 0.92, Range::between(0, 1));
  if (!(s.alpha < 1.0)) ss.fail("alpha", "Stone's SIP needs 0 <= alpha < 1");
  s.preconditioner = read_option(ss, "preconditioner", Preconditioner::jacobi);
  if (kk && s.preconditioner == Preconditioner::mg)
    ss.fail("preconditioner", "\"" + std::string(name(s.method)) +
                                  "\" takes \"jacobi\", \"none\" or (kk_gmres) \"ilu\" "
                                  "(multigrid is matrix-free: method = \"cg\")");
  if (s.preconditioner == Preconditioner::ilu && s.method != Method::kk_gmres)
    ss.fail("preconditioner",
            "\"ilu\" (Kokkos Kernels' incomplete LU) preconditions method = \"kk_gmres\" only "
            "(not \"" +
                std::string(name(s.method)) +
                "\"); for the structured operator's own ILU use method = \"sip\"");
  s.restart = int(ss.get_int("restart", 50, 1, 10000));
  s.ilu_level = int(ss.get_int("ilu_level", 0, 0, 16));
  if (s.method == Method::sip && (s.side[0].type == Bc::periodic || s.side[2].type == Bc::periodic))
    ss.fail("method",
            "\"sip\" cannot take periodic sides (the wrap-around breaks its "
            "triangular factors); use \"rbsor\"");
  s.control.tolerance = ss.get("tolerance", 1e-6, Range::at_least(0));
  s.control.max_iterations = int(ss.get_int("max_iterations", 10000, 1, 1 << 30));
  s.control.check_every = int(ss.get_int("check_every", 1, 1, 1 << 20));
  const auto crit = ss.get_choice("criterion", {"residual", "change"}, "residual");
  s.control.criterion = crit == "change" ? linalg::Criterion::change : linalg::Criterion::residual;
  if (s.method == Method::kk_gmres && crit == "change")
    ss.fail("criterion",
            "\"kk_gmres\" stops on \"residual\" only (GMRES minimises the residual; the last "
            "step's change says nothing for it)");
  require_kokkos_kernels(ss, "method", s.method);
  s.first_steps = ss.get_int("first_steps", 0, 0, 1L << 40);
  s.first_iterations = int(ss.get_int("first_iterations", s.control.max_iterations, 1, 1 << 30));
  s.fixed_iterations = s.control.tolerance == 0;
  // Multigrid (method = "mg", or "cg" with preconditioner = "mg").
  s.mg = parse_mg_options(ss, s.method == Method::cg && s.preconditioner == Preconditioner::mg,
                          s.fixed_iterations);
  // A solve stopped by max_iterations: counted (log column unconverged_solves)
  // and warned about, or an error.
  s.unconverged_is_error = ss.get_choice("on_unconverged", {"warn", "error"}, "warn") == "error";
  if (s.first_steps > 0 && !s.fixed_iterations)
    ss.fail("first_steps",
            "first_steps/first_iterations (the paper's cavity protocol) need "
            "tolerance = 0 (a fixed number of iterations per step)");
}

// time.velocity_max, [forces] and [analysis].
void read_analysis(Setup& s, Config& c) {
  const auto& g = s.grid;
  const auto ts = c.section("time");
  s.dt_includes_ghosts =
      ts.get_choice("velocity_max", {"with_ghosts", "interior"}, "with_ghosts") == "with_ghosts";

  const auto fs = c.section("forces");
  s.force_velocity = fs.get("reference_velocity", 0.0, Range::at_least(0));
  s.force_length = fs.get("reference_length", 0.0, Range::at_least(0));
  if ((s.force_velocity > 0) != (s.force_length > 0))
    fs.fail(s.force_velocity > 0 ? "reference_length" : "reference_velocity",
            "give both reference_velocity and reference_length (drag and lift coefficients "
            "c = 2 F / (U^2 L))");

  s.wall_points = c.section("analysis").get_bool("wall_points", false);
  {
    const auto as = c.section("analysis");
    s.probes = as.get_numbers("pressure_probes", 4, 4, {});
    for (std::size_t k = 0; k < s.probes.size(); ++k) {
      const std::size_t d = k % 2;
      if (!(s.probes[k] >= g.origin[d] && s.probes[k] <= g.origin[d] + g.length[d]))
        as.fail("pressure_probes", "point " + std::to_string(k / 2 + 1) +
                                       " lies outside the domain along " + std::string(1, "xy"[d]) +
                                       " (" + number_text(s.probes[k]) + ")");
    }
  }
  s.psi_extrema = c.section("analysis").get_bool("psi_extrema", false);
}

// The memory a cell and the diffusive limit of the step.
void size_and_step(Setup& s) {
  // u, v, p, F, G, rhs and the flags; SIP's five factors and residual, CG's
  // two r, s and w, p and the inverse diagonal (with multigrid: r, two p, q, z)
  // (multigrid: residual, and x, b, r and 5 coefficients on the levels, 1/4 + 1/16 + ...)
  // (kk_cg: 8 vectors of the rows and the CRS matrix, about 8 values' worth;
  // kk_gmres: 5 vectors, the matrix and the restart + 5 Krylov vectors, and
  // ILU(k)'s factors, about 9 values' worth at k = 0)
  s.values_per_cell =
      6.25 +
      (s.method == Method::sip     ? 6
       : s.method == Method::cg    ? 8
       : s.method == Method::mg    ? 3
       : s.method == Method::kk_cg ? 16
       : s.method == Method::kk_gmres
           ? 18 + s.restart + (s.preconditioner == Preconditioner::ilu ? 9 * (1 + s.ilu_level) : 0)
           : 0);
  s.saved_values_per_cell = 3;  // u, v, p
  // the diffusive limit (the convective one needs the velocity field)
  const auto& gr = s.grid;
  s.stable_dt_bound =
      s.re / 2 / (1 / (gr.spacing(0) * gr.spacing(0)) + 1 / (gr.spacing(1) * gr.spacing(1)));
}

std::unique_ptr<ModelSetup> parse(Config& c) {
  auto s = std::make_unique<Setup>();
  auto& g = s->grid;
  const auto gs = c.section("grid");
  g = parse_grid(gs, 2, 2, "[imax, jmax]");
  s->fields = field_names(field_table);
  read_physics(*s, c);
  const auto bs = c.section("boundary");
  const auto periodic = parse_sides(bs, 2, [&](const std::string&, int a, int side) {
    s->side[2 * a + side] = parse_side(bs, a, side, g);
    return s->side[2 * a + side].type == Bc::periodic;
  });
  for (int a = 0; a < 2; ++a) {
    if (periodic[a] && g.cells[a] % 2)
      gs.fail("cells",
              "a periodic direction needs an even number of cells for the red-black "
              "ordering (got " +
                  std::to_string(g.cells[a]) + ")");
  }
  s->periodic_x = periodic[0];
  s->periodic_y = periodic[1];

  read_bodies(*s, c);
  read_initial(*s, c.section("initial"));
  read_pressure_solver(*s, c.section("solver.pressure"));
  read_analysis(*s, c);
  size_and_step(*s);
  return s;
}

}  // namespace

double inflow_at(const Boundary& b, double s) {
  if (s < b.lo || s > b.hi) return 0;
  if (b.profile == Profile::uniform) return b.normal;
  if (b.profile == Profile::parabolic) {
    const double x = (s - b.lo) / (b.hi - b.lo);
    return 4 * b.normal * x * (1 - x);
  }
  const auto& S = b.table_s;
  const auto& U = b.table_u;
  if (s <= S.front()) return U.front();
  if (s >= S.back()) return U.back();
  const auto k = std::upper_bound(S.begin(), S.end(), s) - S.begin();
  const double w = (s - S[k - 1]) / (S[k] - S[k - 1]);
  return (1 - w) * U[k - 1] + w * U[k];
}

KFLOW_REGISTER_MODEL((ModelInfo{
    "mac2d",
    "2D incompressible Navier-Stokes, staggered MAC grid, donor-cell/central blend (gamma), "
    "red-black SOR pressure solve, bodies by flag field (Griebel et al. 1998; Menenguci et al.)",
    parse,
    R"(
[case]
model = "mac2d"
[grid]
cells = [1022, 1022]
[physics]
reynolds = 1000.0
[boundary]
north = { type = "moving_wall", velocity = 1.0 }
[solver.pressure]
tolerance = 0.0
max_iterations = 5
[time]
steps = 200
safety_factor = 0.5
[output]
log_every = 1000000
)"}))

}  // namespace kflow::mac2d
