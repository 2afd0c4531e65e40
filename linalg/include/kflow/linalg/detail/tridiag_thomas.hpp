#pragma once
// The Thomas algorithm (Gaussian elimination without pivoting), one thread
// per system; on CPUs a work item takes neighbouring systems as the lanes
// of vectorised loops (thomas_lanes).
// The rows come from a row source: rows.line(f, st) is a system's rows, its
// first unknown at index f and the next ones st apart; line(k) is row k.
// They are read from four arrays (ArrayRows) or assembled as the elimination
// reaches them (Tridiag::solve_rows).  Cyclic (periodic) systems take one
// elimination too: thomas_cyclic, and thomas_lanes with Cyclic = true (their
// shared steps: cyclic_z .. cyclic_last below).

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
    KOKKOS_INLINE_FUNCTION int others(long, int, int*) const { return 0; }
    KOKKOS_INLINE_FUNCTION Row<Real> plain_row(long k, int l) const { return (*this)(k, l); }
    KOKKOS_INLINE_FUNCTION void prefetch(long kb, long ke, int w) const {
      for (const auto* v : {&r->a, &r->b, &r->c, &r->d})
        prefetch_lanes(v->data() + f, ls, st, w, kb, ke);
    }
  };
  KOKKOS_INLINE_FUNCTION Lanes lanes(long f, long ls, long st) const { return {this, f, ls, st}; }
};

// ---- Cyclic systems in one elimination -----------------------------------
// Row 0 is a_0 x_{n-1} + b_0 x_0 + c_0 x_1 = d_0, row n-1 a_{n-1} x_{n-2} +
// b_{n-1} x_{n-1} + c_{n-1} x_0 = d_{n-1}.  With x_{n-1} as a parameter, rows
// 0 .. n-2 are an ordinary system B (a_0 and c_{n-2} moved to the right-hand
// side): x_k = y_k + x_{n-1} z_k, B y = d, B z = -(a_0 e_0 + c_{n-2} e_{n-2}).
// Thomas eliminates B once for both right-hand sides (z' kept beside c') and
// carries y_0 along: after row k, y_0 = py + q y_{k+1} (py += q d'_k, q =
// -q c'_k), and z_0 alike, so that row n-1 gives x_{n-1} as soon as the
// elimination reaches it, its denominator the Schur complement of B, and one
// back substitution x_k = d'_k + x_{n-1} z'_k - c'_k x_{k+1} finishes.  The
// rows are read once, as in an ordinary Thomas, and a, b, c as they are
// (Sherman-Morrison would need a modified copy of b).  n >= 2 (n = 1:
// detail/tridiag_cyclic.hpp).

// z's right-hand side of a row: first = 1 on row 0, last = 1 on row n-2
// (factors, not branches: CPUs' lane loops take them).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real cyclic_z(Real a, Real c, Real first, Real last) {
  return -(a * first) - c * last;
}

// y_0 and z_0 carried past row k (its c', d', z').  q is a product of the
// -c' and shrinks like them in a diagonally dominant row; below eps^2 its
// terms are far below the solve's rounding, and it is set to zero there
// (CPUs keeping subnormals would slow down on them).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void cyclic_carry(Real cp, Real dp, Real zp, Real& py, Real& pz,
                                              Real& q) {
  constexpr Real eps = Kokkos::Experimental::epsilon_v<Real>, tiny = eps * eps;
  py += q * dp;
  pz += q * zp;
  q = -q * cp;
  q = Kokkos::fabs(q) < tiny ? Real(0) : q;
}

// x_{n-1} from row n-1 (a, b, c, d), y and z at rows n-2 (yl, zl) and 0 (y0,
// z0).  Flags a zero or NaN Schur complement, zero to rounding when |s| <= n
// eps (|b| + |a zl| + |c z0|) (tol = n eps): a singular cyclic matrix such as
// the periodic Laplacian, whose rows 0 .. n-2 alone are regular.
template <class Real, class Bad>
KOKKOS_FORCEINLINE_FUNCTION Real cyclic_last(Real a, Real b, Real c, Real d, Real yl, Real zl,
                                             Real y0, Real z0, Real tol, Bad& bad) {
  const Real ta = a * zl, tc = c * z0;
  const Real p = b + ta + tc;
  const Real s = Kokkos::fabs(b) + Kokkos::fabs(ta) + Kokkos::fabs(tc);
  bad |= bad_pivot(p) || Kokkos::fabs(p) <= tol * s;
  return (d - a * yl - c * y0) / p;
}

template <class Real>
KOKKOS_INLINE_FUNCTION constexpr Real cyclic_tol(long n) {
  return Real(n) * Kokkos::Experimental::epsilon_v<Real>;
}

// Whether the elimination of one system (row(k): row k) meets a bad pivot
// (Cyclic: or a singular Schur complement), by the kernels' arithmetic: the
// CPUs' lanes ask it to name the system that failed (host code).
template <bool Cyclic, class Real, class RowOf>
bool thomas_fails(const RowOf& row, long n) {
  const long ne = Cyclic ? n - 1 : n;
  bool bad = false;
  Real cp = 0, dp = 0, zp = 0, py = 0, pz = 0, q = 1;
  for (long k = 0; k < ne; ++k) {
    const Row<Real> r = row(k);
    const Real p = k == 0 ? r.b : r.b - r.a * cp;
    bad |= bad_pivot(p);
    const Real keep = k + 1 < ne ? Real(1) : Real(0);
    if (k == 0) {
      cp = r.c / p * keep;
      dp = r.d / p;
      if constexpr (Cyclic) zp = cyclic_z(r.a, r.c, Real(1), Real(1) - keep) / p;
    } else {
      const Real rp = Real(1) / p;
      cp = r.c * rp * keep;
      if constexpr (Cyclic) zp = (cyclic_z(r.a, r.c, Real(0), Real(1) - keep) - r.a * zp) * rp;
      dp = (r.d - r.a * dp) * rp;
    }
    if constexpr (Cyclic) cyclic_carry(cp, dp, zp, py, pz, q);
  }
  if constexpr (Cyclic) {
    const Row<Real> r = row(n - 1);
    cyclic_last(r.a, r.b, r.c, r.d, dp, zp, py, pz, cyclic_tol<Real>(n), bad);
  }
  return bad;
}

// ---- Thomas: one thread per system ----------------------------------------

// Rows per chunk of the back substitution: its loads are issued together,
// so that a thread has B rows in flight instead of one (a GPU thread waits
// out each load's latency before the store that follows it).  6 in double,
// 8 in float: a chunk's x and c' take 4 B registers in double, and fewer
// registers a thread leave an SM more warps (chunks of 4, 6 and 8 measured
// on an H200: 6 the fastest in double, 8 in float).
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

// The cyclic systems' Thomas, one thread per system (the reduction above:
// rows 0 .. n-2 eliminated for d and z's right-hand side, row n-1, one back
// substitution).  ws: c' (n rows a system), then z' (n more).  Its own
// kernel, not a flag of `thomas`: that one's sweeps ran 9-17 % slower in
// double on an H200 with the flag.  n >= 2.
template <class ExecSpace, class Real, class Rows, class X, class W, class Flag>
void thomas_cyclic(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
                   const W& ws, bool interleaved_ws, const Flag& flag) {
  constexpr int B = thomas_chunk<Real>;
  const long n = sh.n, ns = sh.systems(), st = sh.stride;
  const Real tol = cyclic_tol<Real>(n);
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas_cyclic",
      Kokkos::RangePolicy<ExecSpace, LightWeight>(space, 0, ns), KOKKOS_LAMBDA(long m) {
        const long f = sh.first(m), ne = n - 1;  // rows eliminated
        // workspace index of row k: c' at w0 + k ws_st, z' at wz + k ws_st
        const long w0 = interleaved_ws ? m : m * n, ws_st = interleaved_ws ? ns : 1;
        const long wz = n * ns + w0;
        bool bad = false;
        const auto line = rows.line(f, st);
        const Row<Real> r0 = line(0);
        Real p = r0.b;
        bad |= bad_pivot(p);
        const Real keep0 = ne > 1 ? Real(1) : Real(0);  // 0 on row n-2
        Real cp = r0.c / p * keep0;
        Real dp = r0.d / p;
        Real zp = cyclic_z(r0.a, r0.c, Real(1), Real(1) - keep0) / p;
        Real py = 0, pz = 0, q = 1;  // y_0 = py + q y_{k+1}, z_0 alike
        cyclic_carry(cp, dp, zp, py, pz, q);
        ws(w0) = cp;
        ws(wz) = zp;
        x(f) = dp;
        Row<Real> next = line(1);  // read ahead, as in `thomas`
        for (long k = 1; k < ne; ++k) {
          const Row<Real> rk = next;
          next = line(k + 1);
          const Real ak = rk.a;
          p = rk.b - ak * cp;
          bad |= bad_pivot(p);
          const Real r = Real(1) / p;
          const Real keep = k + 1 < ne ? Real(1) : Real(0);
          cp = rk.c * r * keep;
          zp = (cyclic_z(ak, rk.c, Real(0), Real(1) - keep) - ak * zp) * r;
          dp = (rk.d - ak * dp) * r;
          cyclic_carry(cp, dp, zp, py, pz, q);
          ws(w0 + k * ws_st) = cp;
          ws(wz + k * ws_st) = zp;
          x(f + k * st) = dp;
        }
        const Real xl = cyclic_last(next.a, next.b, next.c, next.d, dp, zp, py, pz, tol, bad);
        x(f + ne * st) = xl;
        dp = xl;
        long k = n - 2;
        for (; k >= B - 1; k -= B) {
          Real xv[B], wv[B], zv[B];
          for (int l = 0; l < B; ++l) {
            xv[l] = x(f + (k - l) * st);
            wv[l] = ws(w0 + (k - l) * ws_st);
            zv[l] = ws(wz + (k - l) * ws_st);
          }
          for (int l = 0; l < B; ++l) {
            dp = xv[l] + xl * zv[l] - wv[l] * dp;
            x(f + (k - l) * st) = dp;
          }
        }
        for (; k >= 0; --k) {
          const long i = f + k * st;
          dp = x(i) + xl * ws(wz + k * ws_st) - ws(w0 + k * ws_st) * dp;
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
  KOKKOS_INLINE_FUNCTION int others(long, int, int*) const { return 0; }
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
// LineLanes.  A lanes cursor gives row k of lane l as lanes(k, l), and
// mostly also as lanes.plain_row(k, l), the same row by the same arithmetic
// in a form a vectorised loop over l takes (no boundary or mask branches):
// lanes.others(k, w, lane) writes the lanes of 0 .. w - 1 whose row k is
// not that one to lane[] and returns their count (split3d: the solid
// nodes'), or returns -1 where plain_row is not to be called for row k at
// all (a boundary row); lanes.prefetch(kb, ke, w) hints the memory rows kb
// .. ke - 1 of lanes 0 .. w - 1 read (prefetch_lanes).
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
// thomas_lanes_rows rows of all of them before it eliminates them (measured
// on 16 and on 2 cores).
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
// in few pages.
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
// unit-distance copy scalar.  Cyclic: the one-elimination cyclic solve
// (above), z' beside c' in the thread's part of ws.
template <class ExecSpace, class Real, bool Unit, bool Cyclic, class Rows, class X, class W,
          class Token, class Flag>
void thomas_lanes(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x,
                  const W& ws, const Token& token, const Flag& flag, int S) {
  constexpr int L = thomas_lanes_width<Real>, K = thomas_lanes_rows, SM = thomas_lanes_segments;
  const long n = sh.n, st = sh.stride, c0 = sh.count[0], ls = Unit ? 1 : sh.system_stride[0];
  const long m1s = sh.count[1] * sh.count[2];
  const int lw = lanes_used<Real>(ls);
  const long blocks0 = (c0 + lw - 1) / lw, blocks1 = (m1s + S - 1) / S;
  const Real tol = cyclic_tol<Real>(n);
  using Cursor = decltype(lanes_of(rows, 0L, 0L, 0L));
  Kokkos::parallel_for(
      Cyclic ? "kflow::linalg::tridiag::thomas_lanes_cyclic"
             : "kflow::linalg::tridiag::thomas_lanes",
      Kokkos::RangePolicy<ExecSpace>(space, 0, blocks0 * blocks1), [=](long item) {
        const long ne = Cyclic ? n - 1 : n;  // rows eliminated (Cyclic: row n-1 gives x_{n-1})
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
        // c' of row k, lane g: wk[k L + g]; Cyclic: z' at zk[k L + g]
        Real* const wk = ws.data() + slot * (Cyclic ? 2 : 1) * L * n;
        Real* const zk = wk + L * n;
        Real cp[L], dp[L];
        Real zp[Cyclic ? L : 1], py[Cyclic ? L : 1], pz[Cyclic ? L : 1], q1[Cyclic ? L : 1];
        Real ra[K][L], rb[K][L], rc[K][L], rd[K][L];  // rows k0 .. k0 + K - 1
        int other[L];                                 // lanes.others' lanes
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
              // the plain rows for every lane, then the others' over them
              // (all through lanes(k, l) where most are others)
              const int no = cur.others(k, w, other);
              if (no >= 0 && 2 * no <= w) {
                KFLOW_LANES_SIMD_PLAIN
                for (int l = 0; l < w; ++l) keep(l, cur.plain_row(k, l));
                for (int o = 0; o < no; ++o) keep(other[o], cur(k, other[o]));
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
            // Cyclic: keep = 0 on row n-2 (its c is on the right-hand side)
            const Real keep = k + 1 < ne ? Real(1) : Real(0);
            for (int j = 0; j < ns; ++j) {
              const int g = j * w;
              Real* const xp = xs[j] + k * st;
              if (Cyclic && k == ne) {  // row n-1: x_{n-1}
                KFLOW_LANES_SIMD
                for (int l = 0; l < w; ++l) {
                  const Real xl =
                      cyclic_last(ra[r][g + l], rb[r][g + l], rc[r][g + l], rd[r][g + l], dp[g + l],
                                  zp[g + l], py[g + l], pz[g + l], tol, bad);
                  dp[g + l] = xl;
                  py[g + l] = xl;  // py is spent: x_{n-1} for the back substitution
                  xp[l * ls] = xl;
                }
                continue;
              }
              if (k == 0) {
                KFLOW_LANES_SIMD
                for (int l = 0; l < w; ++l) {
                  const Real p = rb[r][g + l];
                  bad |= bad_pivot(p);
                  if constexpr (Cyclic) {
                    cp[g + l] = rc[r][g + l] / p * keep;
                    dp[g + l] = rd[r][g + l] / p;
                    zp[g + l] = cyclic_z(ra[r][g + l], rc[r][g + l], Real(1), Real(1) - keep) / p;
                    py[g + l] = pz[g + l] = Real(0);
                    q1[g + l] = Real(1);
                    cyclic_carry(cp[g + l], dp[g + l], zp[g + l], py[g + l], pz[g + l], q1[g + l]);
                    zk[g + l] = zp[g + l];
                  } else {
                    cp[g + l] = rc[r][g + l] / p;
                    dp[g + l] = rd[r][g + l] / p;
                  }
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
                if constexpr (Cyclic) {
                  cp[g + l] = rc[r][g + l] * q * keep;
                  zp[g + l] =
                      (cyclic_z(ak, rc[r][g + l], Real(0), Real(1) - keep) - ak * zp[g + l]) * q;
                } else {
                  cp[g + l] = rc[r][g + l] * q;
                }
                dp[g + l] = (rd[r][g + l] - ak * dp[g + l]) * q;
                if constexpr (Cyclic) {
                  cyclic_carry(cp[g + l], dp[g + l], zp[g + l], py[g + l], pz[g + l], q1[g + l]);
                  zk[k * L + g + l] = zp[g + l];
                }
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
              if constexpr (Cyclic)
                dp[g + l] = xi + py[g + l] * zk[k * L + g + l] - wk[k * L + g + l] * dp[g + l];
              else
                dp[g + l] = xi - wk[k * L + g + l] * dp[g + l];
              xi = dp[g + l];
            }
          }
        token.release(slot);
        if (bad)  // the first system of the item that failed
          for (int j = 0; j < ns; ++j)
            for (int l = 0; l < w; ++l)
              if (thomas_fails<Cyclic, Real>([&](long k) { return lanes[j](k, l); }, n)) {
                flag_system(flag, m0 + l + c0 * (m1 + j));
                return;
              }
      });
}
#undef KFLOW_LANES_SIMD  // thomas_lanes' alone, not its includers'
#undef KFLOW_LANES_SIMD_PLAIN

// Thomas on any batch: CPUs take the systems in lanes (thomas_lanes) once
// there are work items enough to keep every thread busy, one per thread
// otherwise (and for one system: the plain Thomas loop, the paper's CPU
// baseline).  ws grows as needed.  Cyclic: every system a cyclic one (n >= 2).
template <class ExecSpace, class Real, bool Cyclic = false, class Rows, class X, class W,
          class Flag>
void run_thomas(const ExecSpace& space, const TridiagShape& sh, const Rows& rows, const X& x, W& ws,
                const Flag& flag) {
  const long n = sh.n, ns = sh.systems(), per = Cyclic ? 2 : 1;  // c' (and z') a row
  if constexpr (!on_gpu<ExecSpace>) {
    const long lw = lanes_used<Real>(sh.system_stride[0]), m1s = sh.count[1] * sh.count[2];
    const int S =
        lanes_segments<Real>(sh.count[0], sh.system_stride[0], sh.stride, m1s, space.concurrency());
    const long items = (sh.count[0] + lw - 1) / lw * ((m1s + S - 1) / S);
    if (items >= space.concurrency()) {
      const Kokkos::Experimental::UniqueToken<ExecSpace> token(space);
      grow(space, ws, per * n * thomas_lanes_width<Real> * token.size());
      if (sh.system_stride[0] == 1)
        thomas_lanes<ExecSpace, Real, true, Cyclic>(space, sh, rows, x, ws, token, flag, S);
      else
        thomas_lanes<ExecSpace, Real, false, Cyclic>(space, sh, rows, x, ws, token, flag, S);
      return;
    }
  }
  grow(space, ws, per * n * ns);
  if constexpr (Cyclic)
    thomas_cyclic<ExecSpace, Real>(space, sh, rows, x, ws, on_gpu<ExecSpace>, flag);
  else
    thomas<ExecSpace, Real>(space, sh, rows, x, ws, on_gpu<ExecSpace>, flag);
}

}  // namespace kflow::linalg::detail
