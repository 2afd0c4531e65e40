#pragma once
// SIP's 2D kernels (sip.hpp): the factorization and the forward and backward
// sweeps at one point, and the lexicographic, diagonal (the GPU
// factorization; bench/linalg runs its sweeps too) and host-tiles
// orderings of the sweeps.

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
#include "kflow/linalg/space.hpp"

namespace kflow::linalg::detail {

// Loads and stores of the values strips hand to each other (progress
// counters, the top row of a strip) while both run.  Not Kokkos::atomic_load /
// atomic_store: desul implements those as compare-and-swap loops, so a team
// spinning on a counter kept the L2 slot busy against its writer.  On the
// device a volatile access is one plain load or store that bypasses the L1
// cache (the writer fences its data before the counter, the reader fences
// after seeing it); on the host the compiler's atomic builtins.
template <class T>
KOKKOS_INLINE_FUNCTION T relaxed_load(const T* p) {
  KOKKOS_IF_ON_DEVICE((return *static_cast<const volatile T*>(p);))
  KOKKOS_IF_ON_HOST((T v; __atomic_load(p, &v, __ATOMIC_ACQUIRE); return v;))
}

template <class T>
KOKKOS_INLINE_FUNCTION void relaxed_store(T* p, T v) {
  KOKKOS_IF_ON_DEVICE((*static_cast<volatile T*>(p) = v;))
  KOKKOS_IF_ON_HOST((__atomic_store(p, &v, __ATOMIC_RELEASE);))
}

// Factorization at one point (W and S already done).
template <class Op, class F, class Real>
KOKKOS_INLINE_FUNCTION bool sip_factor_at(const Op& op, const F& f, Real alpha, int i, int j) {
  const auto c = op.coeffs(i, j);
  if (c.p == 0) {
    f.lw(i, j) = f.ls(i, j) = f.lpinv(i, j) = f.un(i, j) = f.ue(i, j) = Real(0);
    return false;
  }
  // Ghost values of un/ue are 0, so the first row and column see nothing.
  const Real unw = f.un(i - 1, j), uew = f.ue(i - 1, j), ues = f.ue(i, j - 1), uns = f.un(i, j - 1);
  const Real lw = c.w / (Real(1) + alpha * unw);
  const Real ls = c.s / (Real(1) + alpha * ues);
  const Real p1 = alpha * lw * unw, p2 = alpha * ls * ues;
  const Real lp = c.p + p1 + p2 - lw * uew - ls * uns;
  const bool bad = !(Kokkos::fabs(lp) > Real(0));
  const Real r = bad ? Real(0) : Real(1) / lp;
  f.lw(i, j) = lw;
  f.ls(i, j) = ls;
  f.lpinv(i, j) = r;
  f.un(i, j) = (c.n - p1) * r;
  f.ue(i, j) = (c.e - p2) * r;
  return bad;
}

template <class F, class R>
KOKKOS_INLINE_FUNCTION void sip_forward_at(const F& f, const R& r, int i, int j) {
  r(i, j) = (r(i, j) - f.ls(i, j) * r(i, j - 1) - f.lw(i, j) * r(i - 1, j)) * f.lpinv(i, j);
}

template <class F, class R, class X>
KOKKOS_INLINE_FUNCTION void sip_backward_at(const F& f, const R& r, const X& x, int i, int j) {
  const auto d = r(i, j) - f.un(i, j) * r(i, j + 1) - f.ue(i, j) * r(i + 1, j);
  r(i, j) = d;
  x(i, j) += d;
}

// what: 0 factorization, 1 forward, 2 backward.  Returns the number of bad
// pivots (factorization only).
template <class ExecSpace, class Op, class F, class R, class X, class Real>
long sip_lexicographic(const ExecSpace& space, const Op& op, const F& f, const R& r, const X& x,
                       Real alpha, int what) {
  const int nx = op.grid.cells[0], ny = op.grid.cells[1];
  long bad = 0;
  Kokkos::parallel_reduce(
      "kflow::linalg::sip::lexicographic", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(int, long& acc) {
        if (what == 0) {
          for (int j = 1; j <= ny; ++j)
            for (int i = 1; i <= nx; ++i) acc += sip_factor_at(op, f, alpha, i, j);
        } else if (what == 1) {
          for (int j = 1; j <= ny; ++j)
            for (int i = 1; i <= nx; ++i) sip_forward_at(f, r, i, j);
        } else {
          for (int j = ny; j >= 1; --j)
            for (int i = nx; i >= 1; --i) sip_backward_at(f, r, x, i, j);
        }
      },
      bad);
  return bad;
}

// One launch per anti-diagonal (i - 1) + (j - 1) = dg.
template <class ExecSpace, class Op, class F, class R, class X, class Real, class Bad>
void sip_diagonals(const ExecSpace& space, const Op& op, const F& f, const R& r, const X& x,
                   Real alpha, int what, const Bad& bad) {
  const int nx = op.grid.cells[0], ny = op.grid.cells[1];
  const int last = nx + ny - 2;
  for (int k = 0; k <= last; ++k) {
    const int dg = what == 2 ? last - k : k;
    const int ilo = std::max(1, dg + 2 - ny), ihi = std::min(nx, dg + 1);
    Kokkos::parallel_for(
        what == 0   ? "kflow::linalg::sip::factor_diagonal"
        : what == 1 ? "kflow::linalg::sip::forward_diagonal"
                    : "kflow::linalg::sip::backward_diagonal",
        Kokkos::RangePolicy<ExecSpace>(space, ilo, ihi + 1), KOKKOS_LAMBDA(int i) {
          const int j = dg + 2 - i;
          if (what == 0) {
            if (sip_factor_at(op, f, alpha, i, j)) Kokkos::atomic_inc(&bad());
          } else if (what == 1) {
            sip_forward_at(f, r, i, j);
          } else {
            sip_backward_at(f, r, x, i, j);
          }
        });
  }
}

// ---- tiles ordering ---------------------------------------------------------
// Sweep coordinates: column step a = 0..nx-1 and row step b = 0..ny-1 in the
// order of the sweep (forward: i = 1 + a, j = 1 + b; backward: i = nx - a,
// j = ny - b), so that both sweeps are the same recurrence
//   y(a, b) = (r - c1 y(a, b - 1) - c2 y(a - 1, b)) c3
// with (c1, c2, c3) = (L_S, L_W, 1 / L_P) forward and (U_N, U_E, 1) backward.

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KFLOW_SIP_UNROLL _Pragma("unroll")
#else
#define KFLOW_SIP_UNROLL
#endif

// Host kernel (teams of one thread): a strip of ty rows, its tiles of tx
// columns in sweep order, each one lexicographic (sip_forward_at /
// sip_backward_at, the arithmetic of every other ordering); before a tile,
// wait until the strip below has published that it finished those columns.
template <class ExecSpace, class F, class R, class X, class Sync>
void sip_tiles_host(const ExecSpace& space, int nx, int ny, int ty, int tx, const F& f, const R& r,
                    const X& x, bool forward, const Sync& sync) {
  const int strips = (ny + ty - 1) / ty;
  Kokkos::deep_copy(space, sync, 0);  // progress of every strip, and the ticket counter
  Kokkos::parallel_for(
      forward ? "kflow::linalg::sip::forward_tiles" : "kflow::linalg::sip::backward_tiles",
      Kokkos::RangePolicy<ExecSpace>(space, 0, strips), KOKKOS_LAMBDA(int) {
        const int strip = Kokkos::atomic_fetch_add(&sync(strips), 1);
        const int b0 = strip * ty, b1 = Kokkos::min(ny, b0 + ty);
        for (int a0 = 0; a0 < nx; a0 += tx) {
          const int a1 = Kokkos::min(nx, a0 + tx);
          if (strip > 0) {
            while (relaxed_load(&sync(strip - 1)) < a1) {
            }
            Kokkos::memory_fence();
          }
          if (forward) {
            for (int b = b0; b < b1; ++b)
              for (int a = a0; a < a1; ++a) sip_forward_at(f, r, 1 + a, 1 + b);
          } else {
            for (int b = b0; b < b1; ++b)
              for (int a = a0; a < a1; ++a) sip_backward_at(f, r, x, nx - a, ny - b);
          }
          Kokkos::memory_fence();
          relaxed_store(&sync(strip), a1);
        }
      });
}

template <class ExecSpace, class S, class D>
void sip_copy_interior(const ExecSpace& space, const Grid& g, const S& src, const D& dst) {
  if constexpr (S::rank == 2) {
    Kokkos::parallel_for(
        "kflow::linalg::sip::copy", interior_policy<2>(space, g),
        KOKKOS_LAMBDA(int i, int j) { dst(i, j) = src(i, j); });
  } else {
    Kokkos::parallel_for(
        "kflow::linalg::sip::copy", interior_policy<3>(space, g),
        KOKKOS_LAMBDA(int i, int j, int k) { dst(i, j, k) = src(i, j, k); });
  }
}

}  // namespace kflow::linalg::detail
