// linalg: grid description, policies and reductions on the default host space.

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>

#include "kflow/core/driver.hpp"
#include "kflow/linalg/field.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/stream.hpp"

using Space = Kokkos::DefaultHostExecutionSpace;

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

TEST_CASE("reductions over the interior ignore ghost layers", "[unit]") {
  for (int dim : {2, 3}) {
    kflow::linalg::Grid g;
    g.dim = dim;
    g.cells = {5, 4, dim == 3 ? 3 : 1};
    Space space;
    double sum = 0, sq = 0, mx = 0;
    auto check = [&](auto f) {
      auto h = Kokkos::create_mirror_view(f);
      Kokkos::deep_copy(h, 1000.0);  // ghosts: must not count
      std::size_t n = 0;
      for (std::size_t i = 1; i + 1 < h.extent(0); ++i)
        for (std::size_t j = 1; j + 1 < h.extent(1); ++j) {
          ++n;
          const double v = double(n) * (n % 2 ? 1 : -1);
          if constexpr (decltype(h)::rank == 2) {
            h(i, j) = v;
          } else {
            for (std::size_t k = 1; k + 1 < h.extent(2); ++k) h(i, j, k) = v;
          }
          const double w = dim == 3 ? 3.0 : 1.0;
          sum += w * v, sq += w * v * v, mx = std::max(mx, std::fabs(v));
        }
      Kokkos::deep_copy(f, h);
      CHECK(kflow::linalg::sum(space, g, f) == Catch::Approx(sum));
      CHECK(kflow::linalg::norm2(space, g, f) == Catch::Approx(std::sqrt(sq)));
      CHECK(kflow::linalg::max_norm(space, g, f) == mx);
    };
    if (dim == 2)
      check(kflow::linalg::make_field<double, 2>(space, "f", g));
    else
      check(kflow::linalg::make_field<double, 3>(space, "f", g));
  }
}

TEST_CASE("copy and dot kernels", "[unit]") {
  Space space;
  Kokkos::View<double*, Space::memory_space> a("a", 1000), b("b", 1000);
  Kokkos::deep_copy(a, 3.0);
  kflow::linalg::copy(space, Kokkos::View<const double*, Space::memory_space>(a), b);
  CHECK(kflow::linalg::dot(space, Kokkos::View<const double*, Space::memory_space>(a),
                           Kokkos::View<const double*, Space::memory_space>(b)) == 9000.0);
}

TEST_CASE("line sampling interpolates linear fields exactly", "[unit]") {
  kflow::linalg::Grid g;
  g.dim = 2;
  g.cells = {10, 5, 1};
  g.length = {1.0, 2.0, 1.0};
  kflow::HostField f{"u", 1, std::vector<double>(50)};
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 10; ++i) f.values[i + 10 * j] = 3 * g.centre(0, i) - 2 * g.centre(1, j);
  kflow::LineSpec l;
  l.from[0] = 0.05, l.from[1] = 0.2;
  l.to[0] = 0.95, l.to[1] = 1.8;
  l.points = 7;
  const auto v = kflow::sample_line(g, f, l);
  for (int p = 0; p < 7; ++p) {
    const double s = p / 6.0;
    const double x = 0.05 + s * 0.9, y = 0.2 + s * 1.6;
    CHECK(v[p] == Catch::Approx(3 * x - 2 * y).margin(1e-12));
  }
}
