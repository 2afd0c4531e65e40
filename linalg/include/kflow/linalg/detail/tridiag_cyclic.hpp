#pragma once
// The kernels of Tridiag::solve_cyclic (tridiag.hpp) by the register method:
// the two-solve reduction of a cyclic (periodic) tridiagonal system to two
// ordinary ones of n - 1 unknowns, solved by the batched solver itself
// (Thomas takes both in one elimination: detail/tridiag_thomas.hpp).  With
// x_{n-1} as a parameter, rows 0 .. n-2 are an ordinary system B (a_0 and c_{n-2}, which
// couple to x_{n-1}, move to the right-hand side):
//
//   x_k = y_k + x_{n-1} z_k,   B y = d,   B z = -(a_0 e_0 + c_{n-2} e_{n-2}),
//
// and row n-1 gives x_{n-1} = (d_{n-1} - a_{n-1} y_{n-2} - c_{n-1} y_0) /
// (b_{n-1} + a_{n-1} z_{n-2} + c_{n-1} z_0), the Schur complement of B.  It
// is flagged like a zero pivot when NaN or zero to rounding, |s| <= n eps
// (|b_{n-1}| + |a_{n-1} z_{n-2}| + |c_{n-1} z_0|): a singular cyclic matrix,
// e.g. the periodic Laplacian, whose rows 0 .. n-2 alone are regular (its
// Schur complement measured 0.04 n eps of its terms or less, n = 3 .. 1000,
// float and double; sigma - delta^2 with sigma = 1e-6 in float: 2 n eps).
// n = 1: (a_0 + b_0 + c_0) x_0 = d_0, by cyclic_finish alone for every method
// (and for a row source: Tridiag::solve_rows_cyclic).

#include <Kokkos_Core.hpp>

#include "kflow/linalg/detail/tridiag_rows.hpp"
#include "kflow/linalg/detail/tridiag_thomas.hpp"
#include "kflow/linalg/tridiag_shape.hpp"

namespace kflow::linalg::detail {

// The right-hand side of B z over rows 0 .. n-2 of every system (n >= 2).
template <class ExecSpace, class Real, class A, class W>
void cyclic_rhs(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& c,
                const W& w) {
  const long n = sh.n, st = sh.stride;
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::cyclic_rhs", Kokkos::RangePolicy<ExecSpace>(space, 0, sh.systems()),
      KOKKOS_LAMBDA(long m) {
        const long f = sh.first(m);
        for (long k = 1; k < n - 2; ++k) w(f + k * st) = Real(0);
        w(f) = -a(f);
        const long l = f + (n - 2) * st;
        w(l) = (n == 2 ? w(l) : Real(0)) - c(l);
      });
}

// x_{n-1} from row n-1 (of the row source), then x_k = y_k + x_{n-1} z_k (y
// in x, z in w).  For n = 1 the whole solve.  A zero or NaN denominator
// flags the system.
template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void cyclic_finish(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
                   const W& w, const Flag& flag) {
  const long n = sh.n, st = sh.stride;
  const Real tol = cyclic_tol<Real>(n);
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::cyclic_finish",
      Kokkos::RangePolicy<ExecSpace>(space, 0, sh.systems()), KOKKOS_LAMBDA(long m) {
        const long f = sh.first(m);
        const auto line = rows.line(f, st);
        if (n == 1) {
          const Row<Real> r = line(0);
          const Real p = r.a + r.b + r.c;
          const Real s = Kokkos::fabs(r.a) + Kokkos::fabs(r.b) + Kokkos::fabs(r.c);
          if (bad_pivot(p) || Kokkos::fabs(p) <= tol * s) flag_system(flag, m);
          x(f) = r.d / p;
          return;
        }
        const long l = f + (n - 1) * st, l2 = l - st;
        const Row<Real> r = line(n - 1);
        bool bad = false;
        const Real xl = cyclic_last(r.a, r.b, r.c, r.d, x(l2), w(l2), x(f), w(f), tol, bad);
        if (bad) flag_system(flag, m);
        for (long k = 0; k < n - 1; ++k) x(f + k * st) += xl * w(f + k * st);
        x(l) = xl;
      });
}

}  // namespace kflow::linalg::detail
