#pragma once
// The Thomas algorithm (Gaussian elimination without pivoting), one thread
// per system; on CPUs a work item takes neighbouring systems as the lanes
// of vectorised loops (thomas_lanes).
// The rows come from a row source: rows.line(f, st) is a system's rows, its
// first unknown at index f and the next ones st apart; line(k) is row k.
// They are read from four arrays (ArrayRows) or assembled as the elimination
// reaches them (Tridiag::solve_rows).

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

#include "kflow/linalg/detail/tridiag_rows.hpp"
#include "kflow/linalg/space.hpp"

namespace kflow::linalg::detail {

// A hint that the cache line of p is read (Write: written) soon: CPUs' lanes
// fetch the rows they assemble next while they eliminate the present ones
// (nothing prefetches lines a row apart in another page).  No-op on GPUs.
template <bool Write = false>
KOKKOS_FORCEINLINE_FUNCTION void prefetch(const void* p) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  __builtin_prefetch(p, Write ? 1 : 0);
#else
  (void)p;
#endif
}

// prefetch for rows kb .. ke - 1 of lanes 0 .. w - 1 of an array (row k of
// lane l at base[k st + l ls]), one hint a cache line.
template <bool Write = false, class Real>
KOKKOS_INLINE_FUNCTION void prefetch_lanes(const Real* base, long ls, long st, int w, long kb,
                                           long ke) {
  constexpr long per = 64 / long(sizeof(Real));
  if (w <= 0 || kb >= ke) return;
  if (ls == 1) {
    for (long k = kb; k < ke; ++k) {
      for (long l = 0; l < w; l += per) prefetch<Write>(base + k * st + l);
      prefetch<Write>(base + k * st + w - 1);
    }
  } else if (st == 1) {
    for (long l = 0; l < w; ++l) {
      for (long k = kb; k < ke; k += per) prefetch<Write>(base + l * ls + k);
      prefetch<Write>(base + l * ls + ke - 1);
    }
  } else {
    for (long k = kb; k < ke; ++k)
      for (long l = 0; l < w; ++l) prefetch<Write>(base + k * st + l * ls);
  }
}

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
  // CPUs' lanes (thomas_lanes): every row plain.
  struct Lanes {
    const ArrayRows* r = nullptr;
    long f = 0, ls = 0, st = 0;
    KOKKOS_INLINE_FUNCTION Row<Real> operator()(long k, int l) const {
      const long i = f + k * st + l * ls;
      return {r->a(i), r->b(i), r->c(i), r->d(i)};
    }
    KOKKOS_INLINE_FUNCTION bool plain(long, int) const { return true; }
    KOKKOS_INLINE_FUNCTION Row<Real> plain_row(long k, int l) const { return (*this)(k, l); }
    KOKKOS_INLINE_FUNCTION void prefetch(long kb, long ke, int w) const {
      for (const auto* v : {&r->a, &r->b, &r->c, &r->d})
        prefetch_lanes(v->data() + f, ls, st, w, kb, ke);
    }
  };
  KOKKOS_INLINE_FUNCTION Lanes lanes(long f, long ls, long st) const { return {this, f, ls, st}; }
};

// ---- Thomas: one thread per system ----------------------------------------

// Rows per chunk of the back substitution: its loads are issued together,
// so that a thread has B rows in flight instead of one (a GPU thread waits
// out each load's latency before the store that follows it).  6 in double,
// 8 in float: a chunk's x and c' take 4 B registers in double, and fewer
// registers a thread leave an SM more warps (measured on the H200:
// docs/models/split3d.md, "The back substitution's chunk by precision").
template <class Real>
constexpr int thomas_chunk = sizeof(Real) > 4 ? 6 : 8;

template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void thomas(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
            const W& ws, bool interleaved_ws, const Flag& flag) {
  constexpr int B = thomas_chunk<Real>;
  const long n = sh.n, ns = sh.systems(), st = sh.stride;
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas", Kokkos::RangePolicy<ExecSpace, LightWeight>(space, 0, ns),
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

// Vectorised loops over the lanes of thomas_lanes (the lanes are independent
// systems).  Not in device code: there a thread is one system.
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#define KFLOW_LANES_SIMD _Pragma("omp simd reduction(| : bad)")
#define KFLOW_LANES_SIMD_PLAIN _Pragma("omp simd")
#else
#define KFLOW_LANES_SIMD
#define KFLOW_LANES_SIMD_PLAIN
#endif

// The lanes of a row source that has only line(): every row through it.
template <class Rows>
struct LineLanes {
  const Rows* r = nullptr;
  long f = 0, ls = 0, st = 0;
  KOKKOS_INLINE_FUNCTION auto operator()(long k, int l) const { return r->line(f + l * ls, st)(k); }
  KOKKOS_INLINE_FUNCTION bool plain(long, int) const { return true; }
  KOKKOS_INLINE_FUNCTION auto plain_row(long k, int l) const { return (*this)(k, l); }
  KOKKOS_INLINE_FUNCTION void prefetch(long, long, int) const {}
};

template <class Rows, class = void>
struct has_lanes : std::false_type {};
template <class Rows>
struct has_lanes<Rows, std::void_t<decltype(std::declval<const Rows&>().lanes(0L, 0L, 0L))>>
    : std::true_type {};

// rows.lanes(f, ls, st) where the source has it (the systems whose first
// unknowns are f + l ls, l = 0, 1, ..., the next ones st apart), else
// LineLanes.  A lanes cursor gives row k of lane l as lanes(k, l); where
// lanes.plain(k, w) (row k of lanes 0 .. w - 1), also as
// lanes.plain_row(k, l), the same row by the same arithmetic in a form a
// vectorised loop over l takes (no boundary or mask branches);
// lanes.prefetch(kb, ke, w) hints the memory rows kb .. ke - 1 of lanes 0 ..
// w - 1 read (prefetch_lanes).
template <class Rows>
KOKKOS_INLINE_FUNCTION auto lanes_of(const Rows& rows, long f, long ls, long st) {
  if constexpr (has_lanes<Rows>::value)
    return rows.lanes(f, ls, st);
  else
    return LineLanes<Rows>{&rows, f, ls, st};
}

// CPUs' lanes: a work item takes up to L = thomas_lanes_width<Real>
// neighbouring systems (2048 bytes of a row: whole cache lines, and half a
// page of a row where they are neighbours in memory) and assembles K =
// thomas_lanes_rows rows of all of them before it eliminates them.  Chosen on
// the 16 cores of the GPU machine and the 2-core development machine
// (docs/models/split3d.md, "CPU lanes").
template <class Real>
constexpr int thomas_lanes_width = 2048 / int(sizeof(Real));
constexpr int thomas_lanes_rows = 8;
// Lanes a work item takes: thomas_lanes_width where neighbouring systems are
// neighbours in memory (ls = 1), 16 where they are ls apart (each lane's
// rows in cache lines of their own; a power-of-two ls maps wider sets of lanes
// to few cache sets).
template <class Real>
constexpr int lanes_used(long ls) {
  return ls == 1 ? thomas_lanes_width<Real> : 16;
}
// Where a row of neighbouring systems is narrower than half the lanes (a
// line of 192 floats: 768 bytes) and a system's rows lie pages apart (the
// lines in z), a work item takes up to this many such rows of consecutive m1
// as segments of its lanes, so that it still reads about 2048 bytes a row
// (docs/linalg.md, "Thomas on CPUs: lanes").
constexpr int thomas_lanes_segments = 8;
// Segments a work item takes for c0 systems a row (ls apart), rows st apart,
// m1s such rows and `threads` threads: as many as fill the lanes, but not so
// many that a thread is left without a work item.
template <class Real>
constexpr int lanes_segments(long c0, long ls, long st, long m1s, long threads) {
  long S = ls == 1 && c0 > 0 && st * long(sizeof(Real)) >= 4096 ? thomas_lanes_width<Real> / c0 : 1;
  if (S > thomas_lanes_segments) S = thomas_lanes_segments;
  if (threads > 0 && S > m1s / threads) S = m1s / threads;
  return int(S < 1 ? 1 : S);
}

// Thomas on CPUs: one work item takes up to L neighbouring systems (m0 ..
// m0 + L - 1 of one m1, or S segments of c0 each: every system of m1 .. m1 +
// S - 1) as lanes and eliminates row k of every lane before row k + 1, the
// rows assembled K at a time into a buffer on the stack.  The lane loops are
// vectorised (independent division chains); c' goes to the thread's own
// part of ws (token: a Kokkos UniqueToken), which with x stays in cache for
// the back substitution.  Same arithmetic per system as `thomas`.  A host
// lambda: run_thomas calls it for host spaces only.  Unit: neighbouring
// systems are neighbours in memory (system_stride[0] = 1), a constant here:
// with a run-time distance g++ versions the lane loops on it and leaves the
// unit-distance copy scalar.
template <class ExecSpace, class Real, bool Unit, class Rows, class X, class W, class Token,
          class Flag>
void thomas_lanes(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
                  const W& ws, const Token& token, const Flag& flag, int S) {
  constexpr int L = thomas_lanes_width<Real>, K = thomas_lanes_rows, SM = thomas_lanes_segments;
  const long n = sh.n, st = sh.stride, c0 = sh.count[0], ls = Unit ? 1 : sh.system_stride[0];
  const long m1s = sh.count[1] * sh.count[2];
  const int lw = lanes_used<Real>(ls);
  const long blocks0 = (c0 + lw - 1) / lw, blocks1 = (m1s + S - 1) / S;
  using Cursor = decltype(lanes_of(rows, 0L, 0L, 0L));
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas_lanes",
      Kokkos::RangePolicy<ExecSpace>(space, 0, blocks0 * blocks1), [=](long item) {
        // segment j: lanes j w .. j w + w - 1, the systems m0 .. m0 + w - 1 of m1 + j
        const long m1 = item / blocks0 * S, m0 = (item % blocks0) * lw;
        const int w = int(c0 - m0 < lw ? c0 - m0 : lw);
        const int ns = int(m1s - m1 < S ? m1s - m1 : S);
        Cursor lanes[SM];
        Real* xs[SM];  // x of row k, lane l of segment j: xs[j][k st + l ls]
        for (int j = 0; j < ns; ++j) {
          const long q = m1 + j;
          const long f = sh.offset + m0 * ls + (q % sh.count[1]) * sh.system_stride[1] +
                         (q / sh.count[1]) * sh.system_stride[2];
          lanes[j] = lanes_of(rows, f, ls, st);
          xs[j] = x.data() + f;
        }
        const int slot = token.acquire();
        Real* const wk = ws.data() + slot * L * n;  // c' of row k, lane g: wk[k L + g]
        Real cp[L], dp[L];
        Real ra[K][L], rb[K][L], rc[K][L], rd[K][L];  // rows k0 .. k0 + K - 1
        int bad = 0;
        for (long k0 = 0; k0 < n; k0 += K) {
          const int kn = int(n - k0 < K ? n - k0 : K);
          if (k0 + K < n) {  // the next K rows on their way
            const long ke = k0 + 2 * K < n ? k0 + 2 * K : n;
            for (int j = 0; j < ns; ++j) {
              lanes[j].prefetch(k0 + K, ke, w);
              prefetch_lanes<true>(xs[j], ls, st, w, k0 + K, ke);
            }
          }
          for (int r = 0; r < kn; ++r) {
            const long k = k0 + r;
            for (int j = 0; j < ns; ++j) {
              const auto& cur = lanes[j];
              Real *const qa = ra[r] + j * w, *const qb = rb[r] + j * w, *const qc = rc[r] + j * w,
                          *const qd = rd[r] + j * w;
              auto keep = [&](int l, const Row<Real>& q) {
                qa[l] = q.a, qb[l] = q.b, qc[l] = q.c, qd[l] = q.d;
              };
              if (cur.plain(k, w)) {
                KFLOW_LANES_SIMD_PLAIN
                for (int l = 0; l < w; ++l) keep(l, cur.plain_row(k, l));
              } else {
                for (int l = 0; l < w; ++l) keep(l, cur(k, l));
              }
            }
          }
          // No branch inside the lane loops: g++ unswitches a loop on a
          // condition such as k + 1 == n and leaves a copy scalar.  The last
          // row's c' (and a one-row system's) is never read.
          for (int r = 0; r < kn; ++r) {
            const long k = k0 + r;
            for (int j = 0; j < ns; ++j) {
              const int g = j * w;
              Real* const xp = xs[j] + k * st;
              if (k == 0) {
                KFLOW_LANES_SIMD
                for (int l = 0; l < w; ++l) {
                  const Real p = rb[r][g + l];
                  bad |= bad_pivot(p);
                  cp[g + l] = rc[r][g + l] / p;
                  dp[g + l] = rd[r][g + l] / p;
                  wk[g + l] = cp[g + l];
                  xp[l * ls] = dp[g + l];
                }
                continue;
              }
              KFLOW_LANES_SIMD
              for (int l = 0; l < w; ++l) {
                const Real ak = ra[r][g + l], p = rb[r][g + l] - ak * cp[g + l];
                bad |= bad_pivot(p);
                const Real q = Real(1) / p;
                cp[g + l] = rc[r][g + l] * q;
                dp[g + l] = (rd[r][g + l] - ak * dp[g + l]) * q;
                wk[k * L + g + l] = cp[g + l];
                xp[l * ls] = dp[g + l];
              }
            }
          }
        }
        for (long k = n - 2; k >= 0; --k)
          for (int j = 0; j < ns; ++j) {
            const int g = j * w;
            Real* const xp = xs[j] + k * st;
            KFLOW_LANES_SIMD_PLAIN
            for (int l = 0; l < w; ++l) {
              Real& xi = xp[l * ls];
              dp[g + l] = xi - wk[k * L + g + l] * dp[g + l];
              xi = dp[g + l];
            }
          }
        token.release(slot);
        if (bad)  // the first system of the item that failed
          for (int j = 0; j < ns; ++j)
            for (int l = 0; l < w; ++l) {
              const Row<Real> r0 = lanes[j](0, l);
              bool bl = bad_pivot(r0.b);
              Real q = n > 1 ? r0.c / r0.b : Real(0);
              for (long k = 1; k < n && !bl; ++k) {
                const Row<Real> rk = lanes[j](k, l);
                const Real p = rk.b - rk.a * q;
                bl = bad_pivot(p);
                q = k + 1 < n ? rk.c / p : Real(0);
              }
              if (bl) {
                flag_system(flag, m0 + l + c0 * (m1 + j));
                return;
              }
            }
      });
}
#undef KFLOW_LANES_SIMD  // thomas_lanes' alone, not its includers'
#undef KFLOW_LANES_SIMD_PLAIN

// Thomas on any batch: CPUs take the systems in lanes (thomas_lanes) once
// there are work items enough to keep every thread busy, one per thread
// otherwise (and for one system: the plain Thomas loop, the paper's CPU
// baseline).  ws grows as needed.
template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void run_thomas(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x, W& ws,
                const Flag& flag) {
  const long n = sh.n, ns = sh.systems();
  if constexpr (!on_gpu<ExecSpace>) {
    const long lw = lanes_used<Real>(sh.system_stride[0]), m1s = sh.count[1] * sh.count[2];
    const int S =
        lanes_segments<Real>(sh.count[0], sh.system_stride[0], sh.stride, m1s, space.concurrency());
    const long items = (sh.count[0] + lw - 1) / lw * ((m1s + S - 1) / S);
    if (items >= space.concurrency()) {
      const Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
      grow(space, ws, n * thomas_lanes_width<Real> * token.size());
      if (sh.system_stride[0] == 1)
        thomas_lanes<ExecSpace, Real, true>(space, sh, rows, x, ws, token, flag, S);
      else
        thomas_lanes<ExecSpace, Real, false>(space, sh, rows, x, ws, token, flag, S);
      return;
    }
  }
  grow(space, ws, n * ns);
  thomas<ExecSpace, Real>(space, sh, rows, x, ws, on_gpu<ExecSpace>, flag);
}

}  // namespace kflow::linalg::detail
