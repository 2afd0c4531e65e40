// physics/diffusion against its exact solution (a decaying Laplacian
// eigenmode): error size, second-order convergence over three grids in 2D and
// 3D with every kind of boundary, and bit-for-bit restart.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>

#include "kflow/io/fieldfile.hpp"
#include "kflow/io/vtk.hpp"
#include "unit/helpers.hpp"

using kflow::test::diag;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {

// Dirichlet on every side (2D).
const char* const dirichlet_2d = R"([case]
model = "diffusion"
[grid]
cells = [16, 16]
[physics]
diffusivity = 1.0
[initial]
modes = [1, 2]
[time]
end = 0.02
safety_factor = 0.5
)";

// Periodic x, Dirichlet/Neumann y, Neumann/Neumann z.
const char* const mixed_3d = R"([case]
model = "diffusion"
[grid]
cells = [8, 8, 8]
length = [1.0, 2.0, 1.5]
[physics]
diffusivity = 0.5
[boundary]
west = "periodic"
east = "periodic"
south = "dirichlet"
north = "neumann"
bottom = "neumann"
top = "neumann"
[time]
end = 0.05
safety_factor = 0.5
)";

// Errors on three grids, each twice as fine; dt = safety * h^2 / (2 d kappa),
// so the first-order time error also falls as h^2.
std::vector<double> errors(const std::string& toml, int dim, int n0) {
  std::vector<double> e;
  for (int n = n0; n <= 4 * n0; n *= 2) {
    std::string cells = "grid.cells=[" + std::to_string(n) + ", " + std::to_string(n) +
                        (dim == 3 ? ", " + std::to_string(n) : "") + "]";
    e.push_back(diag(run_text(toml, "", {cells}), "error_max"));
  }
  return e;
}

}  // namespace

TEST_CASE("diffusion 2D: second-order convergence to the exact solution", "[unit]") {
  const auto e = errors(dirichlet_2d, 2, 16);
  const double p1 = std::log2(e[0] / e[1]), p2 = std::log2(e[1] / e[2]);
  INFO("max errors " << e[0] << " " << e[1] << " " << e[2] << ", orders " << p1 << " " << p2);
  CHECK(p1 > 1.85);
  CHECK(p2 > 1.9);
  CHECK(p2 < 2.1);
  // The mode decayed to exp(-5 pi^2 * 0.02) = 0.37; the error is far below it.
  CHECK(e[2] < 2e-3 * 0.37);
}

TEST_CASE("diffusion 3D: second-order convergence with periodic, Dirichlet and Neumann sides",
          "[unit]") {
  const auto e = errors(mixed_3d, 3, 16);
  const double p1 = std::log2(e[0] / e[1]), p2 = std::log2(e[1] / e[2]);
  INFO("max errors " << e[0] << " " << e[1] << " " << e[2] << ", orders " << p1 << " " << p2);
  CHECK(p1 > 1.8);
  CHECK(p2 > 1.9);
  CHECK(p2 < 2.1);
}

TEST_CASE("diffusion in float agrees with double to single precision", "[unit]") {
  const auto d = run_text(dirichlet_2d, "", {"grid.cells=[32, 32]"}, "", true);
  const auto f =
      run_text(dirichlet_2d, "", {"grid.cells=[32, 32]", "run.precision=\"float\""}, "", true);
  double diff = 0;
  for (std::size_t i = 0; i < d.fields[0].values.size(); ++i)
    diff = std::max(diff, std::fabs(d.fields[0].values[i] - f.fields[0].values[i]));
  INFO("max |double - float| = " << diff);
  CHECK(diff < 1e-5);
  CHECK(diff > 0);  // the float build really ran in float
}

TEST_CASE("checkpoint and restart continue bit-for-bit", "[regression]") {
  TempDir tmp("restart");
  for (const char* toml : {dirichlet_2d, mixed_3d}) {
    const std::vector<std::string> sets = {"output.every=0.01", "time.end=0.04"};
    const auto full = run_text(toml, tmp.str() + "/full", sets);
    auto half_sets = sets;
    half_sets.back() = "time.end=0.02";
    run_text(toml, tmp.str() + "/half", half_sets);
    const auto rest = run_text(toml, tmp.str() + "/rest", sets, tmp.str() + "/half/checkpoint.kfc");
    CHECK(rest.steps == full.steps);
    CHECK(rest.time == full.time);
    const auto a = kflow::io::read_field_file(tmp.str() + "/full/checkpoint.kfc");
    const auto b = kflow::io::read_field_file(tmp.str() + "/rest/checkpoint.kfc");
    REQUIRE(a.array("u"));
    REQUIRE(b.array("u"));
    CHECK(a.array("u")->bytes == b.array("u")->bytes);
    CHECK(a.meta == b.meta);
    // The restarted run's output continues the earlier one: same frames, same log.
    const auto log_rows = [](const std::string& p) {
      const auto text = kflow::test::read_file(p);
      return std::count(text.begin(), text.end(), '\n');
    };
    CHECK(log_rows(tmp.str() + "/rest/log.csv") == log_rows(tmp.str() + "/full/log.csv"));
    if (kflow::io::vtk_available()) {
      CHECK(kflow::test::read_file(tmp.str() + "/rest/run.pvd") ==
            kflow::test::read_file(tmp.str() + "/full/run.pvd"));
      CHECK(std::filesystem::exists(tmp.str() + "/rest/frame_00001.vti"));
    }
  }
}

TEST_CASE("restart refuses a checkpoint of another grid or precision", "[unit]") {
  TempDir tmp("restart-bad");
  run_text(dirichlet_2d, tmp.str() + "/a");
  const auto ck = tmp.str() + "/a/checkpoint.kfc";
  CHECK_THROWS(run_text(dirichlet_2d, tmp.str() + "/b", {"grid.cells=[16, 8]", "time.end=1"}, ck));
  // Same cells, another length: the message tells the two grids apart.
  CHECK_THROWS_WITH(
      run_text(dirichlet_2d, tmp.str() + "/b", {"grid.length=[2.0, 1.0]", "time.end=1"}, ck),
      Catch::Matchers::ContainsSubstring("16x16 cells on 1 x 1 differs from the case's grid "
                                         "16x16 cells on 2 x 1"));
  CHECK_THROWS(
      run_text(dirichlet_2d, tmp.str() + "/b", {"run.precision=\"float\"", "time.end=1"}, ck));
  CHECK_THROWS(run_text(dirichlet_2d, tmp.str() + "/b", {}, ck));  // already at the end
}
