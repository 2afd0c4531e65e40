#pragma once
// The Thomas algorithm (Gaussian elimination without pivoting), one thread
// per system; on CPUs a thread takes 8 neighbouring systems side by side.
// The rows come from a row source: rows.line(f, st) is a system's rows, its
// first unknown at index f and the next ones st apart; line(k) is row k.
// They are read from four arrays (ArrayRows) or assembled as the elimination
// reaches them (Tridiag::solve_rows).

#include <Kokkos_Core.hpp>

#include "kflow/linalg/detail/tridiag_rows.hpp"
#include "kflow/linalg/space.hpp"

namespace kflow::linalg::detail {

// Rows read from the arrays a, b, c, d.
template <class Real, class A>
struct ArrayRows {
  A a, b, c, d;
  struct Line {
    const ArrayRows* r = nullptr;
    long f = 0, st = 0;
    KOKKOS_INLINE_FUNCTION Row<Real> operator()(long k) const {
      const long i = f + k * st;
      return {r->a(i), r->b(i), r->c(i), r->d(i)};
    }
  };
  KOKKOS_INLINE_FUNCTION Line line(long f, long st) const { return {this, f, st}; }
};

// ---- Thomas: one thread per system ----------------------------------------

// Rows per chunk of the back substitution: its loads are issued together,
// so that a thread has B rows in flight instead of one (a GPU thread waits
// out each load's latency before the store that follows it).
constexpr int thomas_chunk = 8;

template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void thomas(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
            const W& ws, bool interleaved_ws, const Flag& flag) {
  constexpr int B = thomas_chunk;
  const long n = sh.n, ns = sh.systems(), st = sh.stride;
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
      KOKKOS_LAMBDA(long m) {
        const long f = sh.first(m);
        // workspace index of row k
        const long w0 = interleaved_ws ? m : m * n, ws_st = interleaved_ws ? ns : 1;
        bool bad = false;
        const auto line = rows.line(f, st);
        const Row<Real> r0 = line(0);
        Real p = r0.b;
        bad |= bad_pivot(p);
        Real cp = n > 1 ? r0.c / p : Real(0);
        Real dp = r0.d / p;
        ws(w0) = cp;
        x(f) = dp;
        // row k + 1 is read before row k's results are stored: its loads
        // overlap row k's elimination
        Row<Real> next = n > 1 ? line(1) : r0;
        for (long k = 1; k < n; ++k) {
          const long i = f + k * st;
          const Row<Real> rk = next;
          if (k + 1 < n) next = line(k + 1);
          const Real ak = rk.a;
          p = rk.b - ak * cp;
          bad |= bad_pivot(p);
          const Real r = Real(1) / p;
          cp = k + 1 < n ? rk.c * r : Real(0);
          dp = (rk.d - ak * dp) * r;
          ws(w0 + k * ws_st) = cp;
          x(i) = dp;
        }
        long k = n - 2;
        for (; k >= B - 1; k -= B) {
          Real xv[B], wv[B];
          for (int l = 0; l < B; ++l) {
            xv[l] = x(f + (k - l) * st);
            wv[l] = ws(w0 + (k - l) * ws_st);
          }
          for (int l = 0; l < B; ++l) {
            dp = xv[l] - wv[l] * dp;
            x(f + (k - l) * st) = dp;
          }
        }
        for (; k >= 0; --k) {
          const long i = f + k * st;
          dp = x(i) - ws(w0 + k * ws_st) * dp;
          x(i) = dp;
        }
        if (bad) flag_system(flag, m);
      });
}

// Thomas on CPUs: one work item takes up to 8 neighbouring systems (m0 .. m0+7
// of one m1) and runs their eliminations side by side: 8 independent division
// chains instead of one, and in the interleaved layout every row touches
// whole cache lines.  Same arithmetic per system as `thomas`.
template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void thomas_blocked(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
                    const W& ws, const Flag& flag) {
  constexpr int B = 8;
  const long n = sh.n, st = sh.stride, c0 = sh.count[0];
  const long blocks0 = (c0 + B - 1) / B;
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas_blocked",
      Kokkos::RangePolicy<ExecSpace>(space, 0, blocks0 * sh.count[1] * sh.count[2]),
      KOKKOS_LAMBDA(long item) {
        const long m1 = item / blocks0, m0 = (item % blocks0) * B;  // m1 over count[1] count[2]
        const int w = int(c0 - m0 < B ? c0 - m0 : B);
        const long base = sh.offset + (m1 % sh.count[1]) * sh.system_stride[1] +
                          (m1 / sh.count[1]) * sh.system_stride[2];
        long f[B];
        for (int l = 0; l < B; ++l) f[l] = base + (m0 + l) * sh.system_stride[0];
        const long w0 = item * B * n;
        Real cp[B], dp[B];
        typename Rows::Line line[B];
        for (int l = 0; l < w; ++l) line[l] = rows.line(f[l], st);
        bool bad = false;
        for (int l = 0; l < w; ++l) {
          const Row<Real> r0 = line[l](0);
          const Real p = r0.b;
          bad |= bad_pivot(p);
          cp[l] = n > 1 ? r0.c / p : Real(0);
          dp[l] = r0.d / p;
          ws(w0 + l) = cp[l];
          x(f[l]) = dp[l];
        }
        for (long k = 1; k < n; ++k) {
          const bool last = k + 1 == n;
          for (int l = 0; l < w; ++l) {
            const long i = f[l] + k * st;
            const Row<Real> rk = line[l](k);
            const Real ak = rk.a, p = rk.b - ak * cp[l];
            bad |= bad_pivot(p);
            const Real r = Real(1) / p;
            cp[l] = last ? Real(0) : rk.c * r;
            dp[l] = (rk.d - ak * dp[l]) * r;
            ws(w0 + k * B + l) = cp[l];
            x(i) = dp[l];
          }
        }
        for (long k = n - 2; k >= 0; --k)
          for (int l = 0; l < w; ++l) {
            const long i = f[l] + k * st;
            dp[l] = x(i) - ws(w0 + k * B + l) * dp[l];
            x(i) = dp[l];
          }
        if (bad)  // the first system of the block that failed
          for (int l = 0; l < w; ++l) {
            const Row<Real> r0 = line[l](0);
            bool bl = bad_pivot(r0.b);
            Real q = n > 1 ? r0.c / r0.b : Real(0);
            for (long k = 1; k < n && !bl; ++k) {
              const Row<Real> rk = line[l](k);
              const Real p = rk.b - rk.a * q;
              bl = bad_pivot(p);
              q = k + 1 < n ? rk.c / p : Real(0);
            }
            if (bl) {
              flag_system(flag, m0 + l + c0 * m1);
              break;
            }
          }
      });
}

// Thomas on any batch: CPUs take 8 systems per thread once there are enough
// to keep every thread busy, one per thread otherwise (and for one system:
// the plain Thomas loop, the paper's CPU baseline).  ws grows as needed.
template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void run_thomas(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x, W& ws,
                const Flag& flag) {
  const long n = sh.n, ns = sh.systems();
  if (!on_gpu<ExecSpace> && ns >= 8L * space.concurrency()) {
    grow(space, ws, n * 8 * ((sh.count[0] + 7) / 8) * sh.count[1] * sh.count[2]);
    thomas_blocked<ExecSpace, Real>(space, sh, rows, x, ws, flag);
  } else {
    grow(space, ws, n * ns);
    thomas<ExecSpace, Real>(space, sh, rows, x, ws, on_gpu<ExecSpace>, flag);
  }
}

}  // namespace kflow::linalg::detail
