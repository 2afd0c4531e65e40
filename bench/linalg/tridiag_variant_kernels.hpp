#pragma once
// Kernels of the tridiagonal methods that linalg's Tridiag does not
// offer (tridiag_variants.hpp): cyclic reduction on global memory, PCR and the
// partition method ("hybrid") in team scratch, and the partitioned method for
// systems longer than team scratch.  They share linalg's row algebra.
//
// What the paper leaves open (CR indexing, termination, non-power-of-two
// n) is decided as in cr_forward below: 0-based rows; level l (1..q,
// q = floor(log2 n)) updates rows i with (i + 1) % 2^l == 0, so the paper's
// "odd-indexed equations" are the odd ones counted from 1; it runs until one
// equation (row 2^q - 1) is left, as the paper says (Zhang et al. stop at two),
// and needs no padding: a neighbour row i + s >= n does not exist and
// contributes nothing.

#include <Kokkos_Core.hpp>

#include "kflow/linalg/detail/tridiag_rows.hpp"

namespace kflow::linsys::tridiag_detail {

using namespace kflow::linalg;
using namespace kflow::linalg::detail;

// ---- CR on global memory ---------------------------------------------------
//
// Level l = 1..q (q = floor(log2 n), s = 2^(l-1)) replaces row i, with
// (i + 1) % 2^l == 0, by the combination of rows i - s, i, i + s that no
// longer contains x_{i-s} and x_{i+s}.  Rows updated at some level are the odd
// ones (i + 1 even); they are kept in a workspace indexed i / 2 (per system,
// n / 2 rows), so the input is never written.  Row i at level 0 is the input.
// After level q only row 2^q - 1 is left (a = c = 0 there); the backward
// levels l = q..1 solve rows i = s - 1 + 2 s k from their level-(l-1)
// equations.

template <class Real, class A, class W>
KOKKOS_INLINE_FUNCTION Row<Real> cr_row(const TridiagShape& sh, const A& a, const A& b, const A& c,
                                        const A& d, const W& wa, const W& wb, const W& wc,
                                        const W& wd, long m, long i, bool input) {
  if (input) {
    const long g = sh.first(m) + i * sh.stride;
    return {i > 0 ? a(g) : Real(0), b(g), i + 1 < sh.n ? c(g) : Real(0), d(g)};
  }
  const long w = m * (sh.n / 2) + i / 2;
  return {wa(w), wb(w), wc(w), wd(w)};
}

template <class ExecSpace, class Real, class A, class W, class Flag>
void cr_forward(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b, const A& c,
                const A& d, const W& wa, const W& wb, const W& wc, const W& wd, int level,
                const Flag& flag) {
  const long n = sh.n, cnt = n >> level, s = 1L << (level - 1);
  const bool input = level == 1;
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::cr_forward",
      Kokkos::RangePolicy<ExecSpace>(space, 0, cnt * sh.systems()), KOKKOS_LAMBDA(long idx) {
        const long m = idx / cnt, i = (idx % cnt) * 2 * s + 2 * s - 1;
        const Row<Real> r = cr_row<Real>(sh, a, b, c, d, wa, wb, wc, wd, m, i, input);
        const Row<Real> lo = cr_row<Real>(sh, a, b, c, d, wa, wb, wc, wd, m, i - s, input);
        const bool has_hi = i + s < n;
        const Row<Real> hi =
            has_hi ? cr_row<Real>(sh, a, b, c, d, wa, wb, wc, wd, m, i + s, input) : Row<Real>{};
        bool bad = false;
        const Row<Real> o = eliminate(r, lo, true, hi, has_hi, bad);
        const long w = m * (n / 2) + i / 2;
        wa(w) = o.a;
        wb(w) = o.b;
        wc(w) = o.c;
        wd(w) = o.d;
        if (bad) flag_system(flag, m);
      });
}

template <class ExecSpace, class Real, class A, class X, class W, class Flag>
void cr_backward(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b, const A& c,
                 const A& d, const X& x, const W& wa, const W& wb, const W& wc, const W& wd,
                 int level, const Flag& flag) {
  // level 0 here means "the last remaining row" 2^q - 1.
  const long n = sh.n;
  const long s = level > 0 ? 1L << (level - 1) : 0;
  const long cnt = level > 0 ? (n - s) / (2 * s) + 1 : 1;
  int q = 0;
  while ((2L << q) <= n) ++q;
  const long top = (1L << q) - 1;
  const bool input = level == 1 || (level == 0 && q == 0);
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::cr_backward",
      Kokkos::RangePolicy<ExecSpace>(space, 0, cnt * sh.systems()), KOKKOS_LAMBDA(long idx) {
        const long m = idx / cnt;
        const long i = s > 0 ? (idx % cnt) * 2 * s + s - 1 : top;
        const Row<Real> r = cr_row<Real>(sh, a, b, c, d, wa, wb, wc, wd, m, i, input);
        const long f = sh.first(m), st = sh.stride;
        Real v = r.d;
        if (s > 0 && i >= s) v -= r.a * x(f + (i - s) * st);
        if (s > 0 && i + s < n) v -= r.c * x(f + (i + s) * st);
        if (bad_pivot(r.b)) flag_system(flag, m);
        x(f + i * st) = v / r.b;
      });
}

// ---- team-scratch methods ---------------------------------------------------

// PCR on N rows held in (a0, b0, c0, d0), ping-ponging with (a1, ...): step s
// combines row r with rows r - s and r + s; after ceil(log2 N) steps every
// row is decoupled and x_r = d_r / b_r.  The solution ends in d0 of the
// caller when the number of steps is odd, else in d1 (see pcr_result).
// Returns (for the calling thread) whether it met a bad pivot.
template <class Team, class S>
KOKKOS_INLINE_FUNCTION bool pcr_team(const Team& team, S a0, S b0, S c0, S d0, S a1, S b1, S c1,
                                     S d1, int N) {
  using Real = typename S::value_type;
  bool bad = false;
  for (int s = 1; s < N; s *= 2) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, N), [&](int r) {
      auto row = [&](int i) {
        return Row<Real>{a0(i), b0(i), c0(i), d0(i)};
      };
      const bool has_lo = r - s >= 0, has_hi = r + s < N;
      const Row<Real> o = eliminate(row(r), has_lo ? row(r - s) : Row<Real>{}, has_lo,
                                    has_hi ? row(r + s) : Row<Real>{}, has_hi, bad);
      a1(r) = o.a;
      b1(r) = o.b;
      c1(r) = o.c;
      d1(r) = o.d;
    });
    team.team_barrier();
    Kokkos::kokkos_swap(a0, a1);
    Kokkos::kokkos_swap(b0, b1);
    Kokkos::kokkos_swap(c0, c1);
    Kokkos::kokkos_swap(d0, d1);
  }
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, N), [&](int r) {
    bad |= bad_pivot(b0(r));
    d1(r) = d0(r) / b0(r);
  });
  team.team_barrier();
  return bad;
}

// Which of the caller's two d buffers holds pcr_team's solution.
KOKKOS_INLINE_FUNCTION bool pcr_result_in_first(int N) {
  int steps = 0;
  for (int s = 1; s < N; s *= 2) ++steps;
  return steps % 2 == 1;
}

template <class ExecSpace, class Real>
std::size_t pcr_scratch(long n) {
  return 8 * ScratchView<ExecSpace, Real>::shmem_size(n);
}

template <class ExecSpace, class Real, class A, class X, class Flag>
void pcr(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b, const A& c,
         const A& d, const X& x, int team_size, int level, const Flag& flag) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using SV = ScratchView<ExecSpace, Real>;
  const int n = int(sh.n);
  Policy policy(space, sh.systems(), team_size);
  policy.set_scratch_size(level, Kokkos::PerTeam(pcr_scratch<ExecSpace, Real>(n)));
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::pcr", policy, KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        const long m = t.league_rank();
        const long f = sh.first(m), st = sh.stride;
        SV a0(t.team_scratch(level), n), b0(t.team_scratch(level), n), c0(t.team_scratch(level), n),
            d0(t.team_scratch(level), n), a1(t.team_scratch(level), n),
            b1(t.team_scratch(level), n), c1(t.team_scratch(level), n),
            d1(t.team_scratch(level), n);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n), [&](int k) {
          const long g = f + k * st;
          a0(k) = k > 0 ? a(g) : Real(0);
          b0(k) = b(g);
          c0(k) = k + 1 < n ? c(g) : Real(0);
          d0(k) = d(g);
        });
        t.team_barrier();
        const bool bad = pcr_team(t, a0, b0, c0, d0, a1, b1, c1, d1, n);
        const SV xs = pcr_result_in_first(n) ? d0 : d1;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n), [&](int k) { x(f + k * st) = xs(k); });
        if (bad) flag_system(flag, m);
      });
}

// Partition method in team scratch.  Rows are stored with one padding slot
// every 16 rows so that threads walking their own chunks hit different
// banks.
KOKKOS_INLINE_FUNCTION int hyb_pad(int i) {
  return i + (i >> 4);
}

inline int hybrid_chunks(long n, int rows_per_chunk) {
  if (n < 2) return 1;
  long p = (n + rows_per_chunk - 1) / rows_per_chunk;
  if (p > n / 2) p = n / 2;
  return int(p < 1 ? 1 : p);
}

// Chunk k of P over rows [0, n): [start, end], at least 2 rows when P <= n/2.
KOKKOS_INLINE_FUNCTION int chunk_start(int k, int n, int P) {
  return int((long(k) * n) / P);
}

struct PadMap {
  KOKKOS_INLINE_FUNCTION int operator()(int i) const { return hyb_pad(i); }
};
template <class ExecSpace, class Real>
std::size_t hybrid_scratch(long n, int chunks) {
  using SV = ScratchView<ExecSpace, Real>;
  return 4 * SV::shmem_size(hyb_pad(int(n)) + 1) + 8 * SV::shmem_size(2 * chunks);
}

// The rows of one system (n of them) are in padded scratch (sa, sb, sc, sd)
// with a_0 = c_{n-1} = 0: solve it by the partition method with P chunks and
// leave x in sd.  Returns (per thread) whether a pivot was bad.
template <class Team, class S>
KOKKOS_INLINE_FUNCTION bool hybrid_team(const Team& t, const S& sa, const S& sb, const S& sc,
                                        const S& sd, int n, int P, const S& ra, const S& rb,
                                        const S& rc, const S& rd, const S& qa, const S& qb,
                                        const S& qc, const S& qd) {
  using Real = typename S::value_type;
  bool bad = false;
  if (n == 1) {
    Kokkos::single(Kokkos::PerTeam(t), [&]() {
      bad |= bad_pivot(sb(0));
      sd(0) = sd(0) / sb(0);
    });
    t.team_barrier();
    return bad;
  }
  // 1. Every chunk to its boundary form; its two boundary rows go to the
  //    reduced system (unit diagonal).
  Kokkos::parallel_for(Kokkos::TeamThreadRange(t, P), [&](int k) {
    const int s = chunk_start(k, n, P), e = chunk_start(k + 1, n, P) - 1;
    bad |= reduce_chunk(sa, sb, sc, sd, s, e, PadMap{});
    const int ps = hyb_pad(s), pe = hyb_pad(e);
    ra(2 * k) = sa(ps);
    rb(2 * k) = Real(1);
    rc(2 * k) = sc(ps);
    rd(2 * k) = sd(ps);
    ra(2 * k + 1) = sa(pe);
    rb(2 * k + 1) = Real(1);
    rc(2 * k + 1) = sc(pe);
    rd(2 * k + 1) = sd(pe);
  });
  t.team_barrier();
  // 2. The reduced system of 2P rows by PCR.
  const int N = 2 * P;
  bad |= pcr_team(t, ra, rb, rc, rd, qa, qb, qc, qd, N);
  const S xr = pcr_result_in_first(N) ? rd : qd;
  // 3. Chunk interiors.
  Kokkos::parallel_for(Kokkos::TeamThreadRange(t, P), [&](int k) {
    const int s = chunk_start(k, n, P), e = chunk_start(k + 1, n, P) - 1;
    chunk_solution(sa, sc, sd, s, e, xr(2 * k), xr(2 * k + 1), PadMap{});
  });
  t.team_barrier();
  return bad;
}

template <class ExecSpace, class Real, class A, class X, class Flag>
void hybrid(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b, const A& c,
            const A& d, const X& x, int team_size, int chunks, int level, const Flag& flag) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using SV = ScratchView<ExecSpace, Real>;
  const int n = int(sh.n), P = chunks, N = 2 * chunks, np = hyb_pad(n) + 1;
  Policy policy(space, sh.systems(), team_size);
  policy.set_scratch_size(level, Kokkos::PerTeam(hybrid_scratch<ExecSpace, Real>(n, P)));
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::hybrid", policy,
      KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        const long m = t.league_rank();
        const long f = sh.first(m), st = sh.stride;
        const auto sp = t.team_scratch(level);
        SV sa(sp, np), sb(sp, np), sc(sp, np), sd(sp, np);
        SV ra(sp, N), rb(sp, N), rc(sp, N), rd(sp, N), qa(sp, N), qb(sp, N), qc(sp, N), qd(sp, N);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n), [&](int k) {
          const long g = f + k * st;
          const int p = hyb_pad(k);
          sa(p) = k > 0 ? a(g) : Real(0);
          sb(p) = b(g);
          sc(p) = k + 1 < n ? c(g) : Real(0);
          sd(p) = d(g);
        });
        t.team_barrier();
        const bool bad = hybrid_team(t, sa, sb, sc, sd, n, P, ra, rb, rc, rd, qa, qb, qc, qd);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, n),
                             [&](int k) { x(f + k * st) = sd(hyb_pad(k)); });
        if (bad) flag_system(flag, m);
      });
}

// ---- partitioned: systems too long for team scratch -------------------------
//
// Each system is cut into C segments of ~L rows (segment q: rows
// [q n / C, (q + 1) n / C)), one team per segment, in two passes:
//   reduce  the team loads its segment (with its couplings a_first, c_last to
//           the neighbouring segments), reduces its P chunks as in hybrid to
//           2P rows, and one thread reduces those 2P rows the same way to two
//           equations linking x_first, x_last and the neighbours' x_last,
//           x_first.  They form a tridiagonal system of 2C rows per system
//           (unit diagonal), solved recursively by Tridiag::solve.
//   solve   the team loads its segment again, moves the known neighbour values
//           x_{first-1} a_first and c_last x_{last+1} to the right-hand side
//           and solves the now independent segment exactly as hybrid does.
// Global traffic: 4 reads, 4 reads and 1 write per unknown (9 against 5 for
// an ideal single pass), all coalesced; 4 launches + the reduced solve.

template <class ExecSpace, class Real>
std::size_t partition_scratch(long L, int chunks) {
  return hybrid_scratch<ExecSpace, Real>(L, chunks);
}

template <class ExecSpace, class Real, class A, class R, class Flag>
void partition_reduce(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b,
                      const A& c, const A& d, int segments, int max_len, int team_size, int chunks,
                      const R& rra, const R& rrb, const R& rrc, const R& rrd, const Flag& flag) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using SV = ScratchView<ExecSpace, Real>;
  const long n = sh.n;
  const int C = segments, np = hyb_pad(max_len) + 1, N = 2 * chunks;
  Policy policy(space, sh.systems() * C, team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(partition_scratch<ExecSpace, Real>(max_len, chunks)));
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::partition_reduce", policy,
      KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        const long m = t.league_rank() / C;
        const int q = int(t.league_rank() % C);
        const long s0 = (long(q) * n) / C, len = ((long(q) + 1) * n) / C - s0;
        const int L = int(len);
        const int P = Kokkos::min(chunks, Kokkos::max(1, L / 2));
        const long f = sh.first(m) + s0 * sh.stride, st = sh.stride;
        const auto sp = t.team_scratch(0);
        SV sa(sp, np), sb(sp, np), sc(sp, np), sd(sp, np);
        SV ra(sp, N), rb(sp, N), rc(sp, N), rd(sp, N);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, L), [&](int k) {
          const long g = f + k * st;
          const int p = hyb_pad(k);
          sa(p) = s0 + k > 0 ? a(g) : Real(0);
          sb(p) = b(g);
          sc(p) = s0 + k + 1 < n ? c(g) : Real(0);
          sd(p) = d(g);
        });
        t.team_barrier();
        bool bad = false;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, P), [&](int k) {
          const int s = chunk_start(k, L, P), e = chunk_start(k + 1, L, P) - 1;
          bad |= reduce_chunk(sa, sb, sc, sd, s, e, PadMap{});
          const int ps = hyb_pad(s), pe = hyb_pad(e);
          ra(2 * k) = sa(ps);
          rb(2 * k) = Real(1);
          rc(2 * k) = sc(ps);
          rd(2 * k) = sd(ps);
          ra(2 * k + 1) = sa(pe);
          rb(2 * k + 1) = Real(1);
          rc(2 * k + 1) = sc(pe);
          rd(2 * k + 1) = sd(pe);
        });
        t.team_barrier();
        Kokkos::single(Kokkos::PerTeam(t), [&]() {
          bad |= reduce_chunk(ra, rb, rc, rd, 0, 2 * P - 1, IdMap{});
          const long o = m * 2 * C + 2 * q;
          rra(o) = ra(0);
          rrb(o) = Real(1);
          rrc(o) = rc(0);
          rrd(o) = rd(0);
          rra(o + 1) = ra(2 * P - 1);
          rrb(o + 1) = Real(1);
          rrc(o + 1) = rc(2 * P - 1);
          rrd(o + 1) = rd(2 * P - 1);
        });
        if (bad) flag_system(flag, m);
      });
}

template <class ExecSpace, class Real, class A, class X, class R, class Flag>
void partition_solve(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b,
                     const A& c, const A& d, const X& x, int segments, int max_len, int team_size,
                     int chunks, const R& xr, const Flag& flag) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using SV = ScratchView<ExecSpace, Real>;
  const long n = sh.n;
  const int C = segments, np = hyb_pad(max_len) + 1, N = 2 * chunks;
  Policy policy(space, sh.systems() * C, team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(partition_scratch<ExecSpace, Real>(max_len, chunks)));
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::partition_solve", policy,
      KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        const long m = t.league_rank() / C;
        const int q = int(t.league_rank() % C);
        const long s0 = (long(q) * n) / C, len = ((long(q) + 1) * n) / C - s0;
        const int L = int(len);
        const int P = Kokkos::min(chunks, Kokkos::max(1, L / 2));
        const long f = sh.first(m) + s0 * sh.stride, st = sh.stride;
        const auto sp = t.team_scratch(0);
        SV sa(sp, np), sb(sp, np), sc(sp, np), sd(sp, np);
        SV ra(sp, N), rb(sp, N), rc(sp, N), rd(sp, N), qa(sp, N), qb(sp, N), qc(sp, N), qd(sp, N);
        // x of the neighbouring segments' boundary rows
        const Real xprev = q > 0 ? Real(xr(m * 2 * C + 2 * q - 1)) : Real(0);
        const Real xnext = q + 1 < C ? Real(xr(m * 2 * C + 2 * q + 2)) : Real(0);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, L), [&](int k) {
          const long g = f + k * st;
          const int p = hyb_pad(k);
          Real dk = d(g);
          if (k == 0 && s0 > 0) dk -= a(g) * xprev;
          if (k == L - 1 && s0 + L < n) dk -= c(g) * xnext;
          sa(p) = k > 0 ? a(g) : Real(0);
          sb(p) = b(g);
          sc(p) = k + 1 < L ? c(g) : Real(0);
          sd(p) = dk;
        });
        t.team_barrier();
        const bool bad = hybrid_team(t, sa, sb, sc, sd, L, P, ra, rb, rc, rd, qa, qb, qc, qd);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, L),
                             [&](int k) { x(f + k * st) = sd(hyb_pad(k)); });
        if (bad) flag_system(flag, m);
      });
}

}  // namespace kflow::linsys::tridiag_detail
