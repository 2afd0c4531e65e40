#pragma once
// Batched tridiagonal solvers (seed 003, issue #4), for many independent
// systems at once, such as one per grid line in x, y or z of an ADI or
// splitting step (seed 004), or one very large system.
//
// System m (0 <= m < systems) has n unknowns x_0 .. x_{n-1}:
//
//   a_k x_{k-1} + b_k x_k + c_k x_{k+1} = d_k,   k = 0 .. n-1,
//
// with a_0 and c_{n-1} ignored (treated as 0, whatever is stored there).
//
// Layout (TridiagShape): unknown k of system m lives at the 1-D index
//
//   offset + k * stride + m0 * system_stride[0] + m1 * system_stride[1],
//   m = m0 + count[0] * m1,
//
// in all five arrays a, b, c, d (right-hand side) and x (solution), which are
// 1-D Views over the same index space (for a grid field: an unmanaged 1-D View
// of its data, see `line_shape`).  Two system-index strides let the lines of a
// LayoutLeft 3D field with ghost layers be solved in place in any direction:
// lines in x are "contiguous" (stride 1), lines in y and z "interleaved"
// (unknown k of neighbouring systems consecutive).  x may be the same View as
// d (the solution overwrites the right-hand side); a, b, c are never written.
//
// No pivoting.  The methods are stable for diagonally dominant matrices
// (|b_k| >= |a_k| + |c_k|, strictly in at least one row of each irreducible
// block) and for symmetric positive definite ones; this is what the ADI and
// implicit-diffusion systems of seeds 003/004 are.  The caller must supply
// such matrices.  A zero (or NaN) pivot met during the elimination is
// detected on the device (one flag per solve, reduced with atomic_min over
// the systems) and reported as a ZeroPivot exception naming the first system
// that hit it; no garbage is returned silently.  The check costs one
// device->host copy of one integer per solve and can be switched off
// (Tridiag::check_pivots(false)) inside time loops that must not synchronise.
//
// Methods (each callable by name; `automatic` chooses):
//   thomas  one thread per system, the Thomas algorithm (Gaussian elimination
//           without pivoting); on CPUs a thread takes 8 neighbouring systems
//           and runs them side by side (thomas_blocked: 8 independent
//           division chains, whole cache lines in the interleaved layout).  The modified upper
//           diagonal c' lives in a workspace laid out "interleaved" on GPUs (coalesced for any data
//           layout) and per system on CPUs (cache-friendly).  O(n) work.
//   cr      cyclic reduction on global memory, one kernel per level and one
//           thread per equation (the paper's section 4.2, as read in digest
//           003 open question 9), for any n (not only powers of two: rows
//           past n simply do not exist, see cr_* below), batched over all
//           systems in the same kernels.  2 log2(n) + 1 launches.
//   pcr     parallel cyclic reduction, one team per system with the whole
//           system in team scratch (double-buffered), ceil(log2 n) steps.
//           O(n log n) work; needs 8 n values of scratch.
//   hybrid  one team per system in team scratch, a partition method: the
//           system is cut into P chunks of ~rows_per_chunk rows; each chunk is
//           reduced by a "modified Thomas" pass (forward then backward
//           elimination inside the chunk) to two equations linking only the
//           chunk's first and last unknowns; those 2P equations form a
//           tridiagonal system again (unit diagonal), solved by PCR in
//           scratch; then every chunk's interior follows directly.  O(n)
//           work, data read from and written to global memory once,
//           coalesced in the contiguous layout.  (Laszlo, Giles & Appleyard,
//           ACM TOMS 42(4), 2016, "Manycore algorithms for batch scalar and
//           block tridiagonal solvers", use the same chunk reduction with
//           registers; here it lives in team scratch.)
//   partitioned  for systems too long for team scratch (the single large
//           system of the paper's Table 3): segments of up to ~4096 rows, one
//           team each, reduced to two equations per segment in scratch; the
//           reduced system (2 per segment) is solved recursively; then every
//           segment is solved in scratch with its end values known (see
//           partition_reduce / partition_solve).  O(n) work, 9 global
//           accesses per unknown, all coalesced.
//   register  the partition method with the partitions in registers
//           (Laszlo, Giles & Appleyard 2016; Klein & Strzodka 2021,
//           "tridigpu"): one thread owns M = 8 or 16 consecutive rows
//           (compile-time, unrolled), reduces them to two equations in
//           registers, the reduced system (one row per partition after one
//           CR step) is solved by PCR in team scratch, and every thread
//           writes its x from its registers: a, b, c, d read once and x
//           written once.  A team holds several systems x all partitions of
//           each; consecutive threads take consecutive systems (coalesced in
//           the interleaved layout); with stride 1 the loads and stores go
//           through team scratch (coalesced in the contiguous layout).
//           Systems longer than a team (the single large system) write two
//           equations per partition to a reduced system, solve it
//           recursively by the same method and re-read their rows once.
//           See register_pass; on GPUs, batches whose systems fit a team
//           and need no staging run register_stream (the same method, cut
//           down to 128 registers, streaming groups of systems through each
//           team).  Supersedes thomas, hybrid and partitioned on GPUs (auto
//           picks it there); they stay for comparison.
//   automatic  CPU backends: thomas.  GPUs: register.
//
// Open question 8 of digest 003 (CR indexing, termination, non-power-of-two
// n): decided as in cr_forward below: 0-based rows; level l (1..q,
// q = floor(log2 n)) updates rows i with (i + 1) % 2^l == 0, so the paper's
// "odd-indexed equations" are the odd ones counted from 1; it runs until one
// equation (row 2^q - 1) is left, as the paper says (Zhang et al. stop at two),
// and needs no padding: a neighbour row i + s >= n does not exist and
// contributes nothing.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace kflow::linalg {

// `register_` is the method named "register" (the enumerator cannot be a
// C++ keyword).
enum class TridiagMethod { automatic, thomas, cr, pcr, hybrid, partitioned, register_ };

inline const char* name(TridiagMethod m) {
  switch (m) {
    case TridiagMethod::thomas:
      return "thomas";
    case TridiagMethod::cr:
      return "cr";
    case TridiagMethod::pcr:
      return "pcr";
    case TridiagMethod::hybrid:
      return "hybrid";
    case TridiagMethod::partitioned:
      return "partitioned";
    case TridiagMethod::register_:
      return "register";
    default:
      return "auto";
  }
}

inline TridiagMethod tridiag_method(const std::string& s) {
  if (s == "thomas") return TridiagMethod::thomas;
  if (s == "cr") return TridiagMethod::cr;
  if (s == "pcr") return TridiagMethod::pcr;
  if (s == "hybrid") return TridiagMethod::hybrid;
  if (s == "partitioned") return TridiagMethod::partitioned;
  if (s == "register") return TridiagMethod::register_;
  if (s == "auto") return TridiagMethod::automatic;
  throw std::invalid_argument(
      "tridiagonal method \"" + s +
      "\" is not one of thomas, cr, pcr, hybrid, partitioned, register, auto");
}

struct TridiagShape {
  long n = 1;       // unknowns per system
  long stride = 1;  // index distance between unknowns k and k + 1 of a system
  long count[2] = {1, 1};
  long system_stride[2] = {0, 0};
  long offset = 0;

  long systems() const { return count[0] * count[1]; }
  KOKKOS_INLINE_FUNCTION long first(long m) const {
    return offset + (m % count[0]) * system_stride[0] + (m / count[0]) * system_stride[1];
  }
  // Largest index used + 1 (the arrays must be at least this long).
  long span() const {
    if (n < 1 || systems() < 1) return 0;
    return offset + (n - 1) * stride + (count[0] - 1) * system_stride[0] +
           (count[1] - 1) * system_stride[1] + 1;
  }
  // "interleaved": unknown k of consecutive systems is adjacent in memory.
  bool interleaved() const { return n > 1 && stride > 1 && system_stride[0] == 1; }
};

// `systems` systems of n unknowns each, one after the other.
inline TridiagShape contiguous_shape(long n, long systems) {
  TridiagShape s;
  s.n = n;
  s.stride = 1;
  s.count[0] = systems;
  s.system_stride[0] = n;
  return s;
}

// Unknown k of system m at k * systems + m.
inline TridiagShape interleaved_shape(long n, long systems) {
  TridiagShape s;
  s.n = n;
  s.stride = systems;
  s.count[0] = systems;
  s.system_stride[0] = 1;
  return s;
}

// The interior grid lines in direction `dir` (0, 1, 2) of a LayoutLeft field
// with extents e[0..2] (ghost layers included; e[2] = 1 for 2D) and `ghost`
// ghost layers on each side of the active directions (`dim` of them): one
// system per line, unknown k at interior cell k + ghost along dir.  Use with
// a 1-D unmanaged View of the field's data (span e0 e1 e2).
inline TridiagShape line_shape(const long e[3], int dim, int ghost, int dir) {
  if (dir < 0 || dir >= dim) throw std::invalid_argument("line_shape: direction out of range");
  const long st[3] = {1, e[0], e[0] * e[1]};
  long g[3] = {0, 0, 0};
  for (int d = 0; d < dim; ++d) g[d] = ghost;
  TridiagShape s;
  s.n = e[dir] - 2 * ghost;
  s.stride = st[dir];
  s.offset = g[0] * st[0] + g[1] * st[1] + g[2] * st[2];
  int slot = 0;
  for (int d = 0; d < 3; ++d) {
    if (d == dir) continue;
    s.count[slot] = d < dim ? e[d] - 2 * ghost : 1;
    s.system_stride[slot] = st[d];
    ++slot;
  }
  return s;
}

class ZeroPivot : public std::runtime_error {
 public:
  ZeroPivot(const std::string& method, long system, long n)
      : std::runtime_error("tridiagonal solve (" + method + "): zero or NaN pivot in system " +
                           std::to_string(system) + " (n = " + std::to_string(n) +
                           "); the solvers do not pivot and need a diagonally dominant (or "
                           "symmetric positive definite) matrix"),
        system_(system) {}
  long system() const { return system_; }

 private:
  long system_;
};

namespace kernels {

template <class Real>
struct Row {
  Real a, b, c, d;
};

// A pivot is bad when it is zero or NaN.
template <class Real>
KOKKOS_INLINE_FUNCTION bool bad_pivot(Real p) {
  return !(Kokkos::fabs(p) > Real(0));
}

template <class Flag>
KOKKOS_INLINE_FUNCTION void flag_system(const Flag& flag, long m) {
  Kokkos::atomic_min(&flag(), m);
}

// The step of CR and PCR: row r combined with the row lo it couples to
// through r.a and the row hi it couples to through r.c (each when present),
// so that the result no longer contains their diagonal unknowns; it couples
// to lo's and hi's outer neighbours instead.  Sets `bad` on a bad pivot.
template <class Real>
KOKKOS_INLINE_FUNCTION Row<Real> eliminate(const Row<Real>& r, const Row<Real>& lo, bool has_lo,
                                           const Row<Real>& hi, bool has_hi, bool& bad) {
  Row<Real> o{Real(0), r.b, Real(0), r.d};
  if (has_lo) {
    bad |= bad_pivot(lo.b);
    const Real k1 = r.a / lo.b;
    o.a = -lo.a * k1;
    o.b -= lo.c * k1;
    o.d -= lo.d * k1;
  }
  if (has_hi) {
    bad |= bad_pivot(hi.b);
    const Real k2 = r.c / hi.b;
    o.c = -hi.c * k2;
    o.b -= hi.a * k2;
    o.d -= hi.d * k2;
  }
  return o;
}

// ---- Thomas: one thread per system ----------------------------------------

template <class ExecSpace, class Real, class A, class X, class W, class Flag>
void thomas(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b, const A& c,
            const A& d, const X& x, const W& ws, bool interleaved_ws, const Flag& flag) {
  const long n = sh.n, ns = sh.systems(), st = sh.stride;
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas", Kokkos::RangePolicy<ExecSpace>(space, 0, ns),
      KOKKOS_LAMBDA(long m) {
        const long f = sh.first(m);
        // workspace index of row k
        const long w0 = interleaved_ws ? m : m * n, ws_st = interleaved_ws ? ns : 1;
        bool bad = false;
        Real p = b(f);
        bad |= bad_pivot(p);
        Real cp = n > 1 ? c(f) / p : Real(0);
        Real dp = d(f) / p;
        ws(w0) = cp;
        x(f) = dp;
        for (long k = 1; k < n; ++k) {
          const long i = f + k * st;
          const Real ak = a(i);
          p = b(i) - ak * cp;
          bad |= bad_pivot(p);
          const Real r = Real(1) / p;
          cp = k + 1 < n ? c(i) * r : Real(0);
          dp = (d(i) - ak * dp) * r;
          ws(w0 + k * ws_st) = cp;
          x(i) = dp;
        }
        for (long k = n - 2; k >= 0; --k) {
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
template <class ExecSpace, class Real, class A, class X, class W, class Flag>
void thomas_blocked(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b,
                    const A& c, const A& d, const X& x, const W& ws, const Flag& flag) {
  constexpr int B = 8;
  const long n = sh.n, st = sh.stride, c0 = sh.count[0];
  const long blocks0 = (c0 + B - 1) / B;
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::thomas_blocked",
      Kokkos::RangePolicy<ExecSpace>(space, 0, blocks0 * sh.count[1]), KOKKOS_LAMBDA(long item) {
        const long m1 = item / blocks0, m0 = (item % blocks0) * B;
        const int w = int(c0 - m0 < B ? c0 - m0 : B);
        long f[B];
        for (int l = 0; l < B; ++l)
          f[l] = sh.offset + (m0 + l) * sh.system_stride[0] + m1 * sh.system_stride[1];
        const long w0 = item * B * n;
        Real cp[B], dp[B];
        bool bad = false;
        for (int l = 0; l < w; ++l) {
          const Real p = b(f[l]);
          bad |= bad_pivot(p);
          cp[l] = n > 1 ? c(f[l]) / p : Real(0);
          dp[l] = d(f[l]) / p;
          ws(w0 + l) = cp[l];
          x(f[l]) = dp[l];
        }
        for (long k = 1; k < n; ++k) {
          const bool last = k + 1 == n;
          for (int l = 0; l < w; ++l) {
            const long i = f[l] + k * st;
            const Real ak = a(i), p = b(i) - ak * cp[l];
            bad |= bad_pivot(p);
            const Real r = Real(1) / p;
            cp[l] = last ? Real(0) : c(i) * r;
            dp[l] = (d(i) - ak * dp[l]) * r;
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
            bool bl = bad_pivot(b(f[l]));
            Real q = n > 1 ? c(f[l]) / b(f[l]) : Real(0);
            for (long k = 1; k < n && !bl; ++k) {
              const long i = f[l] + k * st;
              const Real p = b(i) - a(i) * q;
              bl = bad_pivot(p);
              q = k + 1 < n ? c(i) / p : Real(0);
            }
            if (bl) {
              flag_system(flag, m0 + l + c0 * m1);
              break;
            }
          }
      });
}

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
      "kflow::linalg::tridiag::cr_forward",
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
      "kflow::linalg::tridiag::cr_backward",
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
using ScratchView = Kokkos::View<Real*, typename ExecSpace::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

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
      "kflow::linalg::tridiag::pcr", policy, KOKKOS_LAMBDA(const typename Policy::member_type& t) {
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

// The row steps of reduce_chunk, on values (the register kernels run them on
// rows as they arrive).  (qa, qc, qd): the neighbour row already reduced.
// Rows s and s + 1: divided by their diagonal b.
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_normalise(Real b, Real& a, Real& c, Real& d, bool& bad) {
  bad |= bad_pivot(b);
  const Real r = Real(1) / b;
  a *= r;
  c *= r;
  d *= r;
}
// Rows s + 2 .. e: x_{i-1} eliminated with row i - 1 (a becomes the
// coefficient of x_s).
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_forward(Real qa, Real qc, Real qd, Real b, Real& a, Real& c,
                                          Real& d, bool& bad) {
  const Real ai = a, piv = b - ai * qc;
  bad |= bad_pivot(piv);
  const Real r = Real(1) / piv;
  a = -ai * qa * r;
  c *= r;
  d = (d - ai * qd) * r;
}
// Rows e - 2 .. s + 1: x_{i+1} eliminated with row i + 1 (c becomes the
// coefficient of x_e).
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_backward(Real qa, Real qc, Real qd, Real& a, Real& c, Real& d) {
  const Real ci = c;
  d -= ci * qd;
  a -= ci * qa;
  c = -ci * qc;
}
// Row s: x_{s+1} eliminated with row s + 1.
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_first(Real qa, Real qc, Real qd, Real& a, Real& c, Real& d,
                                        bool& bad) {
  const Real cs = c, piv = Real(1) - cs * qa;
  bad |= bad_pivot(piv);
  const Real r = Real(1) / piv;
  a *= r;
  c = -cs * qc * r;
  d = (d - cs * qd) * r;
}

// Reduces the rows s..e (e > s) of (sa, sb, sc, sd) -- slot of row i: map(i) --
// to the form
//   aa_s x_{s-1} + x_s + cc_s x_e     = dd_s
//   aa_i x_s     + x_i + cc_i x_e     = dd_i   (s < i < e)
//   aa_e x_s     + x_e + cc_e x_{e+1} = dd_e
// in place (aa in sa, cc in sc, dd in sd; sb is left as it was): a forward
// elimination of x_{i-1} with normalised rows, then a backward one of x_{i+1}
// (the "modified Thomas" step of the partition method).  Returns whether a
// pivot was bad.
template <class S, class Map>
KOKKOS_INLINE_FUNCTION bool reduce_chunk(const S& sa, const S& sb, const S& sc, const S& sd, int s,
                                         int e, Map map) {
  bool bad = false;
  for (int i = s; i <= s + 1; ++i) {
    const int p = map(i);
    chunk_normalise(sb(p), sa(p), sc(p), sd(p), bad);
  }
  for (int i = s + 2; i <= e; ++i) {
    const int p = map(i), q = map(i - 1);
    chunk_forward(sa(q), sc(q), sd(q), sb(p), sa(p), sc(p), sd(p), bad);
  }
  for (int i = e - 2; i > s; --i) {
    const int p = map(i), q = map(i + 1);
    chunk_backward(sa(q), sc(q), sd(q), sa(p), sc(p), sd(p));
  }
  if (e > s + 1) {
    const int ps = map(s), q = map(s + 1);
    chunk_first(sa(q), sc(q), sd(q), sa(ps), sc(ps), sd(ps), bad);
  }
  return bad;
}

// Rows s..e in reduce_chunk's form, with x_s and x_e known: every x_i into sd.
template <class S, class Map>
KOKKOS_INLINE_FUNCTION void chunk_solution(const S& sa, const S& sc, const S& sd, int s, int e,
                                           typename S::value_type xs, typename S::value_type xe,
                                           Map map) {
  for (int i = s + 1; i < e; ++i) {
    const int p = map(i);
    sd(p) = sd(p) - sa(p) * xs - sc(p) * xe;
  }
  sd(map(s)) = xs;
  sd(map(e)) = xe;
}

struct PadMap {
  KOKKOS_INLINE_FUNCTION int operator()(int i) const { return hyb_pad(i); }
};
struct IdMap {
  KOKKOS_INLINE_FUNCTION int operator()(int i) const { return i; }
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
      "kflow::linalg::tridiag::hybrid", policy,
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
      "kflow::linalg::tridiag::partition_reduce", policy,
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
      "kflow::linalg::tridiag::partition_solve", policy,
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

// ---- register: a partition of M rows per thread, kept in registers ----------
//
// One (virtual) thread owns a partition of M consecutive rows of one system
// (M a compile-time constant: fixed-size local arrays, fully unrolled, so
// that they live in registers on GPUs).  Rows past n are identity rows
// (a = c = d = 0, b = 1; x = 0 there, never written), so every partition has
// exactly M rows and any n >= 1 works.  A team holds S systems (or segments
// of systems) x Pt partitions; virtual thread vt is partition p = vt / S of
// system slot s = vt % S, so consecutive threads load row k of consecutive
// systems: coalesced in the interleaved layout.  In the contiguous layout
// (stride 1) the loads and stores go through team scratch instead
// ("staged": every thread issues its 4 M loads of consecutive team rows at
// once, then they pass through the buffer one array at a time), so that
// consecutive threads touch consecutive rows.
//   pass 1  load the partition and reduce it in registers (reduce_chunk): its
//           first row F couples x_first to the previous partition's x_last
//           and to x_last, its last row L couples x_last to x_first and to the
//           next partition's x_first, every interior row is
//           x_i = d'_i - a'_i x_first - c'_i x_last.
// Then, by mode:
//   solve   (the whole system in one team, Pt >= P): every L is combined
//           with its own F and the next partition's F (one CR step), which
//           leaves one row per partition in the x_last unknowns only; PCR on
//           those rows in team scratch (each thread keeps its row in
//           registers); x_first from F; pass 3: the interior from the
//           registers; x written once.  Global traffic: a, b, c, d read and x
//           written once (5 accesses per unknown).
//   reduce  (systems longer than a team): F and L of every partition go to a
//           reduced system of 2 P rows per system (unit diagonal, contiguous),
//           solved recursively by the same method (Kokkos has no grid-wide
//           barrier, so the rows cannot stay on chip across it);
//   finish  pass 1 again (the same arithmetic, so the same a', c', d'), x_first
//           and x_last from the reduced solution, pass 3.  Global accesses
//           per unknown: 9 + 10/M on this level, about 9 + 30/M over all
//           levels (M = 16: ~11), all coalesced.
// On CPUs a team is one thread that runs the V = S Pt virtual threads one
// after the other and keeps their rows in team scratch between the phases
// (`keep`); the arithmetic is the same.

// A local array seen through the View-like interface of reduce_chunk.
template <class Real>
struct LocalRows {
  using value_type = Real;
  Real* p;
  KOKKOS_INLINE_FUNCTION Real& operator()(int i) const { return p[i]; }
};

// What a virtual thread keeps between the phases: its partition's rows and
// its row of the reduced system.
template <class Real, int M>
struct RegRows {
  Real a[M], b[M], c[M], d[M];
  Row<Real> r;
};

enum RegMode : int { reg_solve, reg_reduce, reg_finish };

// Scratch values (Real) of a register team of V threads: staging buffer or
// the F rows (3 V) and reduced rows (4 V), then x_last (V).
template <int M>
long register_scratch_values(int V, bool stage) {
  return (stage ? long(V) * (M + 1) : 7L * V) + V;
}

template <class ExecSpace, class Real, int M>
std::size_t register_scratch(int S, int V, bool stage, bool keep) {
  using KV = Kokkos::View<RegRows<Real, M>*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return ScratchView<ExecSpace, Real>::shmem_size(register_scratch_values<M>(V, stage)) +
         2 * ScratchView<ExecSpace, long>::shmem_size(S) + (keep ? KV::shmem_size(V) : 0);
}

// Where a virtual thread's partition lies: system m, partition gp of it,
// global index f of the system's row 0; `on`: the partition holds rows of a
// system (else it is all identity rows).
struct RegPart {
  bool on;
  long m, gp, f;
};

// One launch of the register method in `mode` with S systems (or segments)
// x Pt partitions per team.  reduce writes the reduced rows to (ra, rb, rc,
// rd); finish reads the reduced solution from xr.  With launch = false it
// only returns the largest team size the kernel can run with (GPUs:
// registers), else the team size used.
template <class ExecSpace, class Real, int M, class A, class X, class Flag>
int register_pass(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b,
                  const A& c, const A& d, const X& x, int mode, int S, int Pt, bool stage,
                  bool launch, const X& ra, const X& rb, const X& rc, const X& rd, const X& xr,
                  const Flag& flag) {
  // GPUs: at most 128 registers per thread for M = 8 (two teams of 256 per
  // SM; double needs ~130 unbounded), no bound for M = 16 (~210 in double).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<M == 8 ? 512 : 256, 1>>;
  using Member = typename Policy::member_type;
  using SV = ScratchView<ExecSpace, Real>;
  using St = RegRows<Real, M>;
  using KV = Kokkos::View<St*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr bool gpu = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
  const long n = sh.n, ns = sh.systems(), P = (n + M - 1) / M;
  const long C = (P + Pt - 1) / Pt, items = ns * C;
  const int V = S * Pt, team = gpu ? V : 1, Lseg = Pt * M;
  const bool keep_state = team < V;
  const long vals = register_scratch_values<M>(V, stage);
  const std::size_t bytes = register_scratch<ExecSpace, Real, M>(S, V, stage, keep_state);
  const int level = bytes <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
  Policy policy(space, (items + S - 1) / S, team);
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  const auto body = KOKKOS_LAMBDA(const Member& t) {
    const auto& sp = t.team_scratch(level);
    const SV buf(sp, vals);
    const ScratchView<ExecSpace, long> srow(sp, S), sfirst(sp, S);
    const KV keep(sp, keep_state ? V : 0);
    Real* const base = buf.data();     // staging buffer, or F rows and reduced rows
    Real* const xl = base + vals - V;  // x_last of every partition
    const int rank = t.team_rank(), ts = t.team_size();
    const long item0 = long(t.league_rank()) * S;
    St st{};
    auto part = [&](int vt) {
      const long item = item0 + vt % S, gp = (item / ns) * Pt + vt / S;
      const bool on = item < items && gp < P;
      return RegPart{on, item % ns, gp, on ? sh.first(item % ns) : 0};
    };
    const RegPart mine = part(rank);  // GPUs: the only virtual thread
    // Runs fn(vt, part) for this thread's virtual threads.
    auto each = [&](auto&& fn) {
      for (int vt = rank; vt < V; vt += ts) {
        if (keep_state) st = keep(vt);
        fn(vt, vt == rank ? mine : part(vt));
        if (keep_state) keep(vt) = st;
      }
    };
    // Staging: virtual thread vt moves the team's rows q = vt + i V (i < M;
    // consecutive threads, consecutive rows) between global memory and the
    // buffer, where row k of system slot s sits at slot(q) and partition vt's
    // rows at vt (M + 1) + j (odd stride: no bank conflicts).
    // Returns the slot of team row q; g: its global index, in: it exists
    // (else an identity row), lo / hi: a / c exist (kg > 0 / kg < n - 1).
    // srow(s), sfirst(s): first row (in its system; -1: none) and its global
    // index of the team's segment s.
    auto slot = [&](int q, long& g, bool& in, bool& lo, bool& hi) {
      const int s = q / Lseg, k = q - s * Lseg;
      const long kg = srow(s) + k;
      in = srow(s) >= 0 && kg < n;
      lo = in && kg > 0;
      hi = in && kg + 1 < n;
      g = sfirst(s) + k * sh.stride;
      return ((k / M) * S + s) * (M + 1) + k % M;
    };
    auto transpose_in = [&](Real(&v)[M]) {
      each([&](int vt, const RegPart&) {
        for (int i = 0; i < M; ++i) {
          long g;
          bool in, lo, hi;
          base[slot(vt + i * V, g, in, lo, hi)] = v[i];
        }
      });
      t.team_barrier();
      each([&](int vt, const RegPart&) {
        for (int j = 0; j < M; ++j) v[j] = base[vt * (M + 1) + j];
      });
      t.team_barrier();
    };
    // pass 1
    if (stage) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(t, S), [&](int s) {
        const long item = item0 + s;
        srow(s) = item < items ? (item / ns) * Lseg : -1;
        sfirst(s) = item < items ? sh.first(item % ns) + srow(s) * sh.stride : 0;
      });
      t.team_barrier();
      // all loads of a thread at once (in st, as the team's rows q), then
      // through the buffer one array at a time
      each([&](int vt, const RegPart&) {
        for (int i = 0; i < M; ++i) {
          long g;
          bool in, lo, hi;
          slot(vt + i * V, g, in, lo, hi);
          st.a[i] = lo ? a(g) : Real(0);
          st.b[i] = in ? b(g) : Real(1);
          st.c[i] = hi ? c(g) : Real(0);
          st.d[i] = in ? d(g) : Real(0);
        }
      });
      transpose_in(st.a);
      transpose_in(st.b);
      transpose_in(st.c);
      transpose_in(st.d);
    }
    each([&](int vt, const RegPart& w) {
      if (!stage) {
        for (int j = 0; j < M; ++j) {
          const long k = w.gp * M + j, g = w.f + k * sh.stride;
          const bool in = w.on && k < n;
          st.a[j] = in && k > 0 ? a(g) : Real(0);
          st.b[j] = in ? b(g) : Real(1);
          st.c[j] = in && k + 1 < n ? c(g) : Real(0);
          st.d[j] = in ? d(g) : Real(0);
        }
      }
      const LocalRows<Real> la{st.a}, lb{st.b}, lc{st.c}, ld{st.d};
      if (reduce_chunk(la, lb, lc, ld, 0, M - 1, IdMap{}) && w.on) flag_system(flag, w.m);
      if (mode == reg_reduce && w.on) {
        const long o = w.m * 2 * P + 2 * w.gp;
        ra(o) = st.a[0];
        rb(o) = Real(1);
        rc(o) = st.c[0];
        rd(o) = st.d[0];
        ra(o + 1) = st.a[M - 1];
        rb(o + 1) = Real(1);
        rc(o + 1) = st.c[M - 1];
        rd(o + 1) = st.d[M - 1];
      } else if (mode == reg_solve) {
        base[vt] = st.a[0];
        base[V + vt] = st.c[0];
        base[2 * V + vt] = st.d[0];
      }
    });
    if (mode == reg_reduce) return;
    if (mode == reg_solve) {
      Real *const qa = base + 3 * V, *const qb = qa + V, *const qc = qb + V, *const qd = qc + V;
      auto qrow = [&](int i) {
        return Row<Real>{qa[i], qb[i], qc[i], qd[i]};
      };
      auto put = [&](int vt) {
        qa[vt] = st.r.a;
        qb[vt] = st.r.b;
        qc[vt] = st.r.c;
        qd[vt] = st.r.d;
      };
      t.team_barrier();
      // L without x_first and the next x_first: a row in x_last only.
      each([&](int vt, const RegPart& w) {
        const bool has_hi = vt / S + 1 < Pt;
        const Row<Real> F{st.a[0], Real(1), st.c[0], st.d[0]};
        const Row<Real> L{st.a[M - 1], Real(1), st.c[M - 1], st.d[M - 1]};
        const Row<Real> H =
            has_hi ? Row<Real>{base[vt + S], Real(1), base[V + vt + S], base[2 * V + vt + S]}
                   : Row<Real>{};
        bool bad = false;
        st.r = eliminate(L, F, true, H, has_hi, bad);
        if (bad && w.on) flag_system(flag, w.m);
        put(vt);
      });
      t.team_barrier();
      for (int dist = 1; dist < Pt; dist *= 2) {  // PCR over the partitions
        each([&](int vt, const RegPart& w) {
          const int p = vt / S;
          const bool has_lo = p >= dist, has_hi = p + dist < Pt;
          bool bad = false;
          st.r = eliminate(st.r, has_lo ? qrow(vt - dist * S) : Row<Real>{}, has_lo,
                           has_hi ? qrow(vt + dist * S) : Row<Real>{}, has_hi, bad);
          if (bad && w.on) flag_system(flag, w.m);
        });
        t.team_barrier();
        each([&](int vt, const RegPart&) { put(vt); });
        t.team_barrier();
      }
      each([&](int vt, const RegPart& w) {
        if (bad_pivot(st.r.b) && w.on) flag_system(flag, w.m);
        st.r.d /= st.r.b;
        xl[vt] = st.r.d;
      });
      t.team_barrier();
    }
    // pass 3: every x of the partition from x_first and x_last
    each([&](int vt, const RegPart& w) {
      Real xf, xe;
      if (mode == reg_solve) {
        xe = st.r.d;
        xf = st.d[0] - st.a[0] * (vt >= S ? xl[vt - S] : Real(0)) - st.c[0] * xe;
      } else {
        xf = w.on ? xr(w.m * 2 * P + 2 * w.gp) : Real(0);
        xe = w.on ? xr(w.m * 2 * P + 2 * w.gp + 1) : Real(0);
      }
      const LocalRows<Real> la{st.a}, lc{st.c}, ld{st.d};
      chunk_solution(la, lc, ld, 0, M - 1, xf, xe, IdMap{});
      if (stage) {
        for (int j = 0; j < M; ++j) base[vt * (M + 1) + j] = st.d[j];
      } else if (w.on) {
        for (int j = 0; j < M; ++j)
          if (w.gp * M + j < n) x(w.f + (w.gp * M + j) * sh.stride) = st.d[j];
      }
    });
    if (stage) {
      t.team_barrier();
      each([&](int vt, const RegPart&) {
        for (int i = 0; i < M; ++i) {
          long g;
          bool in, lo, hi;
          const int q = slot(vt + i * V, g, in, lo, hi);
          if (in) x(g) = base[q];
        }
      });
    }
  };
  if (!launch) {
    if constexpr (gpu)
      return policy.team_size_max(body, Kokkos::ParallelForTag());
    else
      return V;
  }
  Kokkos::parallel_for(mode == reg_solve    ? "kflow::linalg::tridiag::register_solve"
                       : mode == reg_reduce ? "kflow::linalg::tridiag::register_reduce"
                                            : "kflow::linalg::tridiag::register_finish",
                       policy, body);
  return team;
}

// ---- register, streamed: the GPU kernel for unstaged batches ----------------
//
// The register method's solve on GPUs when every system fits one team and the
// loads need no staging (interleaved or strided lines, and batches of
// contiguous systems): the same partitions, reduction and PCR as
// register_pass, cut down to what a GPU thread needs.
//   - Rows are reduced as they arrive: row j's forward step runs as soon as
//     its a, b, c, d are loaded, so b is never kept and a thread holds 3 M
//     values (a', c', d'), not 4 M.
//   - The PCR runs on unit rows (each row divided by its diagonal, b = 1
//     implicit): 3 values per row in scratch, one division per step.
//   - The kernel is bounded to 128 registers (LaunchBounds<512, 1>): a team
//     of up to 512 threads, one per SM, with no spills (ptxas, CUDA 13,
//     M = 16 double: 128 registers).
//   - A team solves G groups of S systems one after the other and, once a
//     group's loads are in, hints the first M / 2 rows of its partition in
//     the next group into L2 (prefetch.global.L2; nothing on other
//     backends), so that group's first loads hit L2 while this group's PCR
//     runs.  Hinting whole next partitions evicted lines before their use
//     (DRAM reads grew from 4.3 to 5.3 GB); hinting the current group's
//     rows before loading them was slower too.
// Measured on an H200 (CUDA 13.0, double, 512^2 interleaved systems of 512,
// kflow bench tridiag): register_pass's solve 2.74 ms (59 % of copy); this
// kernel without the group loop 2.27 ms (72 %), with G = 8 groups and the
// hints 1.97 ms (83 %).  Team scratch: 7 V values.
template <class Real>
KOKKOS_INLINE_FUNCTION void prefetch_l2(const Real* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

// A row divided by its diagonal.
template <class Real>
KOKKOS_INLINE_FUNCTION Row<Real> unit_row(const Row<Real>& o, bool& bad) {
  bad |= bad_pivot(o.b);
  const Real inv = Real(1) / o.b;
  return Row<Real>{o.a * inv, Real(1), o.c * inv, o.d * inv};
}

// Row r of a PCR step on unit rows, lo and hi its neighbours at the step's
// distance (each when present); the result divided by its diagonal.
template <class Real>
KOKKOS_INLINE_FUNCTION Row<Real> eliminate_unit(const Row<Real>& r, const Row<Real>& lo,
                                                bool has_lo, const Row<Real>& hi, bool has_hi,
                                                bool& bad) {
  Row<Real> o{Real(0), Real(1), Real(0), r.d};
  if (has_lo) {
    o.a = -lo.a * r.a;
    o.b -= lo.c * r.a;
    o.d -= lo.d * r.a;
  }
  if (has_hi) {
    o.c = -hi.c * r.c;
    o.b -= hi.a * r.c;
    o.d -= hi.d * r.c;
  }
  return unit_row(o, bad);
}

// S systems x P = ceil(n / M) partitions per team (V = S P <= 512 threads;
// thread vt: partition vt / S of system slot vt % S), G groups of S systems
// per team.
template <class ExecSpace, class Real, int M, class A, class X, class Flag>
void register_stream(const ExecSpace& space, const TridiagShape& sh, const A& a, const A& b,
                     const A& c, const A& d, const X& x, int S, int G, const Flag& flag) {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<512, 1>>;
  using Member = typename Policy::member_type;
  using SV = ScratchView<ExecSpace, Real>;
  const long n = sh.n, ns = sh.systems(), st = sh.stride, groups = (ns + S - 1) / S;
  const int P = int((n + M - 1) / M), V = S * P;
  Policy policy(space, (groups + G - 1) / G, V);
  policy.set_scratch_size(0, Kokkos::PerTeam(SV::shmem_size(7 * V)));
  Kokkos::parallel_for(
      "kflow::linalg::tridiag::register_stream", policy, KOKKOS_LAMBDA(const Member& t) {
        const SV buf(t.team_scratch(0), 7 * V);
        // F rows (first row of each partition), PCR rows, x_last
        Real *const fa = buf.data(), *const fc = fa + V, *const fd = fc + V;
        Real *const qa = fd + V, *const qc = qa + V, *const qd = qc + V, *const xl = qd + V;
        const int vt = t.team_rank(), p = vt / S;
        const long k0 = long(p) * M;
        for (int gi = 0; gi < G; ++gi) {
          const long grp = long(t.league_rank()) * G + gi;
          if (grp >= groups) break;  // the same for the whole team
          const long m = grp * S + (vt - p * S);
          const long rows = m < ns ? n - k0 : 0;  // rows of the partition that exist
          const long g0 = rows > 0 ? sh.first(m) + k0 * st : 0;
          const Real *const pa = a.data() + g0, *const pb = b.data() + g0,
                            *const pc = c.data() + g0, *const pd = d.data() + g0;
          Real ra[M], rc[M], rd[M];
          bool bad = false;
          // pass 1, forward: rows past n are identity rows (a = c = d = 0, b = 1)
          auto forward = [&](auto full) {
            for (int j = 0; j < M; ++j) {
              const bool in = decltype(full)::value || j < rows;
              Real bj = Real(1);
              ra[j] = rc[j] = rd[j] = Real(0);
              if (in) {
                ra[j] = pa[j * st];
                bj = pb[j * st];
                rc[j] = pc[j * st];
                rd[j] = pd[j * st];
              }
              if (j == 0 && k0 == 0) ra[j] = Real(0);  // a_0 and c_{n-1} are not read
              if (rows == j + 1) rc[j] = Real(0);
              if (j < 2)
                chunk_normalise(bj, ra[j], rc[j], rd[j], bad);
              else
                chunk_forward(ra[j - 1], rc[j - 1], rd[j - 1], bj, ra[j], rc[j], rd[j], bad);
            }
          };
          if (rows >= M)
            forward(std::true_type{});
          else
            forward(std::false_type{});
          // the next group's first rows into L2 (same partition, next system slot)
          if (gi + 1 < G && m + S < ns && n - k0 >= M) {
            const long gn = sh.first(m + S) + k0 * st;
            for (int j = 0; j < M / 2; ++j) {
              prefetch_l2(a.data() + gn + j * st);
              prefetch_l2(b.data() + gn + j * st);
              prefetch_l2(c.data() + gn + j * st);
              prefetch_l2(d.data() + gn + j * st);
            }
          }
          for (int i = M - 3; i > 0; --i)
            chunk_backward(ra[i + 1], rc[i + 1], rd[i + 1], ra[i], rc[i], rd[i]);
          chunk_first(ra[1], rc[1], rd[1], ra[0], rc[0], rd[0], bad);
          fa[vt] = ra[0];
          fc[vt] = rc[0];
          fd[vt] = rd[0];
          t.team_barrier();
          // L without x_first and the next x_first: a row in x_last only
          const bool has_hi = p + 1 < P;
          const Row<Real> F{ra[0], Real(1), rc[0], rd[0]};
          const Row<Real> L{ra[M - 1], Real(1), rc[M - 1], rd[M - 1]};
          const Row<Real> H =
              has_hi ? Row<Real>{fa[vt + S], Real(1), fc[vt + S], fd[vt + S]} : Row<Real>{};
          Row<Real> r = unit_row(eliminate(L, F, true, H, has_hi, bad), bad);
          auto put = [&] {
            qa[vt] = r.a;
            qc[vt] = r.c;
            qd[vt] = r.d;
          };
          auto row = [&](int i) {
            return Row<Real>{qa[i], Real(1), qc[i], qd[i]};
          };
          put();
          t.team_barrier();
          for (int dist = 1; dist < P; dist *= 2) {  // PCR over the partitions
            const bool lo = p >= dist, hi = p + dist < P;
            r = eliminate_unit(r, lo ? row(vt - dist * S) : Row<Real>{}, lo,
                               hi ? row(vt + dist * S) : Row<Real>{}, hi, bad);
            t.team_barrier();
            put();
            t.team_barrier();
          }
          xl[vt] = r.d;
          t.team_barrier();
          // pass 3: x_first from the previous x_last, the interior from both
          const Real xe = r.d;
          const Real xf = fd[vt] - fa[vt] * (p > 0 ? xl[vt - S] : Real(0)) - fc[vt] * xe;
          Real* const px = x.data() + g0;
          auto store = [&](auto full) {
            for (int j = 0; j < M; ++j) {
              const Real v = j == 0 ? xf : j == M - 1 ? xe : rd[j] - ra[j] * xf - rc[j] * xe;
              if (decltype(full)::value || j < rows) px[j * st] = v;
            }
          };
          if (rows >= M)
            store(std::true_type{});
          else if (rows > 0)
            store(std::false_type{});
          if (bad && rows > 0) flag_system(flag, m);
        }
      });
}

}  // namespace kernels

// A reusable batched tridiagonal solver on one execution-space instance: it
// keeps its workspace (grown on demand) and the pivot flag between calls.
template <class ExecSpace, class Real>
class Tridiag {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using ConstArray = Kokkos::View<const Real*, memory_space>;
  using Array = Kokkos::View<Real*, memory_space>;
  static constexpr bool gpu = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

  explicit Tridiag(const ExecSpace& space)
      : space_(space), flag_(Kokkos::view_alloc(space, "kflow::tridiag::flag")) {}

  // Pivot checks (one integer copied to the host per solve); on by default.
  void check_pivots(bool on) { check_ = on; }
  // Rows per chunk of the hybrid method (>= 2; default 8).
  void rows_per_chunk(int r) {
    if (r < 2) throw std::invalid_argument("tridiag: rows_per_chunk must be >= 2");
    rows_per_chunk_ = r;
  }
  // Team size of pcr/hybrid (0: chosen from n and the backend).
  void team_size(int t) { team_size_ = t; }
  // The register method: rows per thread M (8 or 16; 0: chosen, see solve),
  // most threads per team (0: 256, single systems 128, GPUs' streamed kernel
  // 512; GPUs also cap it at what the kernel's registers allow), systems per
  // team (0: as many as fill the team), staging through team scratch (-1: on
  // GPUs for single systems (adjacent unknowns), 0: never, 1: always).
  void register_rows(int m) {
    if (m != 0 && m != 8 && m != 16)
      throw std::invalid_argument("tridiag: register_rows must be 8 or 16 (or 0: chosen)");
    reg_rows_ = m;
  }
  void register_team(int v) {
    if (v < 0) throw std::invalid_argument("tridiag: register_team must be >= 0");
    reg_team_ = v;
  }
  void register_systems(int s) {
    if (s < 0) throw std::invalid_argument("tridiag: register_systems must be >= 0");
    reg_systems_ = s;
  }
  // GPUs: groups of systems each team of the streamed kernel solves in turn
  // (0: chosen from the batch, at most 8).
  void register_groups(int g) {
    if (g < 0) throw std::invalid_argument("tridiag: register_groups must be >= 0");
    reg_groups_ = g;
  }
  void register_stage(int s) {
    if (s < -1 || s > 1) throw std::invalid_argument("tridiag: register_stage must be -1, 0 or 1");
    reg_stage_ = s;
  }

  // The method `automatic` resolves to for this shape on this backend.
  // GPUs: register (H200, 512^2 systems of 512, kflow bench tridiag, its
  // streamed kernel: interleaved double 1.97 ms, 83 % of copy, against
  // cuSPARSE's 2.91; float 1.81 ms, 89 %, against thomas 1.91 and cuSPARSE
  // 1.92; contiguous double 3.04 ms against hybrid 5.94) and for single
  // systems (n = 2^25: 1.65 ms vs partitioned 3.42).
  TridiagMethod choose(const TridiagShape& sh) const {
    (void)sh;
    return gpu ? TridiagMethod::register_ : TridiagMethod::thomas;
  }

  // The team-scratch level a method uses for one system of this shape: 0
  // (on-chip on GPUs) when it fits, else 1 (global memory on GPUs, through
  // the caches), -1 when neither holds it; 0 for the other methods.
  int scratch_level(TridiagMethod m, const TridiagShape& sh) const {
    if (m != TridiagMethod::pcr && m != TridiagMethod::hybrid) return 0;
    if (sh.n > INT_MAX / 4) return -1;
    const std::size_t need = m == TridiagMethod::pcr
                                 ? kernels::pcr_scratch<ExecSpace, Real>(sh.n)
                                 : kernels::hybrid_scratch<ExecSpace, Real>(
                                       sh.n, kernels::hybrid_chunks(sh.n, rows_per_chunk_));
    for (int level = 0; level <= 1; ++level)
      if (need <= std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(level))) return level;
    return -1;
  }
  bool fits(TridiagMethod m, const TridiagShape& sh) const {
    if (m == TridiagMethod::partitioned) return segment_rows() > 0;
    return scratch_level(m, sh) >= 0;
  }

  // Longest segment of the partitioned method (its scratch fits level 0).
  int segment_rows() const {
    for (int L = segment_rows_ > 0 ? segment_rows_ : 4096; L >= 8; L /= 2)
      if (kernels::partition_scratch<ExecSpace, Real>(L,
                                                      kernels::hybrid_chunks(L, rows_per_chunk_)) <=
          std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)))
        return L;
    return 0;
  }
  // Upper bound on the segment length of the partitioned method (0: the
  // longest that fits team scratch level 0).
  void segment_rows(int L) {
    if (L != 0 && L < 8) throw std::invalid_argument("tridiag: segment_rows must be >= 8 (or 0)");
    segment_rows_ = L;
  }

  // How the last register solve was run: per level, rows per thread, systems
  // (or segments) x partitions per team, staging.
  const std::string& register_plan() const { return plan_; }

  // Solves every system of `sh`; x may be the same View as d.  Returns the
  // method used.  Throws ZeroPivot (when checking) or std::invalid_argument.
  TridiagMethod solve(const TridiagShape& sh, const ConstArray& a, const ConstArray& b,
                      const ConstArray& c, const ConstArray& d, const Array& x,
                      TridiagMethod method = TridiagMethod::automatic) {
    validate(sh, a, b, c, d, x);
    if (sh.systems() == 0) return method;
    if (method == TridiagMethod::automatic) method = choose(sh);
    if (!fits(method, sh))
      throw std::invalid_argument(std::string("tridiag: method ") + name(method) +
                                  " needs n = " + std::to_string(sh.n) +
                                  " rows in team scratch, more than this backend offers (use "
                                  "thomas or cr)");
    constexpr long none = LONG_MAX;
    if (check_) Kokkos::deep_copy(space_, flag_, none);
    run(sh, a, b, c, d, x, method, 0);
    if (check_) {
      long first = none;
      space_.fence("kflow::linalg::tridiag::check");
      Kokkos::deep_copy(first, flag_);
      if (first != none) throw ZeroPivot(name(method), first, sh.n);
    }
    return method;
  }

 private:
  void run(const TridiagShape& sh, const ConstArray& a, const ConstArray& b, const ConstArray& c,
           const ConstArray& d, const Array& x, TridiagMethod method, int depth) {
    const long n = sh.n, ns = sh.systems();
    switch (method) {
      case TridiagMethod::thomas: {
        // CPUs: 8 systems per thread once there are enough to keep every
        // thread busy; one system per thread otherwise (and for one system:
        // the plain Thomas loop, the paper's CPU baseline).
        if (!gpu && ns >= 8L * space_.concurrency()) {
          grow(ws_[0], n * 8 * ((sh.count[0] + 7) / 8) * sh.count[1]);
          kernels::thomas_blocked<ExecSpace, Real>(space_, sh, a, b, c, d, x, ws_[0], flag_);
        } else {
          grow(ws_[0], n * ns);
          kernels::thomas<ExecSpace, Real>(space_, sh, a, b, c, d, x, ws_[0], gpu, flag_);
        }
        break;
      }
      case TridiagMethod::cr: {
        const long half = (n / 2) * ns;
        for (auto& w : ws_) grow(w, half);
        int q = 0;
        while ((2L << q) <= n) ++q;
        for (int l = 1; l <= q; ++l)
          kernels::cr_forward<ExecSpace, Real>(space_, sh, a, b, c, d, ws_[0], ws_[1], ws_[2],
                                               ws_[3], l, flag_);
        for (int l = 0; l <= q; ++l)  // 0: the last row; then levels q .. 1
          kernels::cr_backward<ExecSpace, Real>(space_, sh, a, b, c, d, x, ws_[0], ws_[1], ws_[2],
                                                ws_[3], l == 0 ? 0 : q + 1 - l, flag_);
        break;
      }
      case TridiagMethod::pcr:
        kernels::pcr<ExecSpace, Real>(space_, sh, a, b, c, d, x, pick_team(n),
                                      scratch_level(method, sh), flag_);
        break;
      case TridiagMethod::hybrid: {
        const int chunks = kernels::hybrid_chunks(n, rows_per_chunk_);
        kernels::hybrid<ExecSpace, Real>(space_, sh, a, b, c, d, x, pick_team(chunks), chunks,
                                         scratch_level(method, sh), flag_);
        break;
      }
      case TridiagMethod::partitioned: {
        const int Lmax = segment_rows();
        if (n <= Lmax) {  // one segment: that is the hybrid method
          const int chunks = kernels::hybrid_chunks(n, rows_per_chunk_);
          kernels::hybrid<ExecSpace, Real>(space_, sh, a, b, c, d, x, pick_team(chunks), chunks, 0,
                                           flag_);
          break;
        }
        const long C = (n + Lmax - 1) / Lmax;
        if (C > INT_MAX / 2 || ns * 2 * C > LONG_MAX / 2)
          throw std::invalid_argument("tridiag: system too large for the partitioned method");
        const int len = int((n + C - 1) / C);
        const int chunks = kernels::hybrid_chunks(len, rows_per_chunk_);
        if (int(red_.size()) <= depth) red_.resize(depth + 1);
        const long rn = 2 * C * ns;
        for (auto& w : red_[depth]) grow(w, rn);
        // a copy of the handles: the recursion below may resize red_
        const std::array<Array, 5> r = red_[depth];
        kernels::partition_reduce<ExecSpace, Real>(space_, sh, a, b, c, d, int(C), len,
                                                   pick_team(chunks), chunks, r[0], r[1], r[2],
                                                   r[3], flag_);
        const auto rsh = contiguous_shape(2 * C, ns);
        // GPUs: hybrid when the reduced system fits on-chip scratch, else thomas
        // (many systems) or partitioned again; CPUs: hybrid or partitioned.
        TridiagMethod next = rsh.n > Lmax ? TridiagMethod::partitioned : TridiagMethod::hybrid;
        if (gpu)
          next = scratch_level(TridiagMethod::hybrid, rsh) == 0 ? TridiagMethod::hybrid
                 : ns >= 4096                                   ? TridiagMethod::thomas
                                                                : TridiagMethod::partitioned;
        run(rsh, r[0], r[1], r[2], r[3], r[4], next, depth + 1);
        kernels::partition_solve<ExecSpace, Real>(space_, sh, a, b, c, d, x, int(C), len,
                                                  pick_team(chunks), chunks, r[4], flag_);
        break;
      }
      case TridiagMethod::register_:
        if (depth == 0) {
          // Defaults measured on an H200 (see choose()): M = 16 for strided
          // (interleaved) batches and single systems (teams of 128, staged
          // loads), M = 8 for contiguous batches.
          const bool single = sh.systems() == 1;
          rows_now_ = reg_rows_ > 0 ? reg_rows_ : single || sh.stride > 1 ? 16 : 8;
          single_now_ = single;
        }
        if (rows_now_ == 16)
          run_register<16>(sh, a, b, c, d, x, depth);
        else
          run_register<8>(sh, a, b, c, d, x, depth);
        break;
      default:
        break;
    }
  }

  // The register method with M rows per thread: one launch when a system's
  // P = ceil(n / M) partitions fit one team, else reduce, the reduced system
  // (2 P rows per system) recursively, finish.
  template <int M>
  void run_register(const TridiagShape& sh, const ConstArray& a, const ConstArray& b,
                    const ConstArray& c, const ConstArray& d, const Array& x, int depth) {
    const long n = sh.n, ns = sh.systems(), P = (n + M - 1) / M;
    const bool stage =
        reg_stage_ >= 0 ? reg_stage_ == 1 : gpu && sh.stride == 1 && n > 1 && single_now_;
    long tmax = reg_team_ > 0 ? reg_team_ : single_now_ ? 128 : 256;
    if constexpr (gpu) tmax = std::min(tmax, long(register_team_max<M>()));
    auto fits = [&](long S, long V) {  // GPUs: on-chip scratch
      return !gpu || kernels::register_scratch<ExecSpace, Real, M>(int(S), int(V), stage, false) <=
                         std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
    };
    const Array none;
    if (depth == 0) plan_.clear();
    auto note = [&](long S, long Pt, const char* what) {
      plan_ += (plan_.empty() ? "" : "; ") + std::string(what) + " M " + std::to_string(M) + ", " +
               std::to_string(S) + " x " + std::to_string(Pt) + " per team" +
               (stage ? ", staged" : "");
    };
    if constexpr (gpu) {
      // Unstaged and a system fits a team of 512: register_stream.  Groups
      // per team: up to 8 while that leaves ~4 teams per multiprocessor (one
      // resident team each); H200, 256^2 interleaved double systems of 256:
      // 1 / 2 / 4 groups 69 / 74 / 77 % of copy.
      const long vmax = reg_team_ > 0 ? std::min(reg_team_, 512) : 512;
      if (!stage && P <= vmax) {
        long S = reg_systems_ > 0 ? reg_systems_ : vmax / P;
        S = std::max(1L, std::min({S, ns, vmax / P}));
        const long groups = (ns + S - 1) / S;
        const long sms = std::max(1L, long(space_.concurrency()) / 2048);
        const long G = reg_groups_ > 0 ? reg_groups_ : std::clamp(groups / (4 * sms), 1L, 8L);
        note(S, P, "stream");
        plan_ += ", " + std::to_string(G) + (G == 1 ? " group" : " groups");
        kernels::register_stream<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, int(S), int(G),
                                                     flag_);
        return;
      }
    }
    if (P <= tmax && fits(1, P)) {
      long S = reg_systems_ > 0 ? reg_systems_ : std::max(1L, tmax / P);
      S = std::max(1L, std::min(S, ns));
      while (S > 1 && (S * P > tmax || !fits(S, S * P))) --S;
      note(S, P, "solve");
      kernels::register_pass<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, kernels::reg_solve,
                                                 int(S), int(P), stage, true, none, none, none,
                                                 none, none, flag_);
      return;
    }
    long S = reg_systems_ > 0 ? reg_systems_ : sh.stride == 1 ? 1 : 8;
    S = std::max(1L, std::min({S, ns, tmax}));
    long Pt = std::max(1L, tmax / S);
    while (Pt > 1 && !fits(S, S * Pt)) Pt /= 2;
    note(S, Pt, "reduce");
    if (ns > LONG_MAX / 4 / P)
      throw std::invalid_argument("tridiag: system too large for the register method");
    if (int(red_.size()) <= depth) red_.resize(depth + 1);
    for (auto& w : red_[depth]) grow(w, 2 * P * ns);
    // a copy of the handles: the recursion below may resize red_
    const std::array<Array, 5> r = red_[depth];
    kernels::register_pass<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, kernels::reg_reduce,
                                               int(S), int(Pt), stage, true, r[0], r[1], r[2], r[3],
                                               none, flag_);
    run(contiguous_shape(2 * P, ns), r[0], r[1], r[2], r[3], r[4], TridiagMethod::register_,
        depth + 1);
    kernels::register_pass<ExecSpace, Real, M>(space_, sh, a, b, c, d, x, kernels::reg_finish,
                                               int(S), int(Pt), stage, true, none, none, none, none,
                                               r[4], flag_);
  }

  // Largest team the register kernel with M rows per thread can run with
  // (its registers), asked once.
  template <int M>
  int register_team_max() {
    int& t = reg_tmax_[M == 16];
    if (t == 0) {
      const Array none;
      const ConstArray cnone;
      t = kernels::register_pass<ExecSpace, Real, M>(
          space_, contiguous_shape(1, 1), cnone, cnone, cnone, cnone, none, kernels::reg_solve, 1,
          1, false, false, none, none, none, none, none, flag_);
    }
    return t;
  }

  void validate(const TridiagShape& sh, const ConstArray& a, const ConstArray& b,
                const ConstArray& c, const ConstArray& d, const Array& x) const {
    if (sh.n < 1 || sh.count[0] < 0 || sh.count[1] < 0 || sh.stride < 0 ||
        sh.system_stride[0] < 0 || sh.system_stride[1] < 0 || sh.offset < 0)
      throw std::invalid_argument(
          "tridiag: n must be >= 1 and counts and strides >= 0 (n = " + std::to_string(sh.n) + ")");
    const long span = sh.span();
    const long sizes[5] = {long(a.extent(0)), long(b.extent(0)), long(c.extent(0)),
                           long(d.extent(0)), long(x.extent(0))};
    for (long s : sizes)
      if (s < span)
        throw std::invalid_argument("tridiag: an array holds " + std::to_string(s) +
                                    " values, the shape needs " + std::to_string(span));
  }

  int pick_team(long work_items) const {
    if (team_size_ > 0) return team_size_;
    if constexpr (!gpu) {
      (void)work_items;
      return 1;
    } else {
      long t = 32;
      while (t < work_items && t < 256) t *= 2;
      return int(t);
    }
  }

  void grow(Array& w, long size) {
    if (long(w.extent(0)) < size)
      w = Array(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "kflow::tridiag::ws"),
                size);
  }

  ExecSpace space_;
  Kokkos::View<long, memory_space> flag_;
  Array ws_[4];
  std::vector<std::array<Array, 5>> red_;  // reduced systems of `partitioned`, per depth
  int segment_rows_ = 0;
  bool check_ = true;
  int rows_per_chunk_ = 8;
  int team_size_ = 0;
  int reg_rows_ = 0, reg_team_ = 0, reg_systems_ = 0, reg_stage_ = -1, reg_groups_ = 0;
  int rows_now_ = 8;         // M of the register solve under way (all levels)
  bool single_now_ = false;  // ... and whether it began as one system
  int reg_tmax_[2] = {0, 0};
  std::string plan_;
};

// One-off solve (allocates a workspace each call; keep a Tridiag for loops).
template <class ExecSpace, class Real, class M>
TridiagMethod solve_tridiag(const ExecSpace& space, const TridiagShape& sh,
                            const Kokkos::View<const Real*, M>& a,
                            const Kokkos::View<const Real*, M>& b,
                            const Kokkos::View<const Real*, M>& c,
                            const Kokkos::View<const Real*, M>& d, const Kokkos::View<Real*, M>& x,
                            TridiagMethod method = TridiagMethod::automatic) {
  Tridiag<ExecSpace, Real> t(space);
  return t.solve(sh, a, b, c, d, x, method);
}

}  // namespace kflow::linalg
