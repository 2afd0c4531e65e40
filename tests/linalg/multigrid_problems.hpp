#pragma once
// The multigrid tests' problems (tests/linalg/test_multigrid.cpp,
// test_multigrid_options.cpp), built on the host: the 5- and 7-point
// Laplacians with Dirichlet, Neumann or periodic sides (and solid cells in
// 2D), random right-hand sides, a solve on an execution space from x = 0,
// and mac2d's obstacles.

#include <array>
#include <cmath>
#include <functional>

#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/multigrid.hpp"
#include "unit/linsys_helpers.hpp"

namespace kflow::test::mg {

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;

inline constexpr double pi = 3.14159265358979323846;

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

inline la::Grid grid(int dim, int nx, int ny, int nz = 1) {
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
inline double hash01(int i, int j, int k) {
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
inline la::Field<double, 3, Mem> random_rhs3(const la::Grid& g) {
  auto b = field3<double>(g);
  for (int k = 1; k <= g.cells[2]; ++k)
    for (int j = 1; j <= g.cells[1]; ++j)
      for (int i = 1; i <= g.cells[0]; ++i) b(i, j, k) = hash01(i, j, k);
  return b;
}

inline la::SolveControl control(double tol, int max_iterations = 200) {
  la::SolveControl c;
  c.tolerance = tol;
  c.check_every = 1;
  c.max_iterations = max_iterations;
  c.criterion = la::Criterion::residual;
  return c;
}

// The mean residual reduction per iteration of a solve from x = 0 to
// `tol` (the criterion is relative to max |b|).
inline double factor(const la::SolveStats& s) {
  return std::pow(s.criterion, 1.0 / s.iterations);
}

// Solves on Space from x = 0; the solution on the host.
template <class Space, class Solver, class HF>
auto solve_on(Solver& solver, const HF& b, const la::SolveControl& c, la::SolveStats& s) {
  const auto x = to_space<Space>(HF("x", b.layout()));
  s = solver.solve(x, to_space<Space>(b), c);
  return to_host(x);
}

// mac2d's obstacles on an nx x ny channel (length 2 x 1... cells of one size):
// a cylinder of diameter ny/4 at (ny/2, ny/2), or a backward-facing step
// filling the lower half of the first quarter.
inline bool cylinder(int i, int j, int ny) {
  const double x = i - 0.5 - ny / 2.0, y = j - 0.5 - ny / 2.0, r = ny / 8.0;
  return x * x + y * y <= r * r;
}
inline bool step(int i, int j, int nx, int ny) {
  return i <= nx / 4 && j <= ny / 2;
}

}  // namespace kflow::test::mg
