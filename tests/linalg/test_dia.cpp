// The DIA operator (linalg/dia.hpp): its layout, the DIA SpMV against the
// matrix-free product (operator.hpp's apply) and a long-double reference on
// a non-square grid with variable (Stencil5, Laplace5 with an obstacle) and
// constant (Uniform5, Dirichlet and Neumann sides) coefficients, CG on the
// DIA operator against CG on the matrix-free one (manufactured solution),
// red-black SOR and SIP taking it unchanged, and the builder's rejections;
// on every execution space compiled in, in float and double (operators built
// on the host, copied to the space).

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/dia.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "kflow/linalg/sip.hpp"
#include "linalg/backends.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Host = Kokkos::HostSpace;
using LD = long double;

namespace {

using kflow::test::grid2;
using kflow::test::op_to_space;
using kflow::test::to_host;
using kflow::test::to_space;

template <class Real>
using HF = la::Field<Real, 2, Host>;

template <class Real>
HF<Real> hfield(const la::Grid& g, const char* label = "f") {
  return HF<Real>(label, g.extent(0), g.extent(1));
}

// Random non-symmetric variable coefficients (neighbours in [0.5, 1.5] / h^2,
// centre in [-6, -4] / h^2), 0 towards cells outside the grid.
template <class Real>
la::Stencil5<Real, Host> random_stencil(const la::Grid& g, unsigned seed) {
  auto cp = hfield<Real>(g), cw = hfield<Real>(g), ce = hfield<Real>(g), cs = hfield<Real>(g),
       cn = hfield<Real>(g);
  const int nx = g.cells[0], ny = g.cells[1];
  const double a = 1 / (g.spacing(0) * g.spacing(0));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      cp(i, j) = Real(-a * (4 + 2 * u(gen) - 1));
      cw(i, j) = i > 1 ? Real(a * u(gen)) : Real(0);
      ce(i, j) = i < nx ? Real(a * u(gen)) : Real(0);
      cs(i, j) = j > 1 ? Real(a * u(gen)) : Real(0);
      cn(i, j) = j < ny ? Real(a * u(gen)) : Real(0);
    }
  la::Stencil5<Real, Host> op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

// Symmetric diffusion with face coefficients k in [0.5, 1.5] and zero
// Dirichlet walls folded in (negative definite), as in test_cg.cpp.
template <class Real>
la::Stencil5<Real, Host> diffusion_stencil(const la::Grid& g) {
  auto k = [](double x, double y) {
    return 1.0 + 0.5 * std::sin(0.3 * x + 0.2 * y);
  };
  auto cp = hfield<Real>(g), cw = hfield<Real>(g), ce = hfield<Real>(g), cs = hfield<Real>(g),
       cn = hfield<Real>(g);
  const int nx = g.cells[0], ny = g.cells[1];
  const double ax = 1 / (g.spacing(0) * g.spacing(0)), ay = 1 / (g.spacing(1) * g.spacing(1));
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const double w = ax * k(i - 0.5, j), e = ax * k(i + 0.5, j), s = ay * k(i, j - 0.5),
                   n = ay * k(i, j + 0.5);
      cw(i, j) = Real(i > 1 ? w : 0);
      ce(i, j) = Real(i < nx ? e : 0);
      cs(i, j) = Real(j > 1 ? s : 0);
      cn(i, j) = Real(j < ny ? n : 0);
      cp(i, j) = Real(-(w + e + s + n) - (i == 1 ? w : 0) - (i == nx ? e : 0) - (j == 1 ? s : 0) -
                      (j == ny ? n : 0));
    }
  la::Stencil5<Real, Host> op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

// The 5-point Laplacian with the sides' conditions (west, east, south, north:
// true = Neumann, false = Dirichlet).
template <class Real>
la::Uniform5<Real> uniform_laplacian(const la::Grid& g, const bool (&neumann)[4]) {
  la::Uniform5<Real> op;
  const double ax = 1 / (g.spacing(0) * g.spacing(0)), ay = 1 / (g.spacing(1) * g.spacing(1));
  op.c = {Real(-2 * ax - 2 * ay), Real(ax), Real(ax), Real(ay), Real(ay)};
  std::copy(neumann, neumann + 4, op.neumann);
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

// The masked Laplacian of a box with an obstacle (its rows are zero).
template <class Real>
la::Laplace5<Real, Host> masked_laplacian(const la::Grid& g) {
  const int nx = g.cells[0], ny = g.cells[1];
  Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Host> mask("mask", g.extent(0), g.extent(1));
  auto in = [&](int i, int j) {
    const bool obstacle = i >= 6 && i <= 9 && j >= 4 && j <= 8;
    return i >= 1 && i <= nx && j >= 1 && j <= ny && !obstacle;
  };
  namespace mb = la::mask_bits;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i)
      if (in(i, j))
        mask(i, j) = mb::self | (in(i - 1, j) ? mb::west : 0) | (in(i + 1, j) ? mb::east : 0) |
                     (in(i, j - 1) ? mb::south : 0) | (in(i, j + 1) ? mb::north : 0);
  la::Laplace5<Real, Host> op;
  op.mask = mask;
  op.cx = Real(1 / (g.spacing(0) * g.spacing(0)));
  op.cy = Real(1 / (g.spacing(1) * g.spacing(1)));
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

// Uniform5 holds no View: the same value on every space.
template <class Space, class Real>
la::Uniform5<Real> op_to_space(const la::Uniform5<Real>& op) {
  return op;
}

// Random values in [-1, 1] on every stored cell, ghosts included (the
// products with the zero entries must not depend on them).
template <class Real>
HF<Real> random_values(const la::Grid& g, unsigned seed) {
  auto x = hfield<Real>(g, "x");
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int j = 0; j < g.extent(1); ++j)
    for (int i = 0; i < g.extent(0); ++i) x(i, j) = Real(u(gen));
  return x;
}

template <class Real>
constexpr double eps() {
  return double(std::numeric_limits<Real>::epsilon());
}

// The layout of dia.hpp read back on the host: row r = (i-1) + (j-1) nx,
// diagonals -nx, -1, 0, +1, +nx, zero across row ends and grid edges.
template <class Real, class Mem, class HOp>
void check_layout(const la::Dia5<Real, Mem>& dia, const HOp& hop) {
  const int nx = hop.grid.cells[0], ny = hop.grid.cells[1];
  REQUIRE(dia.rows() == nx * ny);
  REQUIRE(int(dia.data.extent(0)) == nx * ny);
  REQUIRE(int(dia.data.extent(1)) == 5);
  CHECK(dia.offset(la::dia5::south) == -nx);
  CHECK(dia.offset(la::dia5::west) == -1);
  CHECK(dia.offset(la::dia5::centre) == 0);
  CHECK(dia.offset(la::dia5::east) == 1);
  CHECK(dia.offset(la::dia5::north) == nx);
  const auto d = to_host(dia.data);
  long wrong = 0, wrong_zero = 0;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const auto c = hop.coeffs(i, j);
      const int r = (i - 1) + (j - 1) * nx;
      wrong += d(r, 0) != (j > 1 ? c.s : Real(0));
      wrong += d(r, 1) != (i > 1 ? c.w : Real(0));
      wrong += d(r, 2) != c.p;
      wrong += d(r, 3) != (i < nx ? c.e : Real(0));
      wrong += d(r, 4) != (j < ny ? c.n : Real(0));
      wrong_zero += (i == 1 && d(r, 1) != 0) + (i == nx && d(r, 3) != 0) +
                    (j == 1 && d(r, 0) != 0) + (j == ny && d(r, 4) != 0);
    }
  CHECK(wrong == 0);
  CHECK(wrong_zero == 0);
}

// y = A x by DIA and matrix-free on Space, each against a long-double
// reference to within 5 eps sum |a x| per row, and against each other to
// 10 eps; the ghosts of y untouched.
template <class Space, class Real, class HOp>
void check_spmv(const HOp& hop, const std::string& what) {
  using Mem = typename Space::memory_space;
  Space space;
  const la::Grid& g = hop.grid;
  const int nx = g.cells[0], ny = g.cells[1];
  const auto op = op_to_space<Space>(hop);
  const auto dia = la::make_dia5(space, op);
  static_assert(std::is_same_v<std::remove_const_t<decltype(dia)>, la::Dia5<Real, Mem>>);
  check_layout(dia, hop);
  const auto hx = random_values<Real>(g, 11);
  const auto x = to_space<Space>(hx);
  const Real sentinel = Real(7.25);
  la::Field<Real, 2, Mem> yd("yd", g.extent(0), g.extent(1)), ym("ym", g.extent(0), g.extent(1));
  Kokkos::deep_copy(yd, sentinel);
  Kokkos::deep_copy(ym, sentinel);
  la::spmv(space, dia, x, yd);
  la::apply(space, op, x, ym);
  space.fence();
  const auto hd = to_host(yd), hm = to_host(ym);
  double worst_dia = 0, worst_mf = 0, worst_pair = 0;
  long ghosts = 0;
  for (int j = 0; j < g.extent(1); ++j)
    for (int i = 0; i < g.extent(0); ++i) {
      if (i < 1 || i > nx || j < 1 || j > ny) {
        ghosts += hd(i, j) != sentinel || hm(i, j) != sentinel;
        continue;
      }
      const auto c = hop.coeffs(i, j);
      const LD t[5] = {LD(c.p) * hx(i, j), LD(c.w) * hx(i - 1, j), LD(c.e) * hx(i + 1, j),
                       LD(c.s) * hx(i, j - 1), LD(c.n) * hx(i, j + 1)};
      LD ref = 0, mag = 0;
      for (LD v : t) ref += v, mag += std::fabs(v);
      const double scale = double(mag) > 0 ? double(mag) : 1.0;
      worst_dia = std::max(worst_dia, double(std::fabs(hd(i, j) - ref)) / scale);
      worst_mf = std::max(worst_mf, double(std::fabs(hm(i, j) - ref)) / scale);
      worst_pair = std::max(worst_pair, double(std::fabs(hd(i, j) - hm(i, j))) / scale);
    }
  INFO(what << ", " << sizeof(Real) * 8 << "-bit: max error / (eps sum|a x|): DIA "
            << worst_dia / eps<Real>() << ", matrix-free " << worst_mf / eps<Real>()
            << ", DIA - matrix-free " << worst_pair / eps<Real>());
  CHECK(worst_dia <= 5 * eps<Real>());
  CHECK(worst_mf <= 5 * eps<Real>());
  CHECK(worst_pair <= 10 * eps<Real>());
  CHECK(ghosts == 0);
  // The operator concept: Dia5::coeffs gives the operator's rows, 0 on ghosts.
  long wrong = 0;
  const la::Dia5<Real, Host> hdia{{dia}, to_host(dia.data), dia.grid};
  for (int j = 0; j < g.extent(1); ++j)
    for (int i = 0; i < g.extent(0); ++i) {
      const auto a = hdia.coeffs(i, j);
      if (i < 1 || i > nx || j < 1 || j > ny) {
        wrong += a.p != 0 || a.w != 0 || a.e != 0 || a.s != 0 || a.n != 0;
        continue;
      }
      const auto c = hop.coeffs(i, j);
      wrong += a.p != c.p || (i > 1 && a.w != c.w) || (i < nx && a.e != c.e) ||
               (j > 1 && a.s != c.s) || (j < ny && a.n != c.n);
    }
  CHECK(wrong == 0);
}

template <class Space, class Real>
void spmv_all_operators() {
  const auto g = grid2(37, 23);
  check_spmv<Space, Real>(random_stencil<Real>(g, 5), "Stencil5, random coefficients");
  check_spmv<Space, Real>(diffusion_stencil<Real>(g), "Stencil5, diffusion");
  check_spmv<Space, Real>(masked_laplacian<Real>(g), "Laplace5 with an obstacle");
  const bool dirichlet[4] = {false, false, false, false}, neumann[4] = {true, true, true, true},
             mixed[4] = {true, false, false, true};
  check_spmv<Space, Real>(uniform_laplacian<Real>(g, dirichlet), "Uniform5, Dirichlet sides");
  check_spmv<Space, Real>(uniform_laplacian<Real>(g, neumann), "Uniform5, Neumann sides");
  check_spmv<Space, Real>(uniform_laplacian<Real>(g, mixed),
                          "Uniform5, W, N Neumann, E, S Dirichlet");
  // Strips: one row or one column of cells (every entry at a row end or edge).
  check_spmv<Space, Real>(random_stencil<Real>(grid2(1, 9), 6), "Stencil5, 1 x 9");
  check_spmv<Space, Real>(random_stencil<Real>(grid2(8, 1), 7), "Stencil5, 8 x 1");
  check_spmv<Space, Real>(uniform_laplacian<Real>(grid2(1, 1), mixed), "Uniform5, 1 x 1");
}

// x* smooth, not zero at the walls; b = A x* in long double from the
// operator's own coefficients (the discrete solution is x* to rounding).
template <class Real, class HOp>
HF<Real> manufactured_rhs(const HOp& hop, HF<double>& exact) {
  const la::Grid& g = hop.grid;
  exact = hfield<double>(g, "exact");
  auto b = hfield<Real>(g, "b");
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i) {
      const double x = g.centre(0, i - 1), y = g.centre(1, j - 1);
      exact(i, j) = std::cos(2.1 * x + 0.4) * std::sin(3.3 * y + 0.7) + 0.25;
    }
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i) {
      const auto c = hop.coeffs(i, j);
      const LD v = LD(c.p) * exact(i, j) + LD(c.w) * exact(i - 1, j) + LD(c.e) * exact(i + 1, j) +
                   LD(c.s) * exact(i, j - 1) + LD(c.n) * exact(i, j + 1);
      b(i, j) = Real(v);
    }
  return b;
}

template <class Space, class Real, class HOp>
void check_cg(const HOp& hop, const std::string& what) {
  using Mem = typename Space::memory_space;
  using F = la::Field<Real, 2, Mem>;
  Space space;
  const la::Grid& g = hop.grid;
  const auto op = op_to_space<Space>(hop);
  const auto dia = la::make_dia5(space, op);
  HF<double> exact;
  const auto hb = manufactured_rhs<Real>(hop, exact);
  const auto b = to_space<Space>(hb);
  typename la::Solver<Space, Real, 2>::B cb = b;
  // The residual criterion stalls near eps |A| |x| / |b|: 1e-5 in float.
  la::SolveControl c;
  c.tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-11;
  c.check_every = 1;
  c.max_iterations = 10000;
  for (auto pre : {la::CgPreconditioner::none, la::CgPreconditioner::jacobi}) {
    F xm("xm", g.extent(0), g.extent(1)), xd("xd", g.extent(0), g.extent(1));
    using MOp = std::remove_const_t<decltype(op)>;
    using DOp = std::remove_const_t<decltype(dia)>;
    la::ConjugateGradient<Space, MOp> cgm(space, op, la::CgOptions{pre});
    la::ConjugateGradient<Space, DOp> cgd(space, dia, la::CgOptions{pre});
    CHECK(cgd.sign() == cgm.sign());
    CHECK(cgd.singular() == cgm.singular());
    const auto sm = cgm.solve(xm, cb, c);
    const auto sd = cgd.solve(xd, cb, c);
    const auto hm = to_host(xm), hd = to_host(xd);
    double em = 0, ed = 0, diff = 0, xmax = 0;
    for (int j = 1; j <= g.cells[1]; ++j)
      for (int i = 1; i <= g.cells[0]; ++i) {
        em = std::max(em, std::fabs(double(hm(i, j)) - exact(i, j)));
        ed = std::max(ed, std::fabs(double(hd(i, j)) - exact(i, j)));
        diff = std::max(diff, std::fabs(double(hm(i, j)) - double(hd(i, j))));
        xmax = std::max(xmax, std::fabs(exact(i, j)));
      }
    // The true residual through operator.hpp on both operators.
    const double rm = la::residual_max_norm(space, op, xm, b);
    const double rd = la::residual_max_norm(space, dia, xd, b);
    const double bmax = la::system_max_norm(space, dia, b);
    INFO(what << ", " << sizeof(Real) * 8 << "-bit, " << cgd.name() << ": iterations "
              << sm.iterations << " (matrix-free) / " << sd.iterations << " (DIA), error " << em
              << " / " << ed << ", difference " << diff << ", residual " << rm / bmax << " / "
              << rd / bmax);
    CHECK(sm.converged);
    CHECK(sd.converged);
    CHECK(std::abs(sm.iterations - sd.iterations) <= 1);
    CHECK(bmax == la::system_max_norm(space, op, b));
    CHECK(rm <= c.tolerance * bmax);
    CHECK(rd <= c.tolerance * bmax);
    // |x - x*| <= ||A^-1|| max|r| (||A^-1||_inf < 1 for these operators)
    // plus the rounding of b and x* in Real.
    const double bound = c.tolerance * bmax + 100 * eps<Real>() * xmax;
    CHECK(em <= bound);
    CHECK(ed <= bound);
    CHECK(diff <= 2 * bound);
  }
}

template <class Space, class Real>
void cg_all_operators() {
  const auto g = grid2(37, 23);
  const bool dirichlet[4] = {false, false, false, false}, mixed[4] = {true, false, false, true};
  check_cg<Space, Real>(uniform_laplacian<Real>(g, dirichlet), "Uniform5, Dirichlet sides");
  check_cg<Space, Real>(uniform_laplacian<Real>(g, mixed),
                        "Uniform5, W, N Neumann, E, S Dirichlet");
  check_cg<Space, Real>(diffusion_stencil<Real>(g), "Stencil5, variable coefficients");
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("DIA and matrix-free SpMV give the same y (Stencil5, Laplace5, Uniform5)",
                        "[dia][unit]", kflow::test::ExecutionSpaces) {
  spmv_all_operators<TestType, double>();
  spmv_all_operators<TestType, float>();
}

TEMPLATE_LIST_TEST_CASE("CG on the DIA operator and on the matrix-free one reach the same solution",
                        "[dia][cg][unit]", kflow::test::ExecutionSpaces) {
  cg_all_operators<TestType, double>();
  cg_all_operators<TestType, float>();
}

TEMPLATE_LIST_TEST_CASE("Red-black SOR and SIP take a Dia5 unchanged: the matrix-free iterates",
                        "[dia][unit]", kflow::test::ExecutionSpaces) {
  using S = TestType;
  using Mem = typename S::memory_space;
  S space;
  const auto g = grid2(37, 23);
  const auto hop = diffusion_stencil<double>(g);
  const auto op = op_to_space<S>(hop);
  const auto dia = la::make_dia5(space, op);
  HF<double> exact;
  const auto b = to_space<S>(manufactured_rhs<double>(hop, exact));
  la::SolveControl fixed;
  fixed.tolerance = 0;
  fixed.max_iterations = 7;
  auto diff = [&](const auto& a, const auto& c) {
    const auto ha = to_host(a), hc = to_host(c);
    double d = 0;
    for (int j = 1; j <= g.cells[1]; ++j)
      for (int i = 1; i <= g.cells[0]; ++i) d = std::max(d, std::fabs(ha(i, j) - hc(i, j)));
    return d;
  };
  using F = la::Field<double, 2, Mem>;
  using MOp = std::remove_const_t<decltype(op)>;
  using DOp = std::remove_const_t<decltype(dia)>;
  {
    F xm("xm", g.extent(0), g.extent(1)), xd("xd", g.extent(0), g.extent(1));
    la::RedBlackSOR<S, MOp>(space, op, la::SorOptions{1.5}).solve(xm, b, fixed);
    la::RedBlackSOR<S, DOp>(space, dia, la::SorOptions{1.5}).solve(xd, b, fixed);
    CHECK(diff(xm, xd) <= 1e-12 * la::max_norm(space, g, xm));
  }
  {
    F xm("xm", g.extent(0), g.extent(1)), xd("xd", g.extent(0), g.extent(1));
    la::Sip<S, MOp>(space, op).solve(xm, b, fixed);
    la::Sip<S, DOp>(space, dia).solve(xd, b, fixed);
    CHECK(diff(xm, xd) <= 1e-12 * la::max_norm(space, g, xm));
  }
}

TEMPLATE_LIST_TEST_CASE("make_dia5 rejects periodic operators and couplings to ghost cells",
                        "[dia][unit]", kflow::test::ExecutionSpaces) {
  using S = TestType;
  S space;
  const auto g = grid2(12, 9);
  const bool dirichlet[4] = {false, false, false, false};
  for (auto [px, py] : {std::pair{true, false}, std::pair{false, true}}) {
    auto op = uniform_laplacian<double>(g, dirichlet);
    la::set_neighbours(op, g, px, py);
    try {
      la::make_dia5(space, op);
      FAIL("a periodic operator was accepted");
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      INFO(m);
      CHECK(m.find("periodic in " + std::string(px ? "x" : "y")) != std::string::npos);
      CHECK(m.find("non-periodic") != std::string::npos);
    }
  }
  // A coefficient towards a ghost value (a Dirichlet value not folded into b).
  auto hop = random_stencil<double>(g, 3);
  auto cn = hfield<double>(g);
  Kokkos::deep_copy(cn, hop.cn);
  cn(4, 9) = 1.0;
  hop.cn = cn;
  try {
    la::make_dia5(space, op_to_space<S>(hop));
    FAIL("a coupling to a ghost cell was accepted");
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("1 row(s) couple to a cell outside the grid (first: cell (4, 9))") !=
          std::string::npos);
  }
  // Neighbours set for another grid.
  auto other = uniform_laplacian<double>(g, dirichlet);
  la::set_neighbours(other, grid2(12, 10), false, false);
  CHECK_THROWS_AS(la::make_dia5(space, other), std::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("linalg::apply is A x in 3D too (Stencil7), ghosts of y untouched",
                        "[dia][unit]", kflow::test::ExecutionSpaces) {
  using S = TestType;
  using F3 = la::Field<double, 3, Host>;
  la::Grid g;
  g.dim = 3;
  g.cells = {5, 4, 3};
  const int e0 = g.extent(0), e1 = g.extent(1), e2 = g.extent(2);
  std::mt19937 gen(9);
  std::uniform_real_distribution<double> u(-1, 1);
  auto random3 = [&](const char* label) {
    F3 f(label, e0, e1, e2);
    for (int k = 0; k < e2; ++k)
      for (int j = 0; j < e1; ++j)
        for (int i = 0; i < e0; ++i) f(i, j, k) = u(gen);
    return f;
  };
  la::Stencil7<double, Host> hop;
  hop.cp = random3("cp"), hop.cw = random3("cw"), hop.ce = random3("ce");
  hop.cs = random3("cs"), hop.cn = random3("cn"), hop.cb = random3("cb");
  hop.ct = random3("ct");
  hop.grid = g;
  const F3 hx = random3("x");
  F3 y0("y", e0, e1, e2);
  Kokkos::deep_copy(y0, 7.25);
  const auto y = to_space<S>(y0);
  la::apply(S(), op_to_space<S>(hop), to_space<S>(hx), y);
  const auto hy = to_host(y);
  double worst = 0;
  long ghosts = 0;
  for (int k = 0; k < e2; ++k)
    for (int j = 0; j < e1; ++j)
      for (int i = 0; i < e0; ++i) {
        const bool interior = i >= 1 && i <= 5 && j >= 1 && j <= 4 && k >= 1 && k <= 3;
        if (!interior) {
          ghosts += hy(i, j, k) != 7.25;
          continue;
        }
        worst = std::max(worst, std::fabs(hy(i, j, k) - la::apply_at(hop, hx, i, j, k)));
      }
  CHECK(worst <= 1e-14);
  CHECK(ghosts == 0);
}
