// physics/diffusion: case parsing and registration.  The Kokkos code is in
// diffusion_impl.hpp, instantiated once per (backend, precision) by CMake.

#include "diffusion.hpp"

#include <cmath>

#include "kflow/model/case_grid.hpp"
#include "kflow/model/registry.hpp"

namespace kflow::diffusion {

namespace {

const double pi = 3.14159265358979323846;

std::unique_ptr<ModelSetup> parse(Config& c) {
  auto s = std::make_unique<Setup>();
  auto& g = s->grid;
  g = parse_grid(c.section("grid"), 2, 3, "[nx, ny] or [nx, ny, nz]");

  s->kappa = c.section("physics").get("diffusivity", 1.0, Range::positive());

  const auto bs = c.section("boundary");
  parse_sides(bs, g.dim, [&](const std::string& key, int d, int side) {
    const auto kind = bs.get_kind(key, {"dirichlet", "neumann", "periodic"}, "dirichlet");
    s->bc[d][side] = kind == "dirichlet" ? Bc::dirichlet
                     : kind == "neumann" ? Bc::neumann
                                         : Bc::periodic;
    s->bc_value[d][side] = bs.section(key).get("value", 0.0);
    if (kind == "periodic" && bs.section(key).has("value"))
      bs.fail(key + ".value", "a periodic side takes no value");
    return kind == "periodic";
  });

  const auto is = c.section("initial");
  using Initial = Setup::Initial;
  s->initial = is.get_enum<Initial>(
      "type", {{"sine_mode", Initial::sine_mode}, {"constant", Initial::constant}},
      Initial::sine_mode);
  if (s->initial == Initial::constant) {
    s->constant = is.get("value", 0.0);
  } else {
    s->amplitude = is.get("amplitude", 1.0);
    const auto modes =
        is.get_ints("modes", g.dim, g.dim, 1, 1 << 20, std::vector<std::int64_t>(g.dim, 1));
    bool homogeneous = true;
    for (int d = 0; d < g.dim; ++d) {
      const Bc lo = s->bc[d][0], hi = s->bc[d][1];
      const double m = double(modes[d]), L = g.length[d];
      // Resolved: at least two cells per wavelength (periodic: L / m; else 2 L / m).
      const long most = lo == Bc::periodic ? g.cells[d] / 2 : g.cells[d];
      if (modes[d] > most)
        is.fail("modes", "mode " + std::to_string(modes[d]) + " in direction " + std::to_string(d) +
                             " is not resolved by " + std::to_string(g.cells[d]) +
                             " cells (at most " + std::to_string(most) + ")");
      homogeneous = homogeneous && s->bc_value[d][0] == 0 && s->bc_value[d][1] == 0;
      // The Laplacian eigenmode that satisfies this axis' conditions.
      if (lo == Bc::periodic)
        s->mode[d] = {0, 2 * pi * m / L};
      else if (lo == Bc::dirichlet && hi == Bc::dirichlet)
        s->mode[d] = {0, pi * m / L};
      else if (lo == Bc::neumann && hi == Bc::neumann)
        s->mode[d] = {1, pi * m / L};
      else if (lo == Bc::dirichlet)
        s->mode[d] = {0, (m - 0.5) * pi / L};
      else
        s->mode[d] = {1, (m - 0.5) * pi / L};
      s->decay += s->kappa * s->mode[d].k * s->mode[d].k;
    }
    if (!homogeneous)
      is.fail("type",
              "\"sine_mode\" needs homogeneous boundary values (value = 0 on every "
              "Dirichlet and Neumann side); use type = \"constant\" otherwise");
    s->has_exact = true;
  }
  s->fields = field_names(field_table, s->has_exact);
  s->values_per_cell = 2;  // u, u_next
  s->saved_values_per_cell = 1;
  double inv = 0;  // the explicit scheme's limit, as Model::stable_dt
  for (int d = 0; d < g.dim; ++d) inv += 1.0 / (g.spacing(d) * g.spacing(d));
  s->stable_dt_bound = 1.0 / (2.0 * inv) / s->kappa;  // (no overflow to 0 for a huge kappa)
  return s;
}

}  // namespace

KFLOW_REGISTER_MODEL((ModelInfo{
    "diffusion",
    "heat equation u_t = kappa laplace(u), 2D/3D, explicit Euler, second order in space; "
    "Dirichlet/Neumann/periodic sides; exact decaying sine-mode solution",
    parse,
    R"(
[case]
model = "diffusion"
[grid]
cells = [512, 512, 512]
[time]
steps = 100
[output]
log_every = 1000000
)",
    // mpirun -n N kflow run: the same bits as one rank
    ModelInfo::Ranks::several}))

}  // namespace kflow::diffusion
