#pragma once
// SIP's 3D kernels (sip.hpp): Ferziger & Peric's 3D factorization and sweeps,
// lexicographic (one thread) and by hyperplanes i + j + k = const.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/sip_types.hpp"

namespace kflow::linalg::detail {

template <class Op, class F, class Real>
KOKKOS_INLINE_FUNCTION bool sip3_factor_at(const Op& op, const F& f, Real alpha, int i, int j,
                                           int k) {
  const auto c = op.coeffs(i, j, k);
  if (c.p == 0) {
    f.lb(i, j, k) = f.lw(i, j, k) = f.ls(i, j, k) = f.lpinv(i, j, k) = Real(0);
    f.un(i, j, k) = f.ue(i, j, k) = f.ut(i, j, k) = Real(0);
    return false;
  }
  // ghost values of un/ue/ut are 0
  const Real unb = f.un(i, j, k - 1), ueb = f.ue(i, j, k - 1), utb = f.ut(i, j, k - 1);
  const Real unw = f.un(i - 1, j, k), uew = f.ue(i - 1, j, k), utw = f.ut(i - 1, j, k);
  const Real uns = f.un(i, j - 1, k), ues = f.ue(i, j - 1, k), uts = f.ut(i, j - 1, k);
  const Real lb = c.b / (Real(1) + alpha * (unb + ueb));
  const Real lw = c.w / (Real(1) + alpha * (unw + utw));
  const Real ls = c.s / (Real(1) + alpha * (ues + uts));
  const Real p1 = alpha * (lb * unb + lw * unw);
  const Real p2 = alpha * (lb * ueb + ls * ues);
  const Real p3 = alpha * (lw * utw + ls * uts);
  const Real lp = c.p + p1 + p2 + p3 - lb * utb - lw * uew - ls * uns;
  const bool bad = !(Kokkos::fabs(lp) > Real(0));
  const Real r = bad ? Real(0) : Real(1) / lp;
  f.lb(i, j, k) = lb;
  f.lw(i, j, k) = lw;
  f.ls(i, j, k) = ls;
  f.lpinv(i, j, k) = r;
  f.un(i, j, k) = (c.n - p1) * r;
  f.ue(i, j, k) = (c.e - p2) * r;
  f.ut(i, j, k) = (c.t - p3) * r;
  return bad;
}

template <class F, class R>
KOKKOS_INLINE_FUNCTION void sip3_forward_at(const F& f, const R& r, int i, int j, int k) {
  r(i, j, k) = (r(i, j, k) - f.lb(i, j, k) * r(i, j, k - 1) - f.lw(i, j, k) * r(i - 1, j, k) -
                f.ls(i, j, k) * r(i, j - 1, k)) *
               f.lpinv(i, j, k);
}

template <class F, class R, class X>
KOKKOS_INLINE_FUNCTION void sip3_backward_at(const F& f, const R& r, const X& x, int i, int j,
                                             int k) {
  const auto d = r(i, j, k) - f.un(i, j, k) * r(i, j + 1, k) - f.ue(i, j, k) * r(i + 1, j, k) -
                 f.ut(i, j, k) * r(i, j, k + 1);
  r(i, j, k) = d;
  x(i, j, k) += d;
}

template <class ExecSpace, class Op, class F, class R, class X, class Real>
long sip3_lexicographic(const ExecSpace& space, const Op& op, const F& f, const R& r, const X& x,
                        Real alpha, int what) {
  const int nx = op.grid.cells[0], ny = op.grid.cells[1], nz = op.grid.cells[2];
  long bad = 0;
  Kokkos::parallel_reduce(
      "kflow::linalg::sip3::lexicographic", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(int, long& acc) {
        if (what == 0) {
          for (int k = 1; k <= nz; ++k)
            for (int j = 1; j <= ny; ++j)
              for (int i = 1; i <= nx; ++i) acc += sip3_factor_at(op, f, alpha, i, j, k);
        } else if (what == 1) {
          for (int k = 1; k <= nz; ++k)
            for (int j = 1; j <= ny; ++j)
              for (int i = 1; i <= nx; ++i) sip3_forward_at(f, r, i, j, k);
        } else {
          for (int k = nz; k >= 1; --k)
            for (int j = ny; j >= 1; --j)
              for (int i = nx; i >= 1; --i) sip3_backward_at(f, r, x, i, j, k);
        }
      },
      bad);
  return bad;
}

// One launch per hyperplane (i-1) + (j-1) + (k-1) = dg, over (i, j) with k
// following.
template <class ExecSpace, class Op, class F, class R, class X, class Real, class Bad>
void sip3_planes(const ExecSpace& space, const Op& op, const F& f, const R& r, const X& x,
                 Real alpha, int what, const Bad& bad) {
  const int nx = op.grid.cells[0], ny = op.grid.cells[1], nz = op.grid.cells[2];
  const int last = nx + ny + nz - 3;
  using P = GridPolicy<ExecSpace, 2>;
  for (int q = 0; q <= last; ++q) {
    const int dg = what == 2 ? last - q : q;
    // i + j = dg + 3 - k with 1 <= k <= nz
    const int ilo = std::max(1, dg + 3 - ny - nz), ihi = std::min(nx, dg + 1);
    const int jlo = std::max(1, dg + 3 - nx - nz), jhi = std::min(ny, dg + 1);
    if (ilo > ihi || jlo > jhi) continue;
    Kokkos::parallel_for(
        what == 0   ? "kflow::linalg::sip3::factor_plane"
        : what == 1 ? "kflow::linalg::sip3::forward_plane"
                    : "kflow::linalg::sip3::backward_plane",
        P(space, {ilo, jlo}, {ihi + 1, jhi + 1}), KOKKOS_LAMBDA(int i, int j) {
          const int k = dg + 3 - i - j;
          if (k < 1 || k > nz) return;
          if (what == 0) {
            if (sip3_factor_at(op, f, alpha, i, j, k)) Kokkos::atomic_inc(&bad());
          } else if (what == 1) {
            sip3_forward_at(f, r, i, j, k);
          } else {
            sip3_backward_at(f, r, x, i, j, k);
          }
        });
  }
}

}  // namespace kflow::linalg::detail
