// The same case on CUDA and OpenMP from one binary: fields agree to rounding.
// Built only where Kokkos has CUDA.

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <string>

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

namespace {
// physics/lbm: a 3D cavity with a moving lid, a forced periodic box with
// moving walls (every boundary kind), both streaming schemes.
const char* const lbm_cavity = R"([case]
model = "lbm"
[grid]
cells = [40, 36, 32]
length = [1.25, 1.125, 1.0]
[physics]
reynolds = 100.0
[boundary]
top = { type = "moving_wall", velocity = [1.0, 0.0, 0.0] }
[time]
steps = 101
)";
const char* const lbm_box = R"([case]
model = "lbm"
[grid]
cells = [33, 20, 18]
length = [1.65, 1.0, 0.9]
[lattice]
collision = "trt"
[physics]
reynolds = 20.0
body_force = [0.3, 0.0, 0.1]
[boundary]
west = "periodic"
east = "periodic"
top = { type = "moving_wall", velocity = [0.5, 0.5, 0.0] }
north = { type = "moving_wall", velocity = [0.0, 0.0, 1.0] }
[time]
steps = 100
)";
}  // namespace

TEST_CASE("lbm on cuda and openmp agrees to rounding; two-grid = in-place on cuda", "[gpu]") {
  for (const char* toml : {lbm_cavity, lbm_box})
    for (const char* prec : {"run.precision=\"double\"", "run.precision=\"float\""}) {
      const double tol = std::string(prec).find("float") != std::string::npos ? 1e-4 : 1e-12;
      const auto cpu = run_text(toml, "", {"run.backend=openmp", prec}, "", true);
      for (const char* scheme :
           {"lattice.streaming=\"two_grid\"", "lattice.streaming=\"in_place\""}) {
        const auto gpu = run_text(toml, "", {"run.backend=cuda", prec, scheme}, "", true);
        REQUIRE(gpu.fields.size() == cpu.fields.size());
        for (std::size_t f = 0; f < gpu.fields.size(); ++f) {
          double diff = 0, scale = 1e-300;
          for (std::size_t i = 0; i < gpu.fields[f].values.size(); ++i) {
            diff = std::max(diff, std::fabs(gpu.fields[f].values[i] - cpu.fields[f].values[i]));
            scale = std::max(scale, std::fabs(cpu.fields[f].values[i]));
          }
          INFO(prec << " " << scheme << ": field " << gpu.fields[f].name << ": max diff " << diff
                    << ", scale " << scale);
          CHECK(diff <= tol * scale);
        }
      }
      const auto a = run_text(toml, "", {"run.backend=cuda", prec}, "", true);
      const auto b = run_text(
          toml, "", {"run.backend=cuda", prec, "lattice.streaming=\"in_place\""}, "", true);
      for (std::size_t f = 0; f < a.fields.size(); ++f) {
        INFO(prec << ": field " << a.fields[f].name);
        CHECK(a.fields[f].values == b.fields[f].values);
      }
    }
}
