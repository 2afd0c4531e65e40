#pragma once
// The symmetric 2D test problems of the CG tests (tests/linalg/test_cg.cpp,
// tests/kk/test_kk_cg.cpp), built on the host: variable-coefficient diffusion
// with zero Dirichlet walls, and the pure-Neumann (or x-periodic) masked
// Laplacian with an obstacle.

#include <cstdint>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/stencil.hpp"
#include "unit/linsys_helpers.hpp"

namespace kflow::test::cg {

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;
using F2 = la::Field<double, 2, Mem>;
using Op5 = la::Stencil5<double, Mem>;

inline F2 f2(const la::Grid& g) {
  return F2("f", g.extent(0), g.extent(1));
}

// A symmetric diffusion operator with face coefficients k(face) (times
// 1/h^2) and zero Dirichlet walls folded in (the boundary neighbour drops
// out, the diagonal keeps 2 k of the wall face): negative definite.
template <class K>
Op5 diffusion_op(const la::Grid& g, K k) {
  F2 cp = f2(g), cw = f2(g), ce = f2(g), cs = f2(g), cn = f2(g);
  const int nx = g.cells[0], ny = g.cells[1];
  const double ax = 1 / (g.spacing(0) * g.spacing(0)), ay = 1 / (g.spacing(1) * g.spacing(1));
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const double w = ax * k(i - 0.5, double(j)), e = ax * k(i + 0.5, double(j)),
                   s = ay * k(double(i), j - 0.5), n = ay * k(double(i), j + 0.5);
      cw(i, j) = i > 1 ? w : 0;
      ce(i, j) = i < nx ? e : 0;
      cs(i, j) = j > 1 ? s : 0;
      cn(i, j) = j < ny ? n : 0;
      cp(i, j) = -(w + e + s + n) - (i == 1 ? w : 0) - (i == nx ? e : 0) - (j == 1 ? s : 0) -
                 (j == ny ? n : 0);
    }
  Op5 op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

inline double unit_k(double, double) {
  return 1.0;
}

// The masked Laplacian of a walled box (pure Neumann) with an obstacle,
// periodic in x if asked.
inline la::Laplace5<double, Mem> neumann_op(const la::Grid& g, bool periodic_x) {
  const int nx = g.cells[0], ny = g.cells[1];
  auto in = [&](int i, int j) {
    if (periodic_x) i = i < 1 ? nx : i > nx ? 1 : i;
    const bool obstacle = i >= 6 && i <= 9 && j >= 4 && j <= 8;
    return i >= 1 && i <= nx && j >= 1 && j <= ny && !obstacle;
  };
  const auto mask = kflow::test::mask_of(g, in);
  la::Laplace5<double, Mem> op;
  op.mask = mask;
  op.cx = 1 / (g.spacing(0) * g.spacing(0));
  op.cy = 1 / (g.spacing(1) * g.spacing(1));
  op.grid = g;
  la::set_neighbours(op, g, periodic_x, false);
  return op;
}

}  // namespace kflow::test::cg
