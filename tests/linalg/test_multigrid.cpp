// Geometric multigrid (linalg/multigrid.hpp) and multigrid-preconditioned CG
// on every execution space compiled in: second-order discretisation error
// against exact solutions of the Poisson equation with Dirichlet, Neumann
// and periodic sides in 2D and 3D; the residual reduction per V-cycle
// measured and bounded on grids from 32^2 to 1024^2 and 16^3 to 128^3 (so the
// cycle count does not grow with the grid); obstacles (a cylinder and a
// step), pure Neumann with an incompatible right-hand side, odd and prime
// sizes, Dirichlet walls at a node ring, W- and F-cycles, weighted Jacobi,
// Chebyshev, single precision, coarse levels on one team and the coarsest
// level by CG.  Operators and
// right-hand sides are built on the host and copied to the space.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/multigrid.hpp"
#include "linalg/backends.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;

namespace {

using kflow::test::op_to_space;
using kflow::test::to_host;
using kflow::test::to_space;

const double pi = 3.14159265358979323846;

// The kind of each side: Dirichlet (u = 0 on the face, mirrored ghost),
// Neumann (zero normal gradient) or periodic (both sides of a direction).
enum class Side { dirichlet, neumann, periodic };

template <class Real>
la::Field<Real, 2, Mem> field2(const la::Grid& g) {
  return la::Field<Real, 2, Mem>("f", g.extent(0), g.extent(1));
}
template <class Real>
la::Field<Real, 3, Mem> field3(const la::Grid& g) {
  return la::Field<Real, 3, Mem>("f", g.extent(0), g.extent(1), g.extent(2));
}

la::Grid grid(int dim, int nx, int ny, int nz = 1) {
  la::Grid g;
  g.dim = dim;
  g.cells = {nx, ny, dim == 3 ? nz : 1};
  g.length = {1.0, double(ny) / nx, dim == 3 ? double(nz) / nx : 1.0};
  return g;
}

// The 5-point Laplacian (matrix entries: c.p < 0) on the fluid cells, with
// the sides' conditions; solid cells are out of the system and their faces
// are walls with zero flux.
template <class Real>
la::Stencil5<Real, Mem> laplacian2(const la::Grid& g, const Side (&side)[2],
                                   const std::function<bool(int, int)>& solid = {},
                                   bool dirichlet_east = false) {
  auto cp = field2<Real>(g), cw = field2<Real>(g), ce = field2<Real>(g), cs = field2<Real>(g),
       cn = field2<Real>(g);
  const int n[2] = {g.cells[0], g.cells[1]};
  const double a[2] = {1 / (g.spacing(0) * g.spacing(0)), 1 / (g.spacing(1) * g.spacing(1))};
  auto fluid = [&](int i, int j) {
    return !solid || !solid(i, j);
  };
  for (int j = 1; j <= n[1]; ++j)
    for (int i = 1; i <= n[0]; ++i) {
      if (!fluid(i, j)) continue;
      double p = 0, c[4] = {0, 0, 0, 0};  // w, e, s, n
      for (int q = 0; q < 4; ++q) {
        const int d = q / 2, s = q % 2 ? 1 : -1;
        int ij[2] = {i, j};
        ij[d] += s;
        if (ij[d] < 1 || ij[d] > n[d]) {
          if (side[d] == Side::periodic) {
            ij[d] = ij[d] < 1 ? n[d] : 1;
          } else {
            if (side[d] == Side::dirichlet || (q == 1 && dirichlet_east)) p -= 2 * a[d];
            continue;
          }
        }
        if (!fluid(ij[0], ij[1])) continue;
        c[q] = a[d];
        p -= a[d];
      }
      cp(i, j) = Real(p), cw(i, j) = Real(c[0]), ce(i, j) = Real(c[1]), cs(i, j) = Real(c[2]),
            cn(i, j) = Real(c[3]);
    }
  la::Stencil5<Real, Mem> op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, side[0] == Side::periodic, side[1] == Side::periodic);
  return op;
}

// The 7-point Laplacian with the same side kinds (`side` on every
// direction but those `periodic` names).
template <class Real>
la::Stencil7<Real, Mem> laplacian3(const la::Grid& g, Side side,
                                   std::array<bool, 3> periodic = {false, false, false}) {
  la::Field<Real, 3, Mem> c[7];
  for (auto& f : c) f = field3<Real>(g);
  const int n[3] = {g.cells[0], g.cells[1], g.cells[2]};
  for (int k = 1; k <= n[2]; ++k)
    for (int j = 1; j <= n[1]; ++j)
      for (int i = 1; i <= n[0]; ++i) {
        double p = 0;
        for (int q = 0; q < 6; ++q) {
          const int d = q / 2, s = q % 2 ? 1 : -1;
          const double a = 1 / (g.spacing(d) * g.spacing(d));
          const int ijk[3] = {i, j, k};
          const int m = ijk[d] + s;
          if ((m < 1 || m > n[d]) && !periodic[std::size_t(d)]) {
            if (side == Side::dirichlet) p -= 2 * a;
            continue;
          }
          c[1 + q](i, j, k) = Real(a);
          p -= a;
        }
        c[0](i, j, k) = Real(p);
      }
  la::Stencil7<Real, Mem> op;
  op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4], op.cb = c[5], op.ct = c[6];
  op.grid = g;
  la::set_neighbours(op, g, periodic[0], periodic[1], periodic[2]);
  return op;
}

// Uniform random values in [-1, 1) on the system cells (a hash of the index).
double hash01(int i, int j, int k) {
  unsigned long long z = (unsigned long long)(i)*0x9E3779B97F4A7C15ull +
                         (unsigned long long)(j)*0xBF58476D1CE4E5B9ull + (unsigned long long)k;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

template <class Real, class Op>
la::Field<Real, 2, Mem> random_rhs2(const Op& op) {
  auto b = field2<Real>(op.grid);
  for (int j = 1; j <= op.grid.cells[1]; ++j)
    for (int i = 1; i <= op.grid.cells[0]; ++i)
      b(i, j) = op.coeffs(i, j).p != 0 ? Real(hash01(i, j, 0)) : Real(0);
  return b;
}

// Uniform random values in [-1, 1) on every cell of a 3D grid (hash01).
la::Field<double, 3, Mem> random_rhs3(const la::Grid& g) {
  auto b = field3<double>(g);
  for (int k = 1; k <= g.cells[2]; ++k)
    for (int j = 1; j <= g.cells[1]; ++j)
      for (int i = 1; i <= g.cells[0]; ++i) b(i, j, k) = hash01(i, j, k);
  return b;
}

la::SolveControl control(double tol, int max_iterations = 200) {
  la::SolveControl c;
  c.tolerance = tol;
  c.check_every = 1;
  c.max_iterations = max_iterations;
  c.criterion = la::Criterion::residual;
  return c;
}

// The mean residual reduction per iteration of a solve from x = 0 to
// `tol` (the criterion is relative to max |b|).
double factor(const la::SolveStats& s) {
  return std::pow(s.criterion, 1.0 / s.iterations);
}

// Solves on Space from x = 0; the solution on the host.
template <class Space, class Solver, class HF>
auto solve_on(Solver& solver, const HF& b, const la::SolveControl& c, la::SolveStats& s) {
  const auto x = to_space<Space>(HF("x", b.layout()));
  s = solver.solve(x, to_space<Space>(b), c);
  return to_host(x);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("multigrid: residual reduction per V-cycle bounded from 32^2 to 1024^2",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // Dirichlet Laplacian, random right-hand side, V(2,2) with red-black
  // Gauss-Seidel, max-norm residual to 1e-10 of max |b|.  Measured (the
  // mean reduction per cycle) 0.098 to 0.104 from 32^2 to 1024^2 (10 to 11
  // cycles), V(1,1) 0.199 to 0.201 (15 cycles): independent of the levels.
  // Bounds 0.12 (and 12 cycles) and 0.25.  Before the transfers
  // extrapolated to the walls' zero (mg_ghost), V(2,2) grew from 0.095 to
  // 0.160 with the levels and V(1,1) took 0.67 on 128^2.
  for (int n : {32, 64, 128, 256, 512, 1024}) {
    const auto g = grid(2, n, n);
    const Side side[2] = {Side::dirichlet, Side::dirichlet};
    const auto hop = laplacian2<double>(g, side);
    const auto op = op_to_space<TestType>(hop);
    for (const int sweeps : {2, 1}) {
      la::MgOptions o;
      o.pre_sweeps = o.post_sweeps = sweeps;
      la::Multigrid<TestType, decltype(op)> mg(TestType(), op, o);
      la::SolveStats s;
      solve_on<TestType>(mg, random_rhs2<double>(hop), control(1e-10), s);
      INFO(n << "^2 " << mg.name() << ": " << s.iterations << " cycles, factor " << factor(s));
      CHECK(s.converged);
      CHECK(factor(s) <= (sweeps == 2 ? 0.12 : 0.25));
      if (sweeps == 2) CHECK(s.iterations <= 12);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: residual reduction per V-cycle bounded from 16^3 to 128^3",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // 7-point Dirichlet Laplacian, random right-hand side, V(2,2) red-black
  // Gauss-Seidel.  Measured 0.144 (16^3), 0.152, 0.153 and 0.158 (128^3, 13
  // cycles), V(1,1) 0.277 to 0.292 (18 to 19 cycles); bounds 0.17 (and 13
  // cycles) and 0.32.  With zero-gradient ghosts at the walls V(2,2) grew to
  // 0.193 on 128^3 and V(1,1) took 62 cycles on 32^3 and diverged on 64^3.
  for (int n : {16, 32, 64, 128}) {
    const auto g = grid(3, n, n, n);
    const auto hop = laplacian3<double>(g, Side::dirichlet);
    const auto hb = random_rhs3(g);
    const auto op = op_to_space<TestType>(hop);
    for (const int sweeps : {2, 1}) {
      la::MgOptions o;
      o.pre_sweeps = o.post_sweeps = sweeps;
      la::Multigrid<TestType, decltype(op)> mg(TestType(), op, o);
      la::SolveStats s;
      solve_on<TestType>(mg, hb, control(1e-10), s);
      INFO(n << "^3 " << mg.name() << ": " << s.iterations << " cycles, factor " << factor(s));
      CHECK(s.converged);
      CHECK(factor(s) <= (sweeps == 2 ? 0.17 : 0.32));
      if (sweeps == 2) CHECK(s.iterations <= 13);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: second-order error against exact solutions, every side kind",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // lap u = f on the unit square (cells of size h), u exact:
  //   Dirichlet  u = sin(pi x) sin(pi y)
  //   Neumann    u = cos(pi x) cos(pi y)        (pure Neumann: up to a constant)
  //   periodic x, Dirichlet y: u = sin(2 pi x) sin(pi y)
  //   periodic x and y:        u = sin(2 pi x) cos(2 pi y) (up to a constant)
  // The error at the cell centres must fall by 4 per halving of h (ratio in
  // [3.6, 4.4]; measured 4.0 for each); the error values are in the message.
  struct Case {
    const char* name;
    Side side[2];
    double kx, ky;  // wave numbers / pi
    bool cosine;    // cos instead of sin
  };
  const Case cases[] = {{"dirichlet", {Side::dirichlet, Side::dirichlet}, 1, 1, false},
                        {"neumann", {Side::neumann, Side::neumann}, 1, 1, true},
                        {"periodic x, dirichlet y", {Side::periodic, Side::dirichlet}, 2, 1, false},
                        {"periodic x and y", {Side::periodic, Side::periodic}, 2, 2, true}};
  for (const auto& c : cases) {
    double previous = 0;
    for (int n : {32, 64, 128}) {
      const auto g = grid(2, n, n);
      const auto hop = laplacian2<double>(g, c.side);
      auto hb = field2<double>(g), exact = field2<double>(g);
      for (int j = 1; j <= n; ++j)
        for (int i = 1; i <= n; ++i) {
          const double x = g.centre(0, i - 1), y = g.centre(1, j - 1);
          double u = std::sin(c.kx * pi * x) * std::sin(c.ky * pi * y);
          if (c.cosine && c.side[1] == Side::periodic)
            u = std::sin(c.kx * pi * x) * std::cos(c.ky * pi * y);
          else if (c.cosine)
            u = std::cos(c.kx * pi * x) * std::cos(c.ky * pi * y);
          exact(i, j) = u;
          hb(i, j) = -(c.kx * c.kx + c.ky * c.ky) * pi * pi * u;
        }
      const auto op = op_to_space<TestType>(hop);
      la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
      la::SolveStats s;
      const auto x = solve_on<TestType>(mg, hb, control(1e-11), s);
      const bool singular = c.side[0] != Side::dirichlet && c.side[1] != Side::dirichlet;
      CHECK(mg.singular() == singular);
      const double e = kflow::test::error(hop, x, exact, singular);
      INFO(c.name << " " << n << "^2: " << s.iterations << " cycles, error " << e);
      CHECK(s.converged);
      CHECK(s.iterations <= 20);  // to 1e-11: 15 (Dirichlet) to 18 (Neumann) on 128^2
      if (previous > 0) {
        CHECK(previous / e >= 3.6);
        CHECK(previous / e <= 4.4);
      }
      previous = e;
    }
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: second-order error in 3D, Dirichlet and Neumann",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  for (Side side : {Side::dirichlet, Side::neumann}) {
    double previous = 0;
    for (int n : {16, 32}) {
      const auto g = grid(3, n, n, n);
      const auto hop = laplacian3<double>(g, side);
      auto hb = field3<double>(g), exact = field3<double>(g);
      double mean = 0;
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i) {
            const double x = g.centre(0, i - 1), y = g.centre(1, j - 1), z = g.centre(2, k - 1);
            const double u = side == Side::dirichlet
                                 ? std::sin(pi * x) * std::sin(pi * y) * std::sin(pi * z)
                                 : std::cos(pi * x) * std::cos(pi * y) * std::cos(pi * z);
            exact(i, j, k) = u;
            hb(i, j, k) = -3 * pi * pi * u;
          }
      const auto op = op_to_space<TestType>(hop);
      la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
      la::SolveStats s;
      const auto x = solve_on<TestType>(mg, hb, control(1e-12), s);
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i) mean += x(i, j, k) - exact(i, j, k);
      mean = side == Side::neumann ? mean / (double(n) * n * n) : 0;
      double e = 0;
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i)
            e = std::max(e, std::fabs(x(i, j, k) - exact(i, j, k) - mean));
      INFO((side == Side::dirichlet ? "dirichlet " : "neumann ")
           << n << "^3: " << s.iterations << " cycles, error " << e);
      CHECK(s.converged);
      if (previous > 0) {
        CHECK(previous / e >= 3.6);
        CHECK(previous / e <= 4.4);
      }
      previous = e;
    }
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: second-order error in 3D with periodic sides",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // periodic x, Dirichlet y and z: u = sin(2 pi x) sin(pi y) sin(pi z);
  // periodic x and z, Neumann y (singular): u = sin(2 pi x) cos(pi y) cos(2 pi z).
  struct Case {
    const char* name;
    Side side;
    std::array<bool, 3> periodic;
  };
  for (const Case& c : {Case{"periodic x", Side::dirichlet, {true, false, false}},
                        Case{"periodic x and z, neumann y", Side::neumann, {true, false, true}}}) {
    double previous = 0;
    for (int n : {16, 32}) {
      const auto g = grid(3, n, n, n);
      const auto hop = laplacian3<double>(g, c.side, c.periodic);
      auto hb = field3<double>(g), exact = field3<double>(g);
      const bool dir = c.side == Side::dirichlet;
      const double kz = dir ? pi : 2 * pi, k2 = 4 * pi * pi + pi * pi + kz * kz;
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i) {
            const double x = g.centre(0, i - 1), y = g.centre(1, j - 1), z = g.centre(2, k - 1);
            const double u = dir ? std::sin(2 * pi * x) * std::sin(pi * y) * std::sin(pi * z)
                                 : std::sin(2 * pi * x) * std::cos(pi * y) * std::cos(kz * z);
            exact(i, j, k) = u;
            hb(i, j, k) = -k2 * u;
          }
      const auto op = op_to_space<TestType>(hop);
      la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
      la::SolveStats s;
      const auto x = solve_on<TestType>(mg, hb, control(1e-12), s);
      double mean = 0;
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i) mean += x(i, j, k) - exact(i, j, k);
      mean = dir ? 0 : mean / (double(n) * n * n);  // the singular case's constant
      double e = 0;
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i)
            e = std::max(e, std::fabs(x(i, j, k) - exact(i, j, k) - mean));
      INFO(c.name << " " << n << "^3: " << s.iterations << " cycles, error " << e);
      CHECK(s.converged);
      CHECK(s.iterations <= 20);
      if (previous > 0) {
        CHECK(previous / e >= 3.6);
        CHECK(previous / e <= 4.4);
      }
      previous = e;
    }
  }
}

namespace {
// mac2d's obstacles on an nx x ny channel (length 2 x 1... cells of one size):
// a cylinder of diameter ny/4 at (ny/2, ny/2), or a backward-facing step
// filling the lower half of the first quarter.
bool cylinder(int i, int j, int ny) {
  const double x = i - 0.5 - ny / 2.0, y = j - 0.5 - ny / 2.0, r = ny / 8.0;
  return x * x + y * y <= r * r;
}
bool step(int i, int j, int nx, int ny) {
  return i <= nx / 4 && j <= ny / 2;
}
}  // namespace

TEMPLATE_LIST_TEST_CASE("multigrid: obstacles keep the cycle count independent of h",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // The pressure equation of a channel (walls and inflow: Neumann; outflow
  // east: Dirichlet) around a cylinder and behind a step, 64x32 to 512x256:
  // cycles to 1e-10 within 2 of the coarsest grid's, and the solution the
  // discrete one (b = A x for a known x).
  for (int shape = 0; shape < 2; ++shape) {
    int first = 0;
    for (int n : {32, 64, 128, 256}) {
      const auto g = grid(2, 2 * n, n);
      const Side side[2] = {Side::neumann, Side::neumann};
      std::function<bool(int, int)> solid = [&](int i, int j) {
        return shape == 0 ? cylinder(i, j, n) : step(i, j, 2 * n, n);
      };
      const auto hop = laplacian2<double>(g, side, solid, true);
      auto exact = field2<double>(g);
      for (int j = 1; j <= n; ++j)
        for (int i = 1; i <= 2 * n; ++i)
          exact(i, j) = hop.coeffs(i, j).p != 0 ? hash01(i, j, 7) : 0;
      const auto hb = kflow::test::rhs_of(hop, exact);
      const auto op = op_to_space<TestType>(hop);
      la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
      la::SolveStats s;
      const auto x = solve_on<TestType>(mg, hb, control(1e-10), s);
      INFO((shape ? "step " : "cylinder ") << 2 * n << "x" << n << " " << mg.name() << ": "
                                           << s.iterations << " cycles, factor " << factor(s));
      CHECK(s.converged);
      CHECK(!mg.singular());
      CHECK(kflow::test::error(hop, x, exact, false) < 1e-6);
      if (first == 0) first = s.iterations;
      CHECK(s.iterations <= first + 2);
    }
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: a masked pure-Neumann Laplacian with an incompatible rhs",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // mac2d's Laplace5 (flag field) around a cylinder with walls everywhere,
  // periodic in x or not: singular; a constant added to b is projected away
  // and an obstacle cell's value stays untouched.
  for (bool periodic : {false, true}) {
    const int nx = 128, ny = 64;
    const auto g = grid(2, nx, ny);
    auto in = [&](int i, int j) {
      if (periodic) i = i < 1 ? nx : i > nx ? 1 : i;
      return i >= 1 && i <= nx && j >= 1 && j <= ny && !cylinder(i, j, ny);
    };
    const auto mask = kflow::test::mask_of(g, in);
    la::Laplace5<double, Mem> hop;
    hop.mask = mask;
    hop.cx = hop.cy = 1 / (g.spacing(0) * g.spacing(0));
    hop.grid = g;
    la::set_neighbours(hop, g, periodic, false);
    auto exact = field2<double>(g);
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) exact(i, j) = in(i, j) ? hash01(i, j, 3) : 0;
    auto hb = kflow::test::rhs_of(hop, exact);
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i)
        if (in(i, j)) hb(i, j) += 0.37;
    const auto op = op_to_space<TestType>(hop);
    la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
    CHECK(mg.singular());
    auto hx = field2<double>(g);
    hx(ny / 2, ny / 2) = 123.0;  // the cylinder's centre
    REQUIRE(!in(ny / 2, ny / 2));
    const auto x = to_space<TestType>(hx);
    const auto s = mg.solve(x, to_space<TestType>(hb), control(1e-10));
    const auto xr = to_host(x);
    INFO((periodic ? "periodic " : "walls ") << mg.name() << ": " << s.iterations << " cycles");
    CHECK(s.converged);
    CHECK(s.iterations <= 14);
    CHECK(xr(ny / 2, ny / 2) == 123.0);
    CHECK(kflow::test::error(hop, xr, exact, true) < 1e-7);
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: odd and prime sizes", "[multigrid][unit]",
                        kflow::test::ExecutionSpaces) {
  // An odd size coarsens as if padded by one cell outside the system:
  // 62x46 -> 31x23 -> 16x12 -> 8x6 -> 4x3 -> 2x2, the primes 37x41 ->
  // 19x21 -> 10x11 -> 5x6 -> 3x3 -> 2x2, vorticity2d's 1022^2 -> 511^2 ->
  // 256^2 ... 2^2, 3D 24x20x18 -> 12x10x9 -> 6x5x5 -> 3x3x3 -> 2x2x2.  Each
  // converges to the discrete solution with the residual reduction per
  // V(2,2)-cycle of the even sizes (Dirichlet x, Neumann y): measured 0.075
  // (62x46), 0.073 (37x41), 0.087 (1022^2), 0.075 (511^2), 0.14 (3D);
  // bound 0.2.  Without the one-child cells' own weights and coefficients
  // (mg_kernels.hpp) these were 0.28, 0.79, 0.32 and 0.37.
  struct Case {
    int nx, ny, levels;
    const char* coarse;
  };
  for (auto c : {Case{62, 46, 6, "31x23"}, Case{37, 41, 6, "19x21"},
                 Case{1022, 1022, 10, "511x511"}, Case{511, 511, 9, "256x256"}}) {
    const auto g = grid(2, c.nx, c.ny);
    const Side side[2] = {Side::dirichlet, Side::neumann};
    const auto hop = laplacian2<double>(g, side);
    auto exact = field2<double>(g);
    for (int j = 1; j <= c.ny; ++j)
      for (int i = 1; i <= c.nx; ++i) exact(i, j) = hash01(i, j, 5);
    const auto op = op_to_space<TestType>(hop);
    la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
    la::SolveStats s;
    const auto x = solve_on<TestType>(mg, kflow::test::rhs_of(hop, exact), control(1e-10), s);
    INFO(c.nx << "x" << c.ny << " " << mg.name() << ": " << s.iterations << " cycles, factor "
              << factor(s));
    CHECK(mg.levels() == c.levels);
    CHECK(mg.level_grid(1).cells_text() == c.coarse);
    CHECK(mg.level_grid(c.levels - 1).cells_text() == "2x2");
    CHECK(s.converged);
    CHECK(factor(s) <= 0.2);
    CHECK(kflow::test::error(hop, x, exact, false) < 1e-7);
  }
  const auto g = grid(3, 24, 20, 18);
  const auto hop = laplacian3<double>(g, Side::dirichlet);
  const auto hb = random_rhs3(g);
  const auto op = op_to_space<TestType>(hop);
  la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
  la::SolveStats s;
  solve_on<TestType>(mg, hb, control(1e-10), s);
  INFO(mg.name() << ": " << s.iterations << " cycles, factor " << factor(s));
  CHECK(mg.levels() == 5);
  CHECK(mg.level_grid(1).cells_text() == "12x10x9");
  CHECK(mg.level_grid(4).cells_text() == "2x2x2");
  CHECK(s.converged);
  CHECK(factor(s) <= 0.2);
}

TEMPLATE_LIST_TEST_CASE("multigrid: W- and F-cycles, weighted Jacobi, single precision",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  const int n = 128;
  const auto g = grid(2, n, n);
  const Side side[2] = {Side::dirichlet, Side::dirichlet};
  const auto hop = laplacian2<double>(g, side);
  const auto op = op_to_space<TestType>(hop);
  const auto hb = random_rhs2<double>(hop);
  // Bounds: W and F measured 0.07; weighted Jacobi (4/5) V(2,2) 0.56;
  // Chebyshev of degree 2 (ratio 6) 0.169, and in 3D (32^3, below) 0.227.
  const std::tuple<la::MgCycle, la::MgSmoother, double> variants[] = {
      {la::MgCycle::w, la::MgSmoother::rbgs, 0.1},
      {la::MgCycle::f, la::MgSmoother::rbgs, 0.1},
      {la::MgCycle::v, la::MgSmoother::jacobi, 0.6},
      {la::MgCycle::v, la::MgSmoother::chebyshev, 0.25}};
  for (const auto& [cycle, smoother, bound] : variants) {
    la::MgOptions o;
    o.cycle = cycle;
    o.smoother = smoother;
    la::Multigrid<TestType, decltype(op)> mg(TestType(), op, o);
    la::SolveStats s;
    solve_on<TestType>(mg, hb, control(1e-10), s);
    INFO(mg.name() << ": " << s.iterations << " cycles, factor " << factor(s));
    CHECK(s.converged);
    CHECK(factor(s) <= bound);
  }
  {
    const int m = 32;
    const auto g3 = grid(3, m, m, m);
    const auto hop3 = laplacian3<double>(g3, Side::dirichlet);
    const auto hb3 = random_rhs3(g3);
    const auto op3 = op_to_space<TestType>(hop3);
    la::MgOptions o;
    o.smoother = la::MgSmoother::chebyshev;
    la::Multigrid<TestType, decltype(op3)> mg(TestType(), op3, o);
    la::SolveStats s;
    solve_on<TestType>(mg, hb3, control(1e-10), s);
    INFO("32^3 " << mg.name() << ": " << s.iterations << " cycles, factor " << factor(s));
    CHECK(s.converged);
    CHECK(factor(s) <= 0.3);
  }
  // float: to 1e-5 of max |b| (a float residual stalls near 1e-7 |A| |x|).
  const auto hopf = laplacian2<float>(g, side);
  const auto opf = op_to_space<TestType>(hopf);
  la::Multigrid<TestType, decltype(opf)> mg(TestType(), opf);
  la::SolveStats s;
  solve_on<TestType>(mg, random_rhs2<float>(hopf), control(1e-5), s);
  INFO(mg.name() << " float: " << s.iterations << " cycles, residual " << s.criterion);
  CHECK(s.converged);
  CHECK(s.iterations <= 7);
}

TEMPLATE_LIST_TEST_CASE("CG with the multigrid preconditioner: iterations independent of h",
                        "[multigrid][cg][unit]", kflow::test::ExecutionSpaces) {
  // A cylinder, Dirichlet x and Neumann y sides; CG + one symmetric
  // V(2,2)-cycle per iteration, to 1e-10: the count may grow by at most 2
  // from 64^2 to 512^2.  Measured: red-black Gauss-Seidel 10 to 11
  // (factor 0.10 to 0.11), Chebyshev 11 to 12 (0.12 to 0.14).
  for (auto smoother : {la::MgSmoother::rbgs, la::MgSmoother::chebyshev}) {
    int first = 0;
    for (int n : {64, 128, 256, 512}) {
      const auto g = grid(2, n, n);
      const Side side[2] = {Side::dirichlet, Side::neumann};
      auto hop = laplacian2<double>(g, side, [&](int i, int j) { return cylinder(i, j, n); });
      la::MgOptions mo;
      mo.smoother = smoother;
      la::CgOptions o(la::CgPreconditioner::mg, mo);
      const auto op = op_to_space<TestType>(hop);
      la::ConjugateGradient<TestType, decltype(op)> cg(TestType(), op, o);
      la::SolveStats s;
      la::SolveControl c = control(1e-10);
      const auto hb = random_rhs2<double>(hop);
      solve_on<TestType>(cg, hb, c, s);
      INFO(n << "^2 " << cg.name() << ": " << s.iterations << " iterations, factor " << factor(s));
      CHECK(s.converged);
      if (first == 0) first = s.iterations;
      CHECK(s.iterations <= first + 2);
      CHECK(s.iterations <= (smoother == la::MgSmoother::rbgs ? 12 : 14));
    }
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid rejects what it cannot do", "[multigrid][unit]",
                        kflow::test::ExecutionSpaces) {
  const Side periodic[2] = {Side::periodic, Side::dirichlet};
  const auto odd = op_to_space<TestType>(laplacian2<double>(grid(2, 33, 32), periodic));
  using Op = std::remove_const_t<decltype(odd)>;
  CHECK_THROWS_AS((la::Multigrid<TestType, Op>(TestType(), odd)), std::invalid_argument);
  const Side walls[2] = {Side::dirichlet, Side::dirichlet};
  const auto op = op_to_space<TestType>(laplacian2<double>(grid(2, 32, 32), walls));
  la::MgOptions none;
  none.pre_sweeps = none.post_sweeps = 0;
  CHECK_THROWS_AS((la::Multigrid<TestType, Op>(TestType(), op, none)), std::invalid_argument);
  la::MgOptions jac;
  jac.smoother = la::MgSmoother::jacobi;
  CHECK_THROWS_AS((la::ConjugateGradient<TestType, Op>(
                      TestType(), op, la::CgOptions(la::CgPreconditioner::mg, jac))),
                  std::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("CG + multigrid run for a fixed count far beyond convergence stays there",
                        "[multigrid][cg][unit]", kflow::test::ExecutionSpaces) {
  // tolerance = 0: exactly max_iterations, no checks (mac2d's fixed-count
  // protocol).  Once r is rounding noise the updates must stop changing x:
  // Dirichlet walls and a doubly periodic box (singular).
  for (bool periodic : {false, true}) {
    const int n = 64;
    const auto g = grid(2, n, n);
    const Side side[2] = {periodic ? Side::periodic : Side::dirichlet,
                          periodic ? Side::periodic : Side::dirichlet};
    const auto hop = laplacian2<double>(g, side);
    auto exact = field2<double>(g);
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) exact(i, j) = hash01(i, j, 9);
    const auto hb = kflow::test::rhs_of(hop, exact);
    const auto op = op_to_space<TestType>(hop);
    la::ConjugateGradient<TestType, decltype(op)> cg(TestType(), op,
                                                     la::CgOptions(la::CgPreconditioner::mg));
    la::SolveControl c;
    c.tolerance = 0;
    c.max_iterations = 40;
    la::SolveStats s;
    const auto x = solve_on<TestType>(cg, hb, c, s);
    const double e = kflow::test::error(hop, x, exact, periodic);
    INFO((periodic ? "periodic: " : "dirichlet: ") << "error after 40 iterations " << e);
    CHECK(s.iterations == 40);
    CHECK(e < 1e-9);
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: Dirichlet walls at a node ring (distance h) as vorticity2d's",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // Uniform5 with the known wall values in b (the wall one spacing from the
  // first centre, not half): V(2,2) residual reduction per cycle measured
  // 0.099 (63^2), 0.104 (64^2), 0.103 (1022^2, vorticity2d's 1024^2 nodes);
  // bound 0.12.  With zero-gradient ghosts in the transfers 1022^2 took
  // 0.187; with the coarse wall terms aggregated as for cell-centred walls
  // (no 2 d / D scaling, mg_kernels.hpp) V-cycles took 0.64 to 0.9 and
  // diverged on 1022^2.
  for (int n : {63, 64, 1022}) {
    la::Uniform5<double> op;
    const auto g = grid(2, n, n);
    const double a = 1.0 / (g.spacing(0) * g.spacing(0));
    op.c = {-4 * a, a, a, a, a};
    op.grid = g;
    la::set_neighbours(op, g, false, false);
    auto hb = field2<double>(g);
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) hb(i, j) = hash01(i, j, 0);
    la::Multigrid<TestType, decltype(op)> mg(TestType(), op);
    la::SolveStats s;
    solve_on<TestType>(mg, hb, control(1e-10), s);
    INFO(n << "^2 " << mg.name() << ": " << s.iterations << " cycles, factor " << factor(s));
    CHECK(s.converged);
    CHECK(factor(s) <= 0.12);
  }
}

TEMPLATE_LIST_TEST_CASE("multigrid: coarse levels on one team, the coarsest by CG",
                        "[multigrid][unit]", kflow::test::ExecutionSpaces) {
  // The levels from team_cells down cycled by one team (detail/mg_team.hpp)
  // run the per-level kernels' arithmetic on the same values in the same
  // order of colours, so every cycle type and smoother gives the same
  // iterations and the same solution to rounding (1e-12 of max |x|) as one
  // kernel per step; the coarsest level by CG converges as fast as by
  // sweeps (the same cycle count, +- 1).
  using Op2 = la::Stencil5<double, typename TestType::memory_space>;
  auto run = [](const auto& op, const auto& hb, const la::MgOptions& o, la::SolveStats& s,
                std::string& name) {
    la::Multigrid<TestType, std::decay_t<decltype(op)>> mg(TestType(), op, o);
    name = mg.name();
    return solve_on<TestType>(mg, hb, control(1e-10), s);
  };
  auto max_abs = [](const auto& v) {
    double m = 0;
    for (size_t q = 0; q < v.span(); ++q) m = std::max(m, std::fabs(double(v.data()[q])));
    return m;
  };
  auto max_diff = [](const auto& a, const auto& b) {
    double m = 0;
    for (size_t q = 0; q < a.span(); ++q)
      m = std::max(m, std::fabs(double(a.data()[q]) - double(b.data()[q])));
    return m;
  };
  struct Case2 {
    int nx, ny;
    Side x, y;
  };
  for (auto c : {Case2{128, 128, Side::dirichlet, Side::dirichlet},
                 Case2{37, 41, Side::dirichlet, Side::neumann},
                 Case2{64, 48, Side::periodic, Side::dirichlet},
                 Case2{64, 64, Side::neumann, Side::neumann}}) {
    const auto g = grid(2, c.nx, c.ny);
    const Side side[2] = {c.x, c.y};
    const auto hop = laplacian2<double>(g, side);
    const Op2 op = op_to_space<TestType>(hop);
    const auto hb = random_rhs2<double>(hop);
    for (auto cycle : {la::MgCycle::v, la::MgCycle::w, la::MgCycle::f})
      for (auto smoother :
           {la::MgSmoother::rbgs, la::MgSmoother::jacobi, la::MgSmoother::chebyshev}) {
        if (cycle != la::MgCycle::v && smoother != la::MgSmoother::rbgs) continue;
        la::MgOptions o;
        o.cycle = cycle, o.smoother = smoother;
        la::SolveStats s0;
        std::string name0;
        const auto x0 = run(op, hb, o, s0, name0);
        REQUIRE(s0.converged);
        for (long team : {16L, 1024L, 1L << 20}) {
          la::MgOptions ot = o;
          ot.team_cells = team;
          la::SolveStats s;
          std::string name;
          const auto x = run(op, hb, ot, s, name);
          INFO(c.nx << "x" << c.ny << " " << name << ": " << s.iterations << " cycles against "
                    << s0.iterations << ", max difference " << max_diff(x, x0) << " of "
                    << max_abs(x0));
          CHECK(name.find("on one team") != std::string::npos);
          CHECK(s.iterations == s0.iterations);
          CHECK(max_diff(x, x0) <= 1e-12 * max_abs(x0));
        }
        for (long team : {0L, 1024L}) {
          la::MgOptions oc = o;
          oc.coarse = la::MgCoarse::cg, oc.team_cells = team;
          la::SolveStats s;
          std::string name;
          run(op, hb, oc, s, name);
          INFO(c.nx << "x" << c.ny << " " << name << ": " << s.iterations << " cycles against "
                    << s0.iterations << " with sweeps");
          CHECK(s.converged);
          CHECK(std::abs(s.iterations - s0.iterations) <= 1);
        }
      }
    // CG's preconditioner (post-smoothing black first) on one team.
    la::MgOptions ot;
    ot.team_cells = 1024;
    la::ConjugateGradient<TestType, Op2> cg0(TestType(), op,
                                             la::CgOptions(la::CgPreconditioner::mg));
    la::ConjugateGradient<TestType, Op2> cg1(TestType(), op,
                                             la::CgOptions(la::CgPreconditioner::mg, ot));
    la::SolveStats s0, s1;
    const auto x0 = solve_on<TestType>(cg0, hb, control(1e-10), s0);
    const auto x1 = solve_on<TestType>(cg1, hb, control(1e-10), s1);
    INFO(c.nx << "x" << c.ny << " CG + mg: " << s1.iterations << " iterations on one team, "
              << s0.iterations << " without");
    CHECK(s1.iterations == s0.iterations);
    CHECK(max_diff(x1, x0) <= 1e-12 * max_abs(x0));
  }
  // 3D: 24x20x18 -> 12x10x9 -> 6x5x5 -> 3x3x3 -> 2x2x2, the last three on one team.
  const auto g = grid(3, 24, 20, 18);
  const auto hop = laplacian3<double>(g, Side::dirichlet);
  const auto hb = random_rhs3(g);
  const auto op = op_to_space<TestType>(hop);
  la::SolveStats s0, s1, s2;
  std::string name0, name1, name2;
  la::MgOptions ot, oc;
  ot.team_cells = 1000;
  oc.coarse = la::MgCoarse::cg;
  const auto x0 = run(op, hb, la::MgOptions{}, s0, name0);
  const auto x1 = run(op, hb, ot, s1, name1);
  run(op, hb, oc, s2, name2);
  INFO(name1 << ": " << s1.iterations << " cycles; " << name2 << ": " << s2.iterations << "; "
             << name0 << ": " << s0.iterations);
  CHECK(name1.find("3 on one team") != std::string::npos);
  CHECK(s1.iterations == s0.iterations);
  CHECK(max_diff(x1, x0) <= 1e-12 * max_abs(x0));
  CHECK(s2.converged);
  CHECK(std::abs(s2.iterations - s0.iterations) <= 1);
  // CG solves the coarsest level: two levels, 64^2 and 32^2, the two-grid
  // factor measured 0.069 with the coarse level solved exactly; one
  // red-black iteration there instead gives 0.93.
  const auto g2 = grid(2, 64, 64);
  const Side side[2] = {Side::dirichlet, Side::dirichlet};
  const auto hop2 = laplacian2<double>(g2, side);
  const auto op2 = op_to_space<TestType>(hop2);
  for (auto coarse : {la::MgCoarse::cg, la::MgCoarse::sweeps}) {
    la::MgOptions o;
    o.max_levels = 2, o.coarse = coarse, o.coarse_sweeps = 1;
    la::SolveStats s;
    std::string name;
    run(op2, random_rhs2<double>(hop2), o, s, name);
    INFO(name << ": " << s.iterations << " cycles, factor " << factor(s));
    if (coarse == la::MgCoarse::cg)
      CHECK(factor(s) <= 0.08);
    else
      CHECK(factor(s) > 0.5);
  }
}
