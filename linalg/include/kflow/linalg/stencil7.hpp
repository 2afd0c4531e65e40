#pragma once
// 7-point operators on the cells of a 3D grid (one ghost layer), the 3D
// counterpart of stencil.hpp with the same conventions:
//
//   (A x)_P = c.p x_P + c.w x_W + c.e x_E + c.s x_S + c.n x_N + c.b x_B + c.t x_T
//
// W/E = i -/+ 1, S/N = j -/+ 1, B/T (bottom/top) = k -/+ 1 in stored indices.
// The stored numbers are the matrix entries; a cell with c.p == 0 is not part
// of the system; boundary neighbours carry zero coefficients (no periodic
// wrap here: the 3D solvers that use it, SIP, cannot wrap anyway).
//
// An operator is a small copyable struct with
//   KOKKOS_FUNCTION Coeffs7<Real> coeffs(int i, int j, int k) const;
// `dim` = 3 and the host members `grid` and px = py = pz = false.

#include <Kokkos_Core.hpp>

#include <cmath>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"

namespace kflow::linalg {

template <class Real>
struct Coeffs7 {
  Real p, w, e, s, n, b, t;
};

// Seven stored coefficient fields (general variable coefficients).
template <class Real, class MemSpace>
struct Stencil7 {
  using real_type = Real;
  static constexpr int dim = 3;
  Field<const Real, 3, MemSpace> cp, cw, ce, cs, cn, cb, ct;
  Grid grid;
  bool px = false, py = false, pz = false;

  KOKKOS_INLINE_FUNCTION Coeffs7<Real> coeffs(int i, int j, int k) const {
    return {cp(i, j, k), cw(i, j, k), ce(i, j, k), cs(i, j, k),
            cn(i, j, k), cb(i, j, k), ct(i, j, k)};
  }
};

// (A x)_P at one cell.
template <class Op, class X>
KOKKOS_INLINE_FUNCTION auto apply_at(const Op& op, const X& x, int i, int j, int k) {
  const auto c = op.coeffs(i, j, k);
  return c.p * x(i, j, k) + c.w * x(i - 1, j, k) + c.e * x(i + 1, j, k) + c.s * x(i, j - 1, k) +
         c.n * x(i, j + 1, k) + c.b * x(i, j, k - 1) + c.t * x(i, j, k + 1);
}

}  // namespace kflow::linalg
