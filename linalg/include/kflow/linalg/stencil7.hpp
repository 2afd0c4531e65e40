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
// and the host members `grid` (dim 3) and px = py = pz = false.

#include <Kokkos_Core.hpp>

#include <cmath>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/reduce.hpp"

namespace kflow::linalg {

template <class Real>
struct Coeffs7 {
  Real p, w, e, s, n, b, t;
};

// Seven stored coefficient fields (general variable coefficients).
template <class Real, class MemSpace>
struct Stencil7 {
  using real_type = Real;
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

// r = b - A x on every cell in the system (0 elsewhere).
template <class ExecSpace, class Op, class X, class B, class R>
void residual3(const ExecSpace& space, const Op& op, const X& x, const B& b, const R& r) {
  Kokkos::parallel_for(
      "kflow::linalg::residual3", interior_policy<3>(space, op.grid),
      KOKKOS_LAMBDA(int i, int j, int k) {
        r(i, j, k) = op.coeffs(i, j, k).p != 0 ? b(i, j, k) - apply_at(op, x, i, j, k) : 0;
      });
}

// max |b - A x| over the cells in the system; NaN counts as +inf.
template <class ExecSpace, class Op, class X, class B>
double residual_max_norm3(const ExecSpace& space, const Op& op, const X& x, const B& b) {
  double r = 0;
  grid_reduce<3>(
      space, "kflow::linalg::residual_max_norm3", op.grid, false,
      KOKKOS_LAMBDA(int i, int j, int k, double& acc) {
        if (op.coeffs(i, j, k).p == 0) return;
        const double d = Kokkos::fabs(double(b(i, j, k) - apply_at(op, x, i, j, k)));
        const double v = d == d ? d : HUGE_VAL;
        acc = v > acc ? v : acc;
      },
      Kokkos::Max<double>(r));
  space.fence("kflow::linalg::residual_max_norm3");
  return r;
}

// max |b| over the cells in the system (one value to the host).
template <class ExecSpace, class Op, class B>
double system_max_norm3(const ExecSpace& space, const Op& op, const B& b) {
  double r = 0;
  grid_reduce<3>(
      space, "kflow::linalg::system_max_norm3", op.grid, false,
      KOKKOS_LAMBDA(int i, int j, int k, double& acc) {
        if (op.coeffs(i, j, k).p == 0) return;
        const double d = Kokkos::fabs(double(b(i, j, k)));
        acc = d > acc ? d : acc;
      },
      Kokkos::Max<double>(r));
  space.fence("kflow::linalg::system_max_norm3");
  return r;
}

}  // namespace kflow::linalg
