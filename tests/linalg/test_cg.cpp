// Conjugate gradients (linalg/cg.hpp): manufactured solutions (x given,
// b = A x, the discrete solution known exactly) in 2D and 3D with both
// preconditioners and both criteria, the iteration count against n for the
// Laplacian, Jacobi on strongly varying coefficients, singular Neumann and
// periodic systems (with an obstacle left untouched), single precision, and
// rejected operators, on every execution space compiled in (operators and
// right-hand sides built on the host, copied to the space).

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

#include "kflow/linalg/cg.hpp"
#include "linalg/backends.hpp"
#include "linalg/cg_problems.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;
using F2 = la::Field<double, 2, Mem>;
using F3 = la::Field<double, 3, Mem>;
using Op5 = la::Stencil5<double, Mem>;
using Mask = Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Mem>;

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
using kflow::test::cg::unit_k;
template <class S>
using Field2 = la::Field<double, 2, typename S::memory_space>;

la::SolveControl control(double tol, int every = 1, la::Criterion c = la::Criterion::residual) {
  la::SolveControl s;
  s.tolerance = tol;
  s.check_every = every;
  s.criterion = c;
  s.max_iterations = 100000;
  return s;
}

const la::CgPreconditioner both[] = {la::CgPreconditioner::none, la::CgPreconditioner::jacobi};

}  // namespace

// Solves A x = b on Space from x = 0 (operator and b built on the host);
// the result on the host.
template <class Space, class HOp, class HF>
HF cg_on(const HOp& hop, const HF& b, la::CgOptions o, const la::SolveControl& c,
         la::SolveStats* stats = nullptr, std::string* name = nullptr) {
  const auto op = op_to_space<Space>(hop);
  const auto x = to_space<Space>(HF("x", b.layout()));
  la::ConjugateGradient<Space, std::remove_const_t<decltype(op)>> cg(Space(), op, o);
  const auto s = cg.solve(x, to_space<Space>(b), c);
  if (stats) *stats = s;
  if (name) *name = cg.name();
  return to_host(x);
}

TEMPLATE_LIST_TEST_CASE("CG solves 5-point systems with a known discrete solution", "[cg][unit]",
                        kflow::test::ExecutionSpaces) {
  // max |x - x*| <= ||A^-1||_inf max |r|; for these operators (coefficients
  // >= 0.5 / h^2 on the unit square) ||A^-1||_inf <= 1 / (8 * 0.5), and
  // max |b| ~ 8 / h^2 * max |x*| (x* random in [-1, 1]): a residual of
  // 1e-12 max |b| bounds the error by ~ 2e-12 * 8 n^2, below 1e-7 here.
  TestType space;
  auto k = [](double x, double y) {
    return 1.0 + 0.5 * std::sin(0.3 * x + 0.2 * y);
  };
  for (auto [nx, ny] : {std::pair{33, 20}, std::pair{16, 16}, std::pair{1, 7}, std::pair{9, 1}}) {
    const auto g = grid2(nx, ny);
    const auto hop = diffusion_op(g, k);
    const auto op = op_to_space<TestType>(hop);
    const F2 exact = random_field(g, 7);
    const F2 hb = rhs_of(hop, exact);
    const auto b = to_space<TestType>(hb);
    for (auto pre : both)
      for (auto crit : {la::Criterion::residual, la::Criterion::change}) {
        Field2<TestType> x("x", g.extent(0), g.extent(1));
        la::ConjugateGradient<TestType, decltype(op)> cg(space, op, la::CgOptions{pre});
        CHECK(cg.sign() == -1);
        CHECK_FALSE(cg.singular());
        const auto s = cg.solve(x, b, control(1e-12, 3, crit));
        INFO(nx << "x" << ny << " " << cg.name() << " criterion " << int(crit) << ": "
                << s.iterations << " its, criterion " << s.criterion);
        CHECK(s.converged);
        CHECK(s.criterion <= 1e-12);
        const F2 hx = to_host(x);
        CHECK(error(hop, hx, exact, false) < 1e-7);
        // The true residual of the result, independently of the solver.
        F2 r = f2(g);
        la::residual(Kokkos::DefaultHostExecutionSpace(), hop, hx, hb, r);
        double rmax = 0, bmax = 0;
        for (int j = 1; j <= ny; ++j)
          for (int i = 1; i <= nx; ++i)
            rmax = std::max(rmax, std::fabs(r(i, j))), bmax = std::max(bmax, std::fabs(hb(i, j)));
        if (crit == la::Criterion::residual) CHECK(rmax <= 1e-12 * bmax);
      }
  }
}

TEMPLATE_LIST_TEST_CASE(
    "CG: exactly max_iterations without checks; a positive definite operator works too",
    "[cg][unit]", kflow::test::ExecutionSpaces) {
  using S = TestType;
  const auto g = grid2(24, 18);
  const auto op = diffusion_op(g, unit_k);
  const F2 exact = random_field(g, 3);
  const F2 b = rhs_of(op, exact);
  la::SolveControl fixed;
  fixed.tolerance = 0;
  fixed.max_iterations = 13;
  la::SolveStats s;
  const la::CgOptions jacobi{la::CgPreconditioner::jacobi};
  const F2 x = cg_on<S>(op, b, jacobi, fixed, &s);
  CHECK(s.iterations == 13);
  CHECK_FALSE(s.converged);
  CHECK(s.criterion == -1);
  // -A, -b: the same iterates with sign +1.
  F2 cp = f2(g), cw = f2(g), ce = f2(g), cs = f2(g), cn = f2(g), mb = f2(g);
  for (int j = 0; j < g.extent(1); ++j)
    for (int i = 0; i < g.extent(0); ++i) {
      cp(i, j) = -op.cp(i, j), cw(i, j) = -op.cw(i, j), ce(i, j) = -op.ce(i, j);
      cs(i, j) = -op.cs(i, j), cn(i, j) = -op.cn(i, j), mb(i, j) = -b(i, j);
    }
  Op5 neg = op;
  neg.cp = cp, neg.cw = cw, neg.ce = ce, neg.cs = cs, neg.cn = cn;
  const auto dneg = op_to_space<S>(neg);
  CHECK(la::ConjugateGradient<S, decltype(dneg)>(S(), dneg, jacobi).sign() == 1);
  const F2 y = cg_on<S>(neg, mb, jacobi, fixed);
  CHECK(error(op, x, y, false) == 0);
}

TEMPLATE_LIST_TEST_CASE("CG iterations grow about linearly with n for the Laplacian", "[cg][unit]",
                        kflow::test::ExecutionSpaces) {
  // Unpreconditioned CG needs O(sqrt(cond)) = O(n) iterations on the n x n
  // Dirichlet Laplacian (cond ~ 4 n^2 / pi^2).  A random discrete solution
  // excites every mode.  Measured: 91, 172, 322 iterations for n = 32, 64,
  // 128 to 1e-8 (ratios 1.89, 1.87); accepted ratio per doubling: 1.7 .. 2.4.
  int its[3];
  for (int m = 0; m < 3; ++m) {
    const int n = 32 << m;
    const auto g = grid2(n, n);
    const auto op = diffusion_op(g, unit_k);
    const F2 b = rhs_of(op, random_field(g, 5));
    la::SolveStats s;
    cg_on<TestType>(op, b, la::CgOptions{la::CgPreconditioner::none}, control(1e-8), &s);
    REQUIRE(s.converged);
    its[m] = s.iterations;
  }
  INFO("iterations " << its[0] << ", " << its[1] << ", " << its[2]);
  for (int m = 1; m < 3; ++m) {
    const double ratio = double(its[m]) / its[m - 1];
    CHECK(ratio > 1.7);
    CHECK(ratio < 2.4);
  }
}

TEMPLATE_LIST_TEST_CASE("CG: Jacobi pays off with strongly varying coefficients", "[cg][unit]",
                        kflow::test::ExecutionSpaces) {
  // Face coefficients from 1 to 1e4 (log-smooth plus a high-contrast
  // inclusion): the diagonal spans four decades and Jacobi removes most of
  // that from the condition number.  Measured: 3030 (none) / 205 (Jacobi)
  // iterations at 64^2; required: Jacobi below 30 % of none.
  const auto g = grid2(64, 64);
  auto k = [](double x, double y) {
    const bool inclusion = x > 20 && x < 44 && y > 12 && y < 30;
    return std::pow(10.0, 2.0 + 1.5 * std::sin(0.1 * x) * std::cos(0.13 * y)) *
           (inclusion ? 0.03 : 1.0);
  };
  const auto op = diffusion_op(g, k);
  const F2 b = rhs_of(op, random_field(g, 9));
  int its[2];
  for (int m = 0; m < 2; ++m) {
    la::SolveStats s;
    cg_on<TestType>(op, b, la::CgOptions{both[m]}, control(1e-10, 5), &s);
    REQUIRE(s.converged);
    its[m] = s.iterations;
  }
  INFO("iterations: none " << its[0] << ", jacobi " << its[1]);
  CHECK(its[1] < 0.3 * its[0]);
}

TEMPLATE_LIST_TEST_CASE("CG on singular Neumann and periodic Laplacians with an obstacle",
                        "[cg][unit]", kflow::test::ExecutionSpaces) {
  TestType space;
  for (bool periodic : {false, true})
    for (auto pre : both) {
      const auto g = grid2(20, 14);
      const auto hop = neumann_op(g, periodic);
      const auto op = op_to_space<TestType>(hop);
      const F2 exact = random_field(g, 3);
      const F2 b = rhs_of(hop, exact);  // compatible
      // An incompatible part (a constant) that CG projects away.
      F2 b2 = f2(g);
      for (int j = 1; j <= 14; ++j)
        for (int i = 1; i <= 20; ++i) b2(i, j) = hop.coeffs(i, j).p != 0 ? b(i, j) + 0.37 : 0;
      for (const F2& rhs : {b, b2}) {
        F2 hx = f2(g);
        hx(7, 6) = 123.0;  // an obstacle value: must stay untouched
        const auto x = to_space<TestType>(hx);
        la::ConjugateGradient<TestType, decltype(op)> cg(space, op, la::CgOptions{pre});
        CHECK(cg.singular());
        const auto s = cg.solve(x, to_space<TestType>(rhs), control(1e-11, 2));
        INFO((periodic ? "periodic " : "walls ") << cg.name() << ": " << s.iterations << " its");
        CHECK(s.converged);
        const F2 xr = to_host(x);
        CHECK(xr(7, 6) == 123.0);
        CHECK(error(hop, xr, exact, true) < 1e-9);
      }
    }
}

TEMPLATE_LIST_TEST_CASE("CG solves a 7-point system with a known discrete solution", "[cg][unit]",
                        kflow::test::ExecutionSpaces) {
  la::Grid g;
  g.dim = 3;
  g.cells = {14, 11, 9};
  const int nx = 14, ny = 11, nz = 9;
  auto f3 = [&] {
    return F3("f", g.extent(0), g.extent(1), g.extent(2));
  };
  F3 c[7], exact = f3(), b = f3();
  for (auto& f : c) f = f3();
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> u(-1, 1);
  auto kf = [](double x, double y, double z) {
    return 1.0 + 0.4 * std::sin(x + 0.5 * y - z);
  };
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) {
        exact(i, j, k) = u(gen);
        const double w = kf(i - 0.5, j, k), e = kf(i + 0.5, j, k), s = kf(i, j - 0.5, k),
                     n = kf(i, j + 0.5, k), bb = kf(i, j, k - 0.5), t = kf(i, j, k + 0.5);
        c[1](i, j, k) = i > 1 ? w : 0;
        c[2](i, j, k) = i < nx ? e : 0;
        c[3](i, j, k) = j > 1 ? s : 0;
        c[4](i, j, k) = j < ny ? n : 0;
        c[5](i, j, k) = k > 1 ? bb : 0;
        c[6](i, j, k) = k < nz ? t : 0;
        c[0](i, j, k) = -(w + e + s + n + bb + t) - (k == 1 ? bb : 0);  // Dirichlet at k = 0
      }
  la::Stencil7<double, Mem> op;
  op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4], op.cb = c[5], op.ct = c[6];
  op.grid = g;
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) b(i, j, k) = la::apply_at(op, exact, i, j, k);
  const auto dop = op_to_space<TestType>(op);
  for (auto pre : both) {
    CHECK_FALSE((la::ConjugateGradient<TestType, decltype(dop)>(TestType(), dop, la::CgOptions{pre})
                     .singular()));
    la::SolveStats s;
    std::string name;
    const F3 x = cg_on<TestType>(op, b, la::CgOptions{pre}, control(1e-12, 4), &s, &name);
    INFO(name << ": " << s.iterations << " iterations");
    CHECK(s.converged);
    double e = 0;
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) e = std::max(e, std::fabs(x(i, j, k) - exact(i, j, k)));
    CHECK(e < 1e-8);
  }
}

TEMPLATE_LIST_TEST_CASE("CG on a periodic 7-point system (Stencil7 wraps) with a known solution",
                        "[cg][unit]", kflow::test::ExecutionSpaces) {
  // Variable coefficients, periodic along the periodic axes (so the matrix
  // is symmetric across the seam), random x, b = A x with the wrapped
  // operator.  Periodic in x and y with a Dirichlet bottom: regular; periodic
  // in x, y and z: singular, x found up to a constant.
  la::Grid g;
  g.dim = 3;
  g.cells = {12, 10, 8};
  const int nx = 12, ny = 10, nz = 8;
  const double pi = 3.14159265358979323846;
  auto f3 = [&] {
    return F3("f", g.extent(0), g.extent(1), g.extent(2));
  };
  auto kf = [&](double x, double y, double z) {  // periodic in every direction
    return 1.0 + 0.4 * std::sin(2 * pi * x / nx + 2 * pi * y / ny) * std::cos(2 * pi * z / nz);
  };
  for (const bool pz : {false, true}) {
    F3 c[7], exact = f3(), b = f3();
    for (auto& f : c) f = f3();
    std::mt19937 gen(3);
    std::uniform_real_distribution<double> u(-1, 1);
    double mean = 0;
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) {
          exact(i, j, k) = u(gen);
          mean += exact(i, j, k) / (nx * ny * nz);
          const double w = kf(i - 0.5, j, k), e = kf(i + 0.5, j, k), s = kf(i, j - 0.5, k),
                       n = kf(i, j + 0.5, k), bb = kf(i, j, k - 0.5), t = kf(i, j, k + 0.5);
          c[1](i, j, k) = w, c[2](i, j, k) = e, c[3](i, j, k) = s, c[4](i, j, k) = n;
          c[5](i, j, k) = k > 1 || pz ? bb : 0;
          c[6](i, j, k) = k < nz || pz ? t : 0;
          c[0](i, j, k) = -(w + e + s + n + bb + t);  // not periodic in z: Dirichlet at both ends
        }
    la::Stencil7<double, Mem> op;
    op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4], op.cb = c[5];
    op.ct = c[6];
    op.grid = g;
    la::set_neighbours(op, g, true, true, pz);
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) b(i, j, k) = la::apply_at(op, exact, i, j, k);
    const auto dop = op_to_space<TestType>(op);
    CHECK((la::ConjugateGradient<TestType, decltype(dop)>(TestType(), dop, {}).singular()) == pz);
    la::SolveStats st;
    const F3 x = cg_on<TestType>(op, b, la::CgOptions{}, control(1e-12, 4), &st);
    INFO((pz ? "periodic in x, y, z" : "periodic in x, y")
         << ": " << st.iterations << " iterations");
    CHECK(st.converged);
    double xm = 0;
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) xm += x(i, j, k) / (nx * ny * nz);
    double e = 0;
    for (int k = 1; k <= nz; ++k)
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          e = std::max(e, std::fabs((pz ? x(i, j, k) - xm + mean : x(i, j, k)) - exact(i, j, k)));
    CHECK(e < 1e-8);
  }
  // Periodic without set_neighbours' cell counts: refused, not wrapped wrongly.
  la::Stencil7<double, Mem> bad;
  bad.grid = g;
  bad.px = true;
  bad.cp = bad.cw = bad.ce = bad.cs = bad.cn = bad.cb = bad.ct = f3();
  const auto dbad = op_to_space<TestType>(bad);
  CHECK_THROWS_AS((la::ConjugateGradient<TestType, decltype(dbad)>(TestType(), dbad, {})),
                  std::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("CG in single precision", "[cg][unit]", kflow::test::ExecutionSpaces) {
  const auto g = grid2(40, 40);
  const auto opd = neumann_op(g, false);
  la::Laplace5<float, Mem> op;
  op.mask = opd.mask;
  op.cx = float(opd.cx), op.cy = float(opd.cy);
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  const F2 exact = random_field(g, 4);
  const F2 bd = rhs_of(opd, exact);
  la::Field<float, 2, Mem> x("x", g.extent(0), g.extent(1)), b("b", g.extent(0), g.extent(1));
  for (int j = 1; j <= 40; ++j)
    for (int i = 1; i <= 40; ++i) b(i, j) = float(bd(i, j));
  const la::CgOptions jacobi{la::CgPreconditioner::jacobi};
  const auto dop = op_to_space<TestType>(op);
  CHECK((la::ConjugateGradient<TestType, decltype(dop)>(TestType(), dop, jacobi).singular()));
  la::SolveStats s;
  x = cg_on<TestType>(op, b, jacobi, control(1e-5, 5), &s);
  CHECK(s.converged);
  F2 xd = f2(g);
  for (int j = 1; j <= 40; ++j)
    for (int i = 1; i <= 40; ++i) xd(i, j) = x(i, j);
  CHECK(error(opd, xd, exact, true) < 1e-3);
}

TEMPLATE_LIST_TEST_CASE("CG rejects operators that are not symmetric definite", "[cg][unit]",
                        kflow::test::ExecutionSpaces) {
  using S = TestType;
  auto make = [](const Op5& o) {
    const auto d = op_to_space<S>(o);
    return la::ConjugateGradient<S, decltype(d)>(S(), d);
  };
  const auto g = grid2(8, 6);
  auto copy = [&](const auto& a) {
    F2 c = f2(g);
    Kokkos::deep_copy(c, a);
    return c;
  };
  const auto op = diffusion_op(g, unit_k);
  {  // not symmetric: one east coefficient changed
    Op5 bad = op;
    F2 ce = copy(op.ce);
    ce(3, 3) *= 1.5;
    bad.ce = ce;
    CHECK_THROWS_AS(make(bad), std::invalid_argument);
  }
  {  // a coefficient to a cell outside the system (an obstacle)
    Op5 bad = op;
    F2 cp = copy(op.cp), cw = copy(op.cw), ce = copy(op.ce), cs = copy(op.cs), cn = copy(op.cn);
    cp(4, 4) = cw(4, 4) = ce(4, 4) = cs(4, 4) = cn(4, 4) = 0;
    ce(3, 4) = cs(4, 5) = cn(4, 3) = 0;  // but cw(5, 4) still points at it
    bad.cp = cp, bad.cw = cw, bad.ce = ce, bad.cs = cs, bad.cn = cn;
    CHECK_THROWS_AS(make(bad), std::invalid_argument);
    cw(5, 4) = 0;  // now consistent: accepted
    bad.cw = cw;
    CHECK_NOTHROW(make(bad));
  }
  {  // diagonal of both signs
    Op5 bad = op;
    F2 cp = copy(op.cp);
    cp(2, 2) = -cp(2, 2);
    bad.cp = cp;
    CHECK_THROWS_AS(make(bad), std::invalid_argument);
  }
  {  // NaN coefficient
    Op5 bad = op;
    F2 ce = copy(op.ce);
    ce(2, 2) = std::nan("");
    bad.ce = ce;
    CHECK_THROWS_AS(make(bad), std::invalid_argument);
  }
}

TEMPLATE_LIST_TEST_CASE("CG stops with converged = false on a NaN right-hand side", "[cg][unit]",
                        kflow::test::ExecutionSpaces) {
  const auto g = grid2(10, 10);
  const auto op = diffusion_op(g, unit_k);
  F2 b = random_field(g, 1);
  b(5, 5) = std::nan("");
  la::SolveStats s;
  cg_on<TestType>(op, b, la::CgOptions{}, control(1e-8, 2), &s);
  CHECK_FALSE(s.converged);
  CHECK(s.iterations <= 2);
}
