// The grid description and line sampling (the reductions and stream kernels
// are tested on every backend in tests/linalg/test_reduce.cpp).

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>

#include "kflow/core/driver.hpp"
#include "kflow/linalg/field.hpp"

TEST_CASE("grid geometry", "[unit]") {
  kflow::linalg::Grid g;
  g.dim = 2;
  g.cells = {4, 8, 1};
  g.length = {2.0, 1.0, 1.0};
  CHECK(g.spacing(0) == 0.5);
  CHECK(g.extent(0) == 6);
  CHECK(g.extent(2) == 1);
  CHECK(g.centre(0, 0) == 0.25);
  CHECK(g.interior_cells() == 32);
  CHECK(g.stored_cells() == 60);
}

TEST_CASE("line sampling interpolates linear fields exactly", "[unit]") {
  kflow::linalg::Grid g;
  g.dim = 2;
  g.cells = {10, 5, 1};
  g.length = {1.0, 2.0, 1.0};
  kflow::HostField f{"u", 1, std::vector<double>(50)};
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 10; ++i) f.values[i + 10 * j] = 3 * g.centre(0, i) - 2 * g.centre(1, j);
  kflow::io::LineSpec l;
  l.from[0] = 0.05, l.from[1] = 0.2;
  l.to[0] = 0.95, l.to[1] = 1.8;
  l.points = 7;
  const auto v = kflow::io::sample_line(g, f, l);
  for (int p = 0; p < 7; ++p) {
    const double s = p / 6.0;
    const double x = 0.05 + s * 0.9, y = 0.2 + s * 1.6;
    CHECK(v[p] == Catch::Approx(3 * x - 2 * y).margin(1e-12));
  }
}
