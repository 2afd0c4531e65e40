#pragma once
// 7-point operators on the cells of a 3D grid (one ghost layer), the 3D
// counterpart of stencil.hpp with the same conventions:
//
//   (A x)_P = c.p x_P + c.w x_W + c.e x_E + c.s x_S + c.n x_N + c.b x_B + c.t x_T
//
// W/E = i -/+ 1, S/N = j -/+ 1, B/T (bottom/top) = k -/+ 1 in stored indices,
// wrapped around in periodic directions (Neighbours3, as Neighbours2 in 2D).
// The stored numbers are the matrix entries; a cell with c.p == 0 is not part
// of the system; across a non-periodic side the neighbour carries a zero
// coefficient.
//
// An operator is a small copyable struct with
//   KOKKOS_FUNCTION Coeffs7<Real> coeffs(int i, int j, int k) const;
//   KOKKOS_FUNCTION int west(int i) const, east(i), south(j), north(j),
//                       bottom(k), top(k);
// `dim` = 3 and the host members `grid`, px, py, pz.  The solvers that take
// periodic 7-point operators: CG (cg.hpp) and the CRS path (crs.hpp); SIP
// and multigrid refuse them.

#include <Kokkos_Core.hpp>

#include <cmath>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"

namespace kflow::linalg {

template <class Real>
struct Coeffs7 {
  Real p, w, e, s, n, b, t;
};

// Neighbour indices on an interior of n cells (stored indices 1..n), with
// wrap-around when periodic.
struct Neighbours3 {
  int nx = 1, ny = 1, nz = 1;
  bool px = false, py = false, pz = false;
  KOKKOS_INLINE_FUNCTION int west(int i) const { return (px && i == 1) ? nx : i - 1; }
  KOKKOS_INLINE_FUNCTION int east(int i) const { return (px && i == nx) ? 1 : i + 1; }
  KOKKOS_INLINE_FUNCTION int south(int j) const { return (py && j == 1) ? ny : j - 1; }
  KOKKOS_INLINE_FUNCTION int north(int j) const { return (py && j == ny) ? 1 : j + 1; }
  KOKKOS_INLINE_FUNCTION int bottom(int k) const { return (pz && k == 1) ? nz : k - 1; }
  KOKKOS_INLINE_FUNCTION int top(int k) const { return (pz && k == nz) ? 1 : k + 1; }
};

// Sets the neighbour indexing of a 3D operator on `g`.
inline void set_neighbours(Neighbours3& n, const Grid& g, bool periodic_x, bool periodic_y,
                           bool periodic_z) {
  n.nx = g.cells[0];
  n.ny = g.cells[1];
  n.nz = g.cells[2];
  n.px = periodic_x;
  n.py = periodic_y;
  n.pz = periodic_z;
}

// Seven stored coefficient fields (general variable coefficients).
template <class Real, class MemSpace>
struct Stencil7 : Neighbours3 {
  using real_type = Real;
  static constexpr int dim = 3;
  Field<const Real, 3, MemSpace> cp, cw, ce, cs, cn, cb, ct;
  Grid grid;

  KOKKOS_INLINE_FUNCTION Coeffs7<Real> coeffs(int i, int j, int k) const {
    return {cp(i, j, k), cw(i, j, k), ce(i, j, k), cs(i, j, k),
            cn(i, j, k), cb(i, j, k), ct(i, j, k)};
  }
};

// (A x)_P at one cell.
template <class Op, class X>
KOKKOS_INLINE_FUNCTION auto apply_at(const Op& op, const X& x, int i, int j, int k) {
  const auto c = op.coeffs(i, j, k);
  return c.p * x(i, j, k) + c.w * x(op.west(i), j, k) + c.e * x(op.east(i), j, k) +
         c.s * x(i, op.south(j), k) + c.n * x(i, op.north(j), k) + c.b * x(i, j, op.bottom(k)) +
         c.t * x(i, j, op.top(k));
}

}  // namespace kflow::linalg
