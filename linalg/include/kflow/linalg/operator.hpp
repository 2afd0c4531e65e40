#pragma once
// Operators A of the structured-grid systems A x = b, and what every solver
// computes with them in 2D and 3D alike.  The operators themselves:
// stencil.hpp (5-point, 2D: Laplace5, Stencil5, Uniform5) and stencil7.hpp (7-point,
// 3D: Stencil7).  An operator carries `real_type`, `dim`, its `grid` and
// coeffs(i, j[, k]); apply_at(op, x, i, j[, k]) is (A x) at a cell, apply()
// the matrix-free product over the grid.  Cells with c.p == 0 are not part of
// the system.  dia.hpp holds a 5-point operator as an assembled DIA matrix.

#include <Kokkos_Core.hpp>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/linalg/stencil7.hpp"

namespace kflow::linalg {

namespace detail {
// |b - A x| (with_x) or |b| at a cell of the system, NaN as +inf, into a max.
template <class Op, class X, class B, bool with_x>
struct SystemAbs {
  Op op;
  X x;
  B b;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, double& acc) const {
    if (op.coeffs(i, j).p == 0) return;
    double v = double(b(i, j));
    if constexpr (with_x) v = double(b(i, j) - apply_at(op, x, i, j));
    const double d = nan_as_inf(Kokkos::fabs(v));
    acc = d > acc ? d : acc;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, double& acc) const {
    if (op.coeffs(i, j, k).p == 0) return;
    double v = double(b(i, j, k));
    if constexpr (with_x) v = double(b(i, j, k) - apply_at(op, x, i, j, k));
    const double d = nan_as_inf(Kokkos::fabs(v));
    acc = d > acc ? d : acc;
  }
};

template <class Op, class X, class Y>
struct Apply {
  Op op;
  X x;
  Y y;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const { y(i, j) = apply_at(op, x, i, j); }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    y(i, j, k) = apply_at(op, x, i, j, k);
  }
};

template <class Op, class X, class B, class R>
struct Residual {
  Op op;
  X x;
  B b;
  R r;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const {
    r(i, j) = op.coeffs(i, j).p != 0 ? b(i, j) - apply_at(op, x, i, j) : 0;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    r(i, j, k) = op.coeffs(i, j, k).p != 0 ? b(i, j, k) - apply_at(op, x, i, j, k) : 0;
  }
};
}  // namespace detail

// y = A x on every interior cell, matrix-free (the operator's rows as they
// are, also where c.p == 0).  Ghosts of y are left alone; x and y distinct.
template <class ExecSpace, class Op, class X, class Y>
void apply(const ExecSpace& space, const Op& op, const X& x, const Y& y) {
  Kokkos::parallel_for("kflow::linalg::apply", interior_policy<Op::dim>(space, op.grid),
                       detail::Apply<Op, X, Y>{op, x, y});
}

// r = b - A x on every cell in the system (0 elsewhere).
template <class ExecSpace, class Op, class X, class B, class R>
void residual(const ExecSpace& space, const Op& op, const X& x, const B& b, const R& r) {
  Kokkos::parallel_for("kflow::linalg::residual", interior_policy<Op::dim>(space, op.grid),
                       detail::Residual<Op, X, B, R>{op, x, b, r});
}

// max |b - A x| over the cells in the system, NaN as +inf (one value to the host).
template <class ExecSpace, class Op, class X, class B>
double residual_max_norm(const ExecSpace& space, const Op& op, const X& x, const B& b) {
  double r = 0;
  grid_reduce<Op::dim>(space, "kflow::linalg::residual_max_norm", op.grid, false,
                       detail::SystemAbs<Op, X, B, true>{op, x, b}, Kokkos::Max<double>(r));
  space.fence("kflow::linalg::residual_max_norm");
  return r;
}

// max |b| over the cells in the system, NaN as +inf (one value to the host).
template <class ExecSpace, class Op, class B>
double system_max_norm(const ExecSpace& space, const Op& op, const B& b) {
  double r = 0;
  grid_reduce<Op::dim>(space, "kflow::linalg::system_max_norm", op.grid, false,
                       detail::SystemAbs<Op, B, B, false>{op, b, b}, Kokkos::Max<double>(r));
  space.fence("kflow::linalg::system_max_norm");
  return r;
}

}  // namespace kflow::linalg
