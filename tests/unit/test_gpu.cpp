// The same case on CUDA and OpenMP from one binary: fields agree to rounding.
// Built only where Kokkos has CUDA.

#include <catch2/catch_test_macros.hpp>

#include <cmath>

#include "helpers.hpp"

using kflow::test::run_text;

namespace {
// Every boundary kind: periodic x, Dirichlet/Neumann y (and Neumann z in 3D).
const char* const case_2d = R"([case]
model = "diffusion"
[grid]
cells = [96, 64]
length = [1.0, 2.0]
[boundary]
west = "periodic"
east = "periodic"
south = "dirichlet"
north = "neumann"
[time]
steps = 100
)";
const char* const case_3d = R"([case]
model = "diffusion"
[grid]
cells = [40, 24, 16]
length = [1.0, 2.0, 1.5]
[boundary]
west = "periodic"
east = "periodic"
south = "dirichlet"
north = "neumann"
bottom = "neumann"
top = "neumann"
[time]
steps = 100
)";
}  // namespace

TEST_CASE("diffusion on cuda and openmp agrees to rounding after 100 steps", "[gpu]") {
  for (const char* toml : {case_2d, case_3d}) {
    const auto gpu = run_text(toml, "", {"run.backend=cuda"}, "", true);
    const auto cpu = run_text(toml, "", {"run.backend=openmp"}, "", true);
    REQUIRE(gpu.steps == 100);
    REQUIRE(gpu.fields.size() == cpu.fields.size());
    // Relative to the solution's magnitude (derived fields such as the error
    // are differences of O(1) values and carry their rounding).
    double scale = 0;
    for (double v : cpu.fields[0].values) scale = std::max(scale, std::fabs(v));
    REQUIRE(cpu.fields[0].name == "u");
    for (std::size_t f = 0; f < gpu.fields.size(); ++f) {
      double diff = 0;
      for (std::size_t i = 0; i < gpu.fields[f].values.size(); ++i)
        diff = std::max(diff, std::fabs(gpu.fields[f].values[i] - cpu.fields[f].values[i]));
      INFO("field " << gpu.fields[f].name << ": max diff " << diff << ", scale " << scale);
      CHECK(diff <= 1e-12 * scale);
    }
  }
}

TEST_CASE("mac2d on cuda and openmp agrees to 1e-10 after 100 steps", "[gpu]") {
  // A cavity with an obstacle, a channel with inflow/outflow and a step, and
  // a periodic Taylor-Green box: every boundary and obstacle kernel runs.
  // Issue #3: same fields to 1e-10 relative in double.
  const char* const cases[] = {R"([case]
model = "mac2d"
[grid]
cells = [96, 80]
[physics]
reynolds = 400.0
[boundary]
north = { type = "moving_wall", velocity = 1.0 }
[[obstacle]]
shape = "circle"
centre = [0.4, 0.45]
radius = 0.12
[solver.pressure]
tolerance = 1e-8
check_every = 5
[time]
steps = 100
safety_factor = 0.5
)",
                               R"([case]
model = "mac2d"
[grid]
cells = [128, 32]
length = [8.0, 1.0]
[physics]
reynolds = 100.0
[boundary]
west = { type = "inflow", profile = "parabolic", max_velocity = 1.5, range = [0.5, 1.0] }
east = "outflow"
[[obstacle]]
shape = "rectangle"
min = [0.0, 0.0]
max = [1.0, 0.5]
[solver.pressure]
tolerance = 1e-6
criterion = "change"
[time]
steps = 100
safety_factor = 0.5
)",
                               R"([case]
model = "mac2d"
[grid]
cells = [64, 64]
length = [6.283185307179586, 6.283185307179586]
[physics]
reynolds = 50.0
[boundary]
west = "periodic"
east = "periodic"
south = "periodic"
north = "periodic"
[initial]
type = "taylor_green"
[solver.pressure]
tolerance = 0.0
max_iterations = 20
[time]
steps = 100
)"};
  for (const char* toml : cases) {
    const auto gpu = run_text(toml, "", {"run.backend=cuda"}, "", true);
    const auto cpu = run_text(toml, "", {"run.backend=openmp"}, "", true);
    REQUIRE(gpu.steps == 100);
    REQUIRE(gpu.fields.size() == cpu.fields.size());
    for (std::size_t f = 0; f < gpu.fields.size(); ++f) {
      // The divergence after correction is the solver's leftover, a
      // difference of O(1) values: it agrees in absolute, not relative, terms.
      if (gpu.fields[f].name == "divergence") continue;
      double diff = 0, scale = 0;
      for (std::size_t i = 0; i < gpu.fields[f].values.size(); ++i) {
        diff = std::max(diff, std::fabs(gpu.fields[f].values[i] - cpu.fields[f].values[i]));
        scale = std::max(scale, std::fabs(cpu.fields[f].values[i]));
      }
      INFO("field " << gpu.fields[f].name << ": max diff " << diff << ", scale " << scale);
      CHECK(diff <= 1e-10 * std::max(scale, 1e-300));
    }
  }
}
