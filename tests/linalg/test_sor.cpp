// Red-black SOR (linalg/rbsor.hpp) on every execution space compiled in,
// against manufactured solutions (x given, b = A x; operators built on the
// host and copied to the space), with Dirichlet-like, Neumann (masked,
// singular) and periodic operators, both convergence criteria, and the checks
// on omega and on periodic sizes.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <random>

#include "kflow/linalg/rbsor.hpp"
#include "kflow/linalg/reduce.hpp"
#include "linalg/backends.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;
using F2 = la::Field<double, 2, Mem>;
template <class Space>
using Field2 = la::Field<double, 2, typename Space::memory_space>;

namespace {

using kflow::test::error;
using kflow::test::grid2;
using kflow::test::op_to_space;
using kflow::test::random_field;
using kflow::test::rhs_of;
using kflow::test::to_host;
using kflow::test::to_space;

// A Laplacian with zero-Dirichlet folding: boundary neighbours drop out but
// the diagonal keeps its full value (non-singular, symmetric negative definite),
// with coefficients varying in space.
la::Stencil5<double, Mem> dirichlet_stencil(const la::Grid& g) {
  F2 cp("cp", g.extent(0), g.extent(1)), cw("cw", g.extent(0), g.extent(1)),
      ce("ce", g.extent(0), g.extent(1)), cs("cs", g.extent(0), g.extent(1)),
      cn("cn", g.extent(0), g.extent(1));
  const int nx = g.cells[0], ny = g.cells[1];
  auto kx = [&](double i, double j) {
    return 1.0 + 0.5 * std::sin(0.3 * i + 0.2 * j);
  };
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const double w = kx(i - 0.5, j), e = kx(i + 0.5, j), s = 2 * kx(j - 0.5, i),
                   n = 2 * kx(j + 0.5, i);
      cp(i, j) = -(w + e + s + n);
      cw(i, j) = i > 1 ? w : 0;
      ce(i, j) = i < nx ? e : 0;
      cs(i, j) = j > 1 ? s : 0;
      cn(i, j) = j < ny ? n : 0;
    }
  la::Stencil5<double, Mem> op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("red-black SOR solves a variable-coefficient 5-point system", "[unit]",
                        kflow::test::ExecutionSpaces) {
  TestType space;
  for (auto [nx, ny] : {std::pair{17, 12}, std::pair{16, 16}, std::pair{1, 5}, std::pair{9, 1}}) {
    const auto g = grid2(nx, ny);
    const auto hop = dirichlet_stencil(g);
    const auto op = op_to_space<TestType>(hop);
    const F2 exact = random_field(g, 7);
    const auto b = to_space<TestType>(rhs_of(hop, exact));
    for (auto crit : {la::Criterion::residual, la::Criterion::change}) {
      Field2<TestType> x("x", g.extent(0), g.extent(1));
      la::RedBlackSOR<TestType, decltype(op)> sor(space, op, la::SorOptions{1.5});
      la::SolveControl c;
      c.tolerance = 1e-11;
      c.criterion = crit;
      c.check_every = 3;
      const auto s = sor.solve(x, b, c);
      INFO(nx << "x" << ny << " criterion " << int(crit) << ": " << s.iterations << " its");
      CHECK(s.converged);
      CHECK(s.iterations % 3 == 0);
      CHECK(s.criterion <= 1e-11);
      CHECK(error(hop, to_host(x), exact, false) < 1e-8);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("red-black SOR on a masked Neumann Laplacian with an obstacle", "[unit]",
                        kflow::test::ExecutionSpaces) {
  TestType space;
  const auto g = grid2(20, 14);
  auto in = [&](int i, int j) {
    const bool obstacle = i >= 6 && i <= 9 && j >= 4 && j <= 8;
    return i >= 1 && i <= 20 && j >= 1 && j <= 14 && !obstacle;
  };
  const auto mask = kflow::test::mask_of(g, in);
  la::Laplace5<double, Mem> hop;
  hop.mask = mask;
  hop.cx = 400, hop.cy = 196;
  hop.grid = g;
  la::set_neighbours(hop, g, false, false);
  const auto op = op_to_space<TestType>(hop);
  const F2 exact = random_field(g, 3);
  const auto b = to_space<TestType>(rhs_of(hop, exact));  // compatible by construction
  F2 hx("x", g.extent(0), g.extent(1));
  hx(7, 6) = 123.0;  // an obstacle value: must stay untouched
  const auto x = to_space<TestType>(hx);
  la::RedBlackSOR<TestType, decltype(op)> sor(space, op, la::SorOptions{1.8});
  la::SolveControl c;
  c.tolerance = 1e-9;
  const auto s = sor.solve(x, b, c);
  CHECK(s.converged);
  const auto xh = to_host(x);
  CHECK(xh(7, 6) == 123.0);
  CHECK(error(hop, xh, exact, true) < 1e-9);
}

TEMPLATE_LIST_TEST_CASE("red-black SOR with periodic directions", "[unit]",
                        kflow::test::ExecutionSpaces) {
  TestType space;
  const auto g = grid2(16, 10);
  auto hop = dirichlet_stencil(g);
  // Periodic in x: every cell has its west and east neighbours.
  auto cw = F2("cw", g.extent(0), g.extent(1)), ce = F2("ce", g.extent(0), g.extent(1));
  Kokkos::deep_copy(cw, hop.cw);
  Kokkos::deep_copy(ce, hop.ce);
  for (int j = 1; j <= 10; ++j) cw(1, j) = 1.0, ce(16, j) = 1.0;
  hop.cw = cw, hop.ce = ce;
  la::set_neighbours(hop, g, true, false);
  const auto op = op_to_space<TestType>(hop);
  const F2 exact = random_field(g, 11);
  const auto b = to_space<TestType>(rhs_of(hop, exact));
  Field2<TestType> x("x", g.extent(0), g.extent(1));
  la::RedBlackSOR<TestType, decltype(op)> sor(space, op, la::SorOptions{1.6});
  la::SolveControl c;
  c.tolerance = 1e-11;
  const auto s = sor.solve(x, b, c);
  CHECK(s.converged);
  CHECK(error(hop, to_host(x), exact, false) < 1e-8);
  // Fixed iteration count: no check, exactly max_iterations.
  la::SolveControl fixed;
  fixed.tolerance = 0;
  fixed.max_iterations = 7;
  const auto f = sor.solve(x, b, fixed);
  CHECK(f.iterations == 7);
  CHECK(f.criterion == -1);
}

TEMPLATE_LIST_TEST_CASE("red-black SOR rejects omega outside (0, 2) and odd periodic sizes",
                        "[unit]", kflow::test::ExecutionSpaces) {
  TestType space;
  const auto g = grid2(15, 10);
  auto hop = dirichlet_stencil(g);
  auto op = op_to_space<TestType>(hop);
  using Sor = la::RedBlackSOR<TestType, decltype(op)>;
  CHECK_THROWS_AS(Sor(space, op, la::SorOptions{2.0}), std::invalid_argument);
  CHECK_THROWS_AS(Sor(space, op, la::SorOptions{0.0}), std::invalid_argument);
  la::set_neighbours(op, g, true, false);
  CHECK_THROWS_AS(Sor(space, op, la::SorOptions{1.5}), std::invalid_argument);
}
