// CG over Kokkos Kernels (linalg/kk_cg.hpp) against the matrix-free CG
// (linalg/cg.hpp) on the same systems, from the same initial guess, with the
// same preconditioner and stopping rule: both converge, to the same solution
// (within the tolerance's reach) and to the known discrete solution, in about
// the same number of iterations (the same iteration in exact arithmetic).
// Systems: 2D variable-coefficient diffusion with Dirichlet walls, the
// singular pure-Neumann and x-periodic masked Laplacians with an obstacle
// (its x left alone; an incompatible constant in b projected away), a 3D
// 7-point system, single precision; and the rejections.  On every execution
// space compiled in (operators and right-hand sides built on the host).

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <type_traits>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/kk_cg.hpp"
#include "linalg/backends.hpp"
#include "linalg/cg_problems.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;
using F2 = la::Field<double, 2, Mem>;
using F3 = la::Field<double, 3, Mem>;

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

la::SolveControl control(double tol, int every) {
  la::SolveControl s;
  s.tolerance = tol;
  s.check_every = every;
  s.max_iterations = 100000;
  return s;
}

const la::CgPreconditioner both[] = {la::CgPreconditioner::none, la::CgPreconditioner::jacobi};

// max |a - b - mean(a - b)| (or without the mean) over the cells in the system.
template <class Op, class F>
double diff2(const Op& op, const F& a, const F& b, bool up_to_constant) {
  double mean = 0;
  long n = 0;
  const auto& g = op.grid;
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i)
      if (op.coeffs(i, j).p != 0) mean += double(a(i, j)) - double(b(i, j)), ++n;
  mean = up_to_constant && n > 0 ? mean / double(n) : 0;
  double d = 0;
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i)
      if (op.coeffs(i, j).p != 0)
        d = std::max(d, std::fabs(double(a(i, j)) - double(b(i, j)) - mean));
  return d;
}

struct Pair {
  la::SolveStats kk, mf;
  double diff = 0;  // max |x_kk - x_mf| over the cells of the system (up to a constant if singular)
};

// Both CGs on Space from the same x0 (host field), the results on the host.
template <class Space, class HOp, class HF>
Pair both_cgs(const HOp& hop, const HF& x0, const HF& b, la::CgPreconditioner pre,
              const la::SolveControl& c, bool up_to_constant, HF* x_kk = nullptr) {
  Space space;
  const auto op = op_to_space<Space>(hop);
  using Op = std::remove_const_t<decltype(op)>;
  Pair p;
  // Separate copies of x0 (to_space returns the host field itself on host spaces).
  HF hk("xk", x0.layout()), hm("xm", x0.layout());
  Kokkos::deep_copy(hk, x0);
  Kokkos::deep_copy(hm, x0);
  auto dk = to_space<Space>(hk);
  auto dm = to_space<Space>(hm);
  la::KkConjugateGradient<Space, Op> kk(space, op, pre);
  la::ConjugateGradient<Space, Op> mf(space, op, la::CgOptions{pre});
  CHECK(kk.singular() == mf.singular());
  const auto bd = to_space<Space>(b);
  p.kk = kk.solve(dk, bd, c);
  p.mf = mf.solve(dm, bd, c);
  const HF rk = to_host(dk), rm = to_host(dm);
  if constexpr (HF::rank == 2)
    p.diff = diff2(hop, rk, rm, up_to_constant);
  else {
    const auto& g = hop.grid;
    for (int k = 1; k <= g.cells[2]; ++k)
      for (int j = 1; j <= g.cells[1]; ++j)
        for (int i = 1; i <= g.cells[0]; ++i)
          p.diff = std::max(p.diff, std::fabs(double(rk(i, j, k)) - double(rm(i, j, k))));
  }
  if (x_kk) *x_kk = rk;
  return p;
}

void check_iterations(const Pair& p, int every) {
  INFO("kk_cg " << p.kk.iterations << " iterations, cg " << p.mf.iterations);
  CHECK(p.kk.converged);
  CHECK(p.mf.converged);
  CHECK(std::abs(p.kk.iterations - p.mf.iterations) <= std::max(2 * every, p.mf.iterations / 10));
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("kk_cg: 2D diffusion with Dirichlet walls, as the matrix-free CG",
                        "[unit][cg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  const auto g = grid2(33, 21);
  const auto hop =
      diffusion_op(g, [](double x, double y) { return 1.0 + 0.5 * std::sin(0.3 * x + 0.2 * y); });
  const F2 exact = random_field(g, 5);
  const F2 b = rhs_of(hop, exact);
  for (auto pre : both) {
    F2 x;
    const Pair p = both_cgs<TestType>(hop, f2(g), b, pre, control(1e-11, 3), false, &x);
    INFO(la::name(pre) << ": max |x_kk - x_cg| = " << p.diff);
    check_iterations(p, 3);
    CHECK(p.diff < 1e-8);
    CHECK(error(hop, x, exact, false) < 1e-8);
  }
}

TEMPLATE_LIST_TEST_CASE("kk_cg: b = 0 from x = 0 converges at once, as the matrix-free CG",
                        "[unit][cg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  // r = 0 gives p = 0 and p.Ap = 0: the solution, not a breakdown (a
  // vorticity2d step whose right-hand side vanished reported an unconverged
  // solve before).
  const auto g = grid2(17, 13);
  const auto hop = diffusion_op(g, [](double, double) { return 1.0; });
  for (auto pre : both) {
    const Pair p = both_cgs<TestType>(hop, f2(g), f2(g), pre, control(1e-9, 1), false);
    INFO(la::name(pre) << ": kk_cg " << p.kk.iterations << " iterations, criterion "
                       << p.kk.criterion << "; cg " << p.mf.iterations);
    CHECK(p.mf.converged);
    CHECK(p.kk.converged);
    CHECK(p.kk.criterion == 0);
    CHECK(p.diff == 0);
  }
}

TEMPLATE_LIST_TEST_CASE("kk_cg: singular Neumann and periodic Laplacians with an obstacle",
                        "[unit][cg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  for (bool periodic : {false, true})
    for (auto pre : both) {
      const auto g = grid2(20, 14);
      const auto hop = neumann_op(g, periodic);
      const F2 exact = random_field(g, 3);
      const F2 b0 = rhs_of(hop, exact);
      F2 b = f2(g);  // + an incompatible constant that both project away
      for (int j = 1; j <= 14; ++j)
        for (int i = 1; i <= 20; ++i) b(i, j) = hop.coeffs(i, j).p != 0 ? b0(i, j) + 0.37 : 0;
      F2 x0 = f2(g);
      x0(7, 6) = 123.0;  // an obstacle value: must stay untouched
      F2 x;
      const Pair p = both_cgs<TestType>(hop, x0, b, pre, control(1e-11, 2), true, &x);
      INFO((periodic ? "periodic " : "walls ") << la::name(pre) << ": diff " << p.diff);
      check_iterations(p, 2);
      CHECK(x(7, 6) == 123.0);
      CHECK(p.diff < 1e-8);
      CHECK(error(hop, x, exact, true) < 1e-8);
    }
}

TEMPLATE_LIST_TEST_CASE("kk_cg: a 7-point system, as the matrix-free CG",
                        "[unit][cg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  la::Grid g;
  g.dim = 3;
  g.cells = {12, 9, 7};
  const int nx = 12, ny = 9, nz = 7;
  auto f3 = [&] {
    return F3("f", g.extent(0), g.extent(1), g.extent(2));
  };
  F3 c[7], exact = f3(), b = f3();
  for (auto& f : c) f = f3();
  std::mt19937 gen(2);
  std::uniform_real_distribution<double> u(-1, 1), kd(0.6, 1.4);
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) exact(i, j, k) = u(gen);
  // Symmetric: each face's coefficient drawn once, shared by its two cells.
  F3 fx = f3(), fy = f3(), fz = f3();  // the face on the + side of the cell
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        fx(i, j, k) = kd(gen), fy(i, j, k) = kd(gen), fz(i, j, k) = kd(gen);
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) {
        c[1](i, j, k) = i > 1 ? fx(i - 1, j, k) : 0;
        c[2](i, j, k) = i < nx ? fx(i, j, k) : 0;
        c[3](i, j, k) = j > 1 ? fy(i, j - 1, k) : 0;
        c[4](i, j, k) = j < ny ? fy(i, j, k) : 0;
        c[5](i, j, k) = k > 1 ? fz(i, j, k - 1) : 0;
        c[6](i, j, k) = k < nz ? fz(i, j, k) : 0;
        double sum = 0;
        for (int q = 1; q < 7; ++q) sum += c[q](i, j, k);
        c[0](i, j, k) = -sum - (k == 1 ? fz(i, j, 0) : 0);  // Dirichlet at the bottom
      }
  la::Stencil7<double, Mem> op;
  op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4], op.cb = c[5], op.ct = c[6];
  op.grid = g;
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) b(i, j, k) = la::apply_at(op, exact, i, j, k);
  for (auto pre : both) {
    F3 x;
    const Pair p = both_cgs<TestType>(op, f3(), b, pre, control(1e-12, 4), false, &x);
    INFO(la::name(pre) << ": diff " << p.diff);
    check_iterations(p, 4);
    CHECK(p.diff < 1e-8);
    double e = 0;
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) e = std::max(e, std::fabs(x(i, j, k) - exact(i, j, k)));
    CHECK(e < 1e-8);
  }
}

TEMPLATE_LIST_TEST_CASE("kk_cg in single precision, as the matrix-free CG",
                        "[unit][cg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  using Ff = la::Field<float, 2, Mem>;
  const auto g = grid2(24, 18);
  const auto hd = diffusion_op(g, [](double x, double y) { return 1.0 + 0.3 * std::cos(x - y); });
  const F2 exact = random_field(g, 8);
  const F2 bd = rhs_of(hd, exact);
  Ff c[5], b("b", g.extent(0), g.extent(1));
  la::Stencil5<float, Mem> h;
  for (auto& f : c) f = Ff("c", g.extent(0), g.extent(1));
  for (int j = 0; j < g.extent(1); ++j)
    for (int i = 0; i < g.extent(0); ++i) {
      c[0](i, j) = float(hd.cp(i, j)), c[1](i, j) = float(hd.cw(i, j));
      c[2](i, j) = float(hd.ce(i, j)), c[3](i, j) = float(hd.cs(i, j));
      c[4](i, j) = float(hd.cn(i, j)), b(i, j) = float(bd(i, j));
    }
  h.cp = c[0], h.cw = c[1], h.ce = c[2], h.cs = c[3], h.cn = c[4];
  h.grid = g;
  la::set_neighbours(h, g, false, false);
  Ff x;
  const Pair p = both_cgs<TestType>(h, Ff("x0", g.extent(0), g.extent(1)), b,
                                    la::CgPreconditioner::jacobi, control(1e-4, 2), false, &x);
  INFO("diff " << p.diff);
  check_iterations(p, 2);
  double e = 0;
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i) e = std::max(e, std::fabs(double(x(i, j)) - exact(i, j)));
  CHECK(e < 2e-2);
  CHECK(p.diff < 2e-2);
}

TEMPLATE_LIST_TEST_CASE("kk_cg rejects multigrid and operators that are not symmetric definite",
                        "[unit][cg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  TestType space;
  const auto g = grid2(8, 6);
  auto hop = diffusion_op(g, [](double, double) { return 1.0; });
  const auto op = op_to_space<TestType>(hop);
  using Op = std::remove_const_t<decltype(op)>;
  CHECK_THROWS_AS((la::KkConjugateGradient<TestType, Op>(space, op, la::CgPreconditioner::mg)),
                  std::invalid_argument);
  F2 ce = f2(g);
  Kokkos::deep_copy(ce, hop.ce);
  ce(3, 3) *= 1.5;  // east of (3, 3) differs from west of (4, 3)
  hop.ce = ce;
  const auto bad = op_to_space<TestType>(hop);
  CHECK_THROWS_AS((la::KkConjugateGradient<TestType, Op>(space, bad)), std::invalid_argument);
}
