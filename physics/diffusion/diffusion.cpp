// physics/diffusion: case parsing and registration.  The Kokkos code is in
// diffusion_impl.hpp, instantiated once per (backend, precision) by CMake.

#include "diffusion.hpp"

#include <cmath>

#include "kflow/core/registry.hpp"

namespace kflow::diffusion {

namespace {

const char* const axis_sides[3][2] = {{"west", "east"}, {"south", "north"}, {"bottom", "top"}};
const double pi = 3.14159265358979323846;

std::unique_ptr<ModelSetup> parse(Config& c) {
  auto s = std::make_unique<Setup>();
  auto& g = s->grid;
  const auto gs = c.section("grid");
  if (!gs.has("cells")) gs.fail("cells", "missing; expected [nx, ny] or [nx, ny, nz]");
  const auto cells = gs.get_ints("cells", 2, 3, 2, 1 << 20, {});
  g.dim = static_cast<int>(cells.size());
  const auto length = gs.get_numbers("length", g.dim, g.dim, std::vector<double>(g.dim, 1.0));
  const auto origin = gs.get_numbers("origin", g.dim, g.dim, std::vector<double>(g.dim, 0.0));
  for (int d = 0; d < g.dim; ++d) {
    g.cells[d] = static_cast<int>(cells[d]);
    if (!(length[d] > 0)) gs.fail("length", "expected positive lengths");
    g.length[d] = length[d];
    g.origin[d] = origin[d];
  }
  if (double(g.interior_cells()) > 4e9) gs.fail("cells", "more than 4e9 cells");
  s->fields = {"u"};

  s->kappa = c.section("physics").get("diffusivity", 1.0, 0.0, 1e308, true);

  const auto bs = c.section("boundary");
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      const std::string key = axis_sides[d][side];
      if (d >= g.dim) {
        if (bs.has(key))
          bs.fail(key, "a 2D case has no " + key + " side (only west, east, south, north)");
        continue;
      }
      const auto kind = bs.get_kind(key, {"dirichlet", "neumann", "periodic"}, "dirichlet");
      s->bc[d][side] = kind == "dirichlet" ? Bc::dirichlet
                       : kind == "neumann" ? Bc::neumann
                                           : Bc::periodic;
      s->bc_value[d][side] = bs.section(key).get("value", 0.0);
      if (kind == "periodic" && bs.section(key).has("value"))
        bs.fail(key + ".value", "a periodic side takes no value");
    }
  for (int d = 0; d < g.dim; ++d)
    if ((s->bc[d][0] == Bc::periodic) != (s->bc[d][1] == Bc::periodic))
      bs.fail(axis_sides[d][s->bc[d][0] == Bc::periodic ? 1 : 0],
              std::string("'") + axis_sides[d][s->bc[d][0] == Bc::periodic ? 0 : 1] +
                  "' is periodic, so its partner must be periodic too");

  const auto is = c.section("initial");
  s->initial = is.get_choice("type", {"sine_mode", "constant"}, "sine_mode");
  if (s->initial == "constant") {
    s->constant = is.get("value", 0.0);
  } else {
    s->amplitude = is.get("amplitude", 1.0);
    const auto modes =
        is.get_ints("modes", g.dim, g.dim, 1, 1 << 20, std::vector<std::int64_t>(g.dim, 1));
    bool homogeneous = true;
    for (int d = 0; d < g.dim; ++d) {
      const Bc lo = s->bc[d][0], hi = s->bc[d][1];
      const double m = double(modes[d]), L = g.length[d];
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
    s->fields = {"u", "u_exact", "error"};
  }
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
)"}))

}  // namespace kflow::diffusion
