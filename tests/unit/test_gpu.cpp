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
