// linalg's reductions (reduce.hpp, operator.hpp) and stream kernels on every
// execution space compiled in: interior-only sums and norms, the STREAM kernels,
// and max-norms that count a NaN as +inf (a diverged solve must not look
// converged).

#include <catch2/catch_approx.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/stream.hpp"
#include "linalg/backends.hpp"

namespace la = kflow::linalg;

TEMPLATE_LIST_TEST_CASE("reductions over the interior ignore ghost layers", "[unit][linalg]",
                        kflow::test::ExecutionSpaces) {
  for (int dim : {2, 3}) {
    la::Grid g;
    g.dim = dim;
    g.cells = {5, 4, dim == 3 ? 3 : 1};
    TestType space;
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
      CHECK(la::sum(space, g, f) == Catch::Approx(sum));
      CHECK(la::norm2(space, g, f) == Catch::Approx(std::sqrt(sq)));
      CHECK(la::max_norm(space, g, f) == mx);
      // one NaN in the interior: the max-norm is +inf, not the largest number
      if constexpr (decltype(h)::rank == 2)
        h(2, 2) = std::nan("");
      else
        h(2, 2, 1) = std::nan("");
      Kokkos::deep_copy(f, h);
      CHECK(la::max_norm(space, g, f) == std::numeric_limits<double>::infinity());
    };
    if (dim == 2)
      check(la::make_field<double, 2>(space, "f", g));
    else
      check(la::make_field<double, 3>(space, "f", g));
  }
}

TEMPLATE_LIST_TEST_CASE("residual and system max-norms over 2D and 3D operators", "[unit][linalg]",
                        kflow::test::ExecutionSpaces) {
  // The 7-point Laplacian with unit coefficients on 4^3 cells, x = 1 in the
  // interior and 0 in the ghosts, b = 0.5: |b - A x| = |0.5 + 6 - (interior
  // neighbours)| is largest at the 8 corners (3 interior neighbours): 3.5.
  using M = typename TestType::memory_space;
  TestType space;
  la::Grid g;
  g.dim = 3;
  g.cells = {4, 4, 4};
  auto make = [&](const char* l, double v) {
    auto f = la::make_field<double, 3>(space, l, g);
    Kokkos::deep_copy(f, v);
    return f;
  };
  la::Stencil7<double, M> op;
  op.cp = make("cp", -6), op.cw = make("cw", 1), op.ce = make("ce", 1), op.cs = make("cs", 1);
  op.cn = make("cn", 1), op.cb = make("cb", 1), op.ct = make("ct", 1);
  op.grid = g;
  auto x = la::make_field<double, 3>(space, "x", g);
  auto hx = Kokkos::create_mirror_view(x);
  for (int k = 1; k <= 4; ++k)
    for (int j = 1; j <= 4; ++j)
      for (int i = 1; i <= 4; ++i) hx(i, j, k) = 1;
  Kokkos::deep_copy(x, hx);
  auto b = make("b", 0.5);
  CHECK(la::residual_max_norm(space, op, x, b) == 3.5);
  CHECK(la::system_max_norm(space, op, b) == 0.5);
  auto r = la::make_field<double, 3>(space, "r", g);
  la::residual(space, op, x, b, r);
  CHECK(la::max_norm(space, g, r) == 3.5);
  auto hb = Kokkos::create_mirror_view(b);
  Kokkos::deep_copy(hb, b);
  hb(3, 2, 2) = std::nan("");
  Kokkos::deep_copy(b, hb);
  CHECK(la::residual_max_norm(space, op, x, b) == std::numeric_limits<double>::infinity());
  CHECK(la::system_max_norm(space, op, b) == std::numeric_limits<double>::infinity());
}

TEMPLATE_LIST_TEST_CASE(
    "STREAM kernels: copy, mul, add, triad, dot, 1 to 8 scalars or vectors "
    "per item",
    "[unit][linalg]", kflow::test::ExecutionSpaces) {
  TestType space;
  using V = Kokkos::View<double*, typename TestType::memory_space>;
  using CV = Kokkos::View<const double*, typename TestType::memory_space>;
  for (int lanes : {1, 2})
    for (int per : {1, 2, 4, 8}) {
      const int n = lanes == 1 ? 1000 : 1008;  // a multiple of per x lanes
      V a("a", n), b("b", n), c("c", n);
      la::stream_init(space, a, b, c, per, lanes);
      la::copy(space, CV(a), c, per, lanes);               // c = 0.1
      la::mul(space, CV(c), b, 0.5, per, lanes);           // b = 0.05
      la::add(space, CV(a), CV(b), c, per, lanes);         // c = 0.15
      la::triad(space, CV(b), CV(c), a, 2.0, per, lanes);  // a = 0.35
      INFO(per << " packs of " << lanes << " per item");
      CHECK(la::dot(space, CV(a), CV(b), per, lanes) ==
            Catch::Approx(n * 0.35 * 0.05).epsilon(1e-14));
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
      auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
      double worst = 0;
      for (int i = 0; i < n; ++i)
        worst = std::max({worst, std::fabs(h(i) - 0.15), std::fabs(ha(i) - 0.35)});
      CHECK(worst <= 1e-15);
    }
  // float: 4 lanes a vector.
  using F = Kokkos::View<float*, typename TestType::memory_space>;
  F f("f", 64), g("g", 64), e("e", 64);
  la::stream_init(space, f, g, e, 2, 4);
  la::copy(space, Kokkos::View<const float*, typename TestType::memory_space>(f), e, 2, 4);
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), e);
  int wrong = 0;
  for (int i = 0; i < 64; ++i) wrong += he(i) != 0.1f;
  CHECK(wrong == 0);
  // Sizes that are no multiple of per x lanes, lanes that are no vector,
  // misaligned data: refused.
  V a("a", 1000), b("b", 1000), c("c", 1000);
  CHECK_THROWS_AS(la::copy(space, CV(a), c, 3, 1), std::invalid_argument);
  CHECK_THROWS_AS(la::copy(space, CV(a), c, 1, 3), std::invalid_argument);
  CHECK_THROWS_AS(la::dot(space, CV(a), CV(b), 16, 2), std::invalid_argument);
  auto shifted = Kokkos::subview(a, Kokkos::make_pair(1, 999));
  auto shifted_c = Kokkos::subview(c, Kokkos::make_pair(1, 999));
  CHECK_THROWS_AS(la::copy(space, CV(shifted), V(shifted_c), 1, 2), std::invalid_argument);
}

namespace {
// f(i, j, k, sum, max) over a box, as box_reduce hands it out.
template <class Mem>
struct BoxSumMax {
  la::Field3<double, Mem> v;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, double& s, double& m) const {
    s += v(i, j, k);
    m = Kokkos::fmax(m, v(i, j, k));
  }
};
}  // namespace

TEMPLATE_LIST_TEST_CASE("box_reduce visits every point of a box once, with several reducers",
                        "[unit][linalg]", kflow::test::ExecutionSpaces) {
  using Mem = typename TestType::memory_space;
  la::Field3<double, Mem> v("v", 9, 7, 6);
  auto h = Kokkos::create_mirror_view(v);
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < 7; ++j)
      for (int i = 0; i < 9; ++i) h(i, j, k) = double(1 + i + 10 * j + 100 * k);
  Kokkos::deep_copy(v, h);
  const int lo[3] = {2, 1, 3}, hi[3] = {8, 5, 6};
  double sum = 0, mx = -1, want_sum = 0, want_max = -1;
  for (int k = lo[2]; k < hi[2]; ++k)
    for (int j = lo[1]; j < hi[1]; ++j)
      for (int i = lo[0]; i < hi[0]; ++i) {
        want_sum += h(i, j, k);
        want_max = std::max(want_max, h(i, j, k));
      }
  la::box_reduce(TestType(), "test::box_reduce", lo, hi, BoxSumMax<Mem>{v},
                 Kokkos::Sum<double>(sum), Kokkos::Max<double>(mx));
  CHECK(sum == want_sum);  // integers: exact in any order
  CHECK(mx == want_max);
  // an empty box leaves the reducers' identities
  const int elo[3] = {2, 4, 3}, ehi[3] = {8, 4, 6};
  la::box_reduce(TestType(), "test::box_reduce_empty", elo, ehi, BoxSumMax<Mem>{v},
                 Kokkos::Sum<double>(sum), Kokkos::Max<double>(mx));
  CHECK(sum == 0);
  CHECK(mx == Kokkos::reduction_identity<double>::max());
}
