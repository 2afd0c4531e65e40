// Restarted GMRES over Kokkos Kernels (linalg/kk_gmres.hpp): on the
// symmetric systems of the CG tests it reaches the known discrete solution
// and the matrix-free CG's solution to the tolerance; on a non-symmetric
// convection-diffusion system, which CG refuses, it reaches the known
// solution; Jacobi helps where the diagonal varies; singular systems up to a
// constant, obstacles left alone; the max-norm criterion holds at exit; the
// rejections.  On every execution space compiled in (operators and
// right-hand sides built on the host).

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/kk_gmres.hpp"
#include "linalg/backends.hpp"
#include "linalg/cg_problems.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;
using F2 = la::Field<double, 2, Mem>;

namespace {

using kflow::test::error;
using kflow::test::grid2;
using kflow::test::op_to_space;
using kflow::test::random_field;
using kflow::test::rhs_of;
using kflow::test::to_host;
using kflow::test::to_space;
using kflow::test::cg::diffusion_op;
using kflow::test::cg::f2;
using kflow::test::cg::neumann_op;

la::SolveControl control(double tol) {
  la::SolveControl s;
  s.tolerance = tol;
  s.max_iterations = 20000;
  return s;
}

// GMRES on Space from x0; the solution (host) and the stats.
template <class Space, class HOp>
std::pair<F2, la::SolveStats> gmres(const HOp& hop, const F2& x0, const F2& b,
                                    const la::KkGmresOptions& o, const la::SolveControl& c) {
  Space space;
  const auto op = op_to_space<Space>(hop);
  using Op = std::remove_const_t<decltype(op)>;
  F2 h("x", x0.layout());
  Kokkos::deep_copy(h, x0);
  auto x = to_space<Space>(h);
  la::KkGmres<Space, Op> s(space, op, o);
  const auto st = s.solve(x, to_space<Space>(b), c);
  return {to_host(x), st};
}

// max |b - A x| / max |b| over the system, on the host.
template <class HOp>
double residual(const HOp& op, const F2& x, const F2& b) {
  double r = 0, s = 0;
  const auto& g = op.grid;
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i)
      if (op.coeffs(i, j).p != 0) {
        r = std::max(r, std::fabs(b(i, j) - la::apply_at(op, x, i, j)));
        s = std::max(s, std::fabs(b(i, j)));
      }
  return r / s;
}

// Upwind convection-diffusion, -div(grad u) + c . grad u with c = (cx, cy)
// > 0 upwinded, zero Dirichlet walls, as matrix entries with the Laplacian's
// negative diagonal: diagonally dominant, not symmetric.
template <class Real>
la::Stencil5<Real, Mem> convection_op(const la::Grid& g, double cx, double cy) {
  using F = la::Field<Real, 2, Mem>;
  F c[5];
  for (auto& f : c) f = F("c", g.extent(0), g.extent(1));
  const int nx = g.cells[0], ny = g.cells[1];
  const double hx = g.spacing(0), hy = g.spacing(1), ax = 1 / (hx * hx), ay = 1 / (hy * hy);
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      // Walls fold in: the wall neighbour drops out (Dirichlet zero).
      c[1](i, j) = Real(i > 1 ? ax + cx / hx : 0);
      c[2](i, j) = Real(i < nx ? ax : 0);
      c[3](i, j) = Real(j > 1 ? ay + cy / hy : 0);
      c[4](i, j) = Real(j < ny ? ay : 0);
      c[0](i, j) = Real(-2 * ax - 2 * ay - cx / hx - cy / hy);
    }
  la::Stencil5<Real, Mem> op;
  op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4];
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("kk_gmres: 2D diffusion with Dirichlet walls, as the matrix-free CG",
                        "[unit][gmres][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  const auto g = grid2(33, 21);
  // Face coefficients varying 1:20, so that the diagonal varies and Jacobi helps.
  const auto hop = diffusion_op(g, [](double x, double) { return x < 16 ? 1.0 : 20.0; });
  const F2 exact = random_field(g, 5);
  const F2 b = rhs_of(hop, exact);
  // The matrix-free CG's solution to the same tolerance, on the same space.
  TestType space;
  const auto op = op_to_space<TestType>(hop);
  la::ConjugateGradient<TestType, std::remove_const_t<decltype(op)>> cg(space, op);
  auto xc = to_space<TestType>(f2(g));
  REQUIRE(cg.solve(xc, to_space<TestType>(b), control(1e-11)).converged);
  const F2 xcg = to_host(xc);
  // The error at a residual of 1e-11 max|b| (max|b| about 1e5 here): up to
  // |A^-1| |r|, about 1e-6 with A's smallest eigenvalue near 20.  CG
  // minimises the error's A-norm and lands closer; GMRES minimises the
  // residual's 2-norm and may leave more of the smooth modes.
  const double e_cg = error(hop, xcg, exact, false);
  int its[2] = {0, 0};
  for (auto pre : {la::CgPreconditioner::none, la::CgPreconditioner::jacobi}) {
    la::KkGmresOptions o;
    o.preconditioner = pre;
    o.restart = 30;
    const auto [x, st] = gmres<TestType>(hop, f2(g), b, o, control(1e-11));
    const double e = error(hop, x, exact, false);
    INFO(la::name(pre) << ": " << st.iterations << " iterations, criterion " << st.criterion
                       << ", error " << e << " (CG's " << e_cg << ")");
    CHECK(st.converged);
    CHECK(st.criterion <= 1e-11);
    CHECK(residual(hop, x, b) <= 1e-11);  // the criterion, recomputed here
    CHECK(e < 1e-6);                      // the known solution
    CHECK(e_cg < 1e-6);
    its[pre == la::CgPreconditioner::jacobi] = st.iterations;
  }
  INFO("none " << its[0] << ", jacobi " << its[1]);
  CHECK(its[1] < its[0]);
}

TEMPLATE_LIST_TEST_CASE("kk_gmres: a non-symmetric convection-diffusion system CG refuses",
                        "[unit][gmres][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  const auto g = grid2(40, 30);
  const auto hop = convection_op<double>(g, 30.0, 10.0);
  const F2 exact = random_field(g, 7);
  const F2 b = rhs_of(hop, exact);
  TestType space;
  const auto op = op_to_space<TestType>(hop);
  using Op = std::remove_const_t<decltype(op)>;
  CHECK_THROWS_AS((la::ConjugateGradient<TestType, Op>(space, op)), std::invalid_argument);
  for (int restart : {10, 60}) {
    la::KkGmresOptions o;
    o.restart = restart;
    const auto [x, st] = gmres<TestType>(hop, f2(g), b, o, control(1e-10));
    INFO("restart " << restart << ": " << st.iterations << " iterations");
    CHECK(st.converged);
    CHECK(residual(hop, x, b) <= 1e-10);
    CHECK(error(hop, x, exact, false) < 1e-7);
  }
}

TEMPLATE_LIST_TEST_CASE("kk_gmres: singular Neumann and periodic Laplacians with an obstacle",
                        "[unit][gmres][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  for (bool periodic : {false, true}) {
    const auto g = grid2(20, 14);
    const auto hop = neumann_op(g, periodic);
    const F2 exact = random_field(g, 3);
    const F2 b0 = rhs_of(hop, exact);
    F2 b = f2(g);  // + an incompatible constant, projected away
    for (int j = 1; j <= 14; ++j)
      for (int i = 1; i <= 20; ++i) b(i, j) = hop.coeffs(i, j).p != 0 ? b0(i, j) + 0.37 : 0;
    F2 x0 = f2(g);
    x0(7, 6) = 123.0;  // an obstacle value: must stay untouched
    const auto [x, st] = gmres<TestType>(hop, x0, b, la::KkGmresOptions{}, control(1e-10));
    INFO((periodic ? "periodic: " : "walls: ") << st.iterations << " iterations");
    CHECK(st.converged);
    CHECK(x(7, 6) == 123.0);
    CHECK(error(hop, x, exact, true) < 1e-7);
  }
}

TEMPLATE_LIST_TEST_CASE("kk_gmres with ILU(k) from Kokkos Kernels: fewer iterations, same solution",
                        "[unit][gmres][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  // The variable-coefficient diffusion system (as above): ILU(0) beats
  // Jacobi, ILU(1) does not need more than ILU(0).
  {
    const auto g = grid2(33, 21);
    const auto hop = diffusion_op(g, [](double x, double) { return x < 16 ? 1.0 : 20.0; });
    const F2 exact = random_field(g, 5);
    const F2 b = rhs_of(hop, exact);
    int its[3] = {0, 0, 0};  // Jacobi, ILU(0), ILU(1)
    for (int level : {-1, 0, 1}) {
      la::KkGmresOptions o;
      o.restart = 30;
      o.ilu_level = level;
      const auto [x, st] = gmres<TestType>(hop, f2(g), b, o, control(1e-11));
      const double e = error(hop, x, exact, false);
      INFO("ILU level " << level << ": " << st.iterations << " iterations, error " << e);
      CHECK(st.converged);
      CHECK(residual(hop, x, b) <= 1e-11);
      CHECK(e < 1e-6);
      its[level + 1] = st.iterations;
    }
    INFO("jacobi " << its[0] << ", ilu(0) " << its[1] << ", ilu(1) " << its[2]);
    CHECK(its[1] < its[0]);
    CHECK(its[2] <= its[1]);
  }
  // The non-symmetric convection-diffusion system.
  {
    const auto g = grid2(40, 30);
    const auto hop = convection_op<double>(g, 30.0, 10.0);
    const F2 exact = random_field(g, 7);
    const F2 b = rhs_of(hop, exact);
    la::KkGmresOptions o;
    o.restart = 30;
    o.ilu_level = 0;
    const auto [x, st] = gmres<TestType>(hop, f2(g), b, o, control(1e-10));
    INFO(st.iterations << " iterations");
    CHECK(st.converged);
    CHECK(residual(hop, x, b) <= 1e-10);
    CHECK(error(hop, x, exact, false) < 1e-7);
  }
  // An obstacle (rows outside the system: unit rows in the factorization),
  // singular with walls: up to a constant, the obstacle's value untouched.
  {
    const auto g = grid2(20, 14);
    const auto hop = neumann_op(g, false);
    const F2 exact = random_field(g, 3);
    const F2 b = rhs_of(hop, exact);
    F2 x0 = f2(g);
    x0(7, 6) = 123.0;
    la::KkGmresOptions o;
    o.ilu_level = 0;
    const auto [x, st] = gmres<TestType>(hop, x0, b, o, control(1e-10));
    INFO(st.iterations << " iterations");
    CHECK(st.converged);
    CHECK(x(7, 6) == 123.0);
    CHECK(error(hop, x, exact, true) < 1e-7);
  }
}

TEMPLATE_LIST_TEST_CASE("kk_gmres: single precision", "[unit][gmres][kokkos-kernels]",
                        kflow::test::ExecutionSpaces) {
  using F2f = la::Field<float, 2, Mem>;
  const auto g = grid2(24, 18);
  const auto hd = convection_op<double>(g, 5.0, 3.0);
  const auto hop = convection_op<float>(g, 5.0, 3.0);
  const F2 exact = random_field(g, 9);
  const F2 bd = rhs_of(hd, exact);
  F2f b("b", bd.layout());
  for (std::size_t j = 0; j < bd.extent(1); ++j)
    for (std::size_t i = 0; i < bd.extent(0); ++i) b(i, j) = float(bd(i, j));
  TestType space;
  const auto op = op_to_space<TestType>(hop);
  la::KkGmres<TestType, std::remove_const_t<decltype(op)>> s(space, op);
  auto x = to_space<TestType>(F2f("x", b.layout()));
  const auto st = s.solve(x, to_space<TestType>(b), control(1e-5));
  const F2f xh = to_host(x);
  double e = 0, m = 0;
  for (int j = 1; j <= 18; ++j)
    for (int i = 1; i <= 24; ++i)
      e = std::max(e, std::fabs(double(xh(i, j)) - exact(i, j))), m = std::max(m, exact(i, j));
  INFO(st.iterations << " iterations, criterion " << st.criterion << ", error " << e);
  CHECK(st.converged);
  CHECK(e < 1e-3 * m);
}

TEMPLATE_LIST_TEST_CASE("kk_gmres: rejections", "[unit][gmres][kokkos-kernels]",
                        kflow::test::ExecutionSpaces) {
  const auto g = grid2(8, 8);
  TestType space;
  const auto op = op_to_space<TestType>(diffusion_op(g, kflow::test::cg::unit_k));
  using Op = std::remove_const_t<decltype(op)>;
  la::KkGmresOptions mg;
  mg.preconditioner = la::CgPreconditioner::mg;
  CHECK_THROWS_AS((la::KkGmres<TestType, Op>(space, op, mg)), std::invalid_argument);
  la::KkGmresOptions zero;
  zero.restart = 0;
  CHECK_THROWS_AS((la::KkGmres<TestType, Op>(space, op, zero)), std::invalid_argument);
  la::KkGmresOptions below;
  below.ilu_level = -2;  // -1 is "no ILU"; a level below is refused
  CHECK_THROWS_AS((la::KkGmres<TestType, Op>(space, op, below)), std::invalid_argument);
  la::KkGmres<TestType, Op> s(space, op);
  auto x = to_space<TestType>(f2(g));
  auto c = control(1e-8);
  c.criterion = la::Criterion::change;
  CHECK_THROWS_AS(s.solve(x, to_space<TestType>(f2(g)), c), std::invalid_argument);
}
