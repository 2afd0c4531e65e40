#pragma once
// Stone's strongly implicit procedure (SIP) for a 5-point operator
// (stencil.hpp), seed 003 (Ezzatti & Nesmachnow), in the Ferziger & Peric
// form of digest 003 section 3.2 (the paper itself gives no formulas):
//
//   M = L U ~ A,  L: (L_W, L_S, L_P),  U: unit diagonal, (U_N, U_E),
//   L_W = A_W / (1 + alpha U_N(W)),      L_S = A_S / (1 + alpha U_E(S)),
//   P1 = alpha L_W U_N(W),               P2 = alpha L_S U_E(S),
//   L_P = A_P + P1 + P2 - L_W U_E(W) - L_S U_N(S),
//   U_N = (A_N - P1) / L_P,              U_E = (A_E - P2) / L_P,
//
// with W = (i-1, j), S = (i, j-1), N = (i, j+1), E = (i+1, j) in kflow's
// stored indices and A_* the operator's matrix entries (c.p, c.w, ...; the
// formulas do not depend on the sign convention).  One iteration:
//
//   r = b - A x;  forward  y_P = (r_P - L_S y_S - L_W y_W) / L_P;
//                 backward d_P = y_P - U_N d_N - U_E d_E;  x += d.
//
// Decisions on digest 003's open questions (3, 5, 6):
// - alpha is a parameter, 0 <= alpha < 1 (alpha = 0 is ILU(0) used as a
//   stationary iteration; alpha >= 1 or < 0 is rejected).  Default 0.92, the
//   value common in caffa-derived codes; the paper gives none.  Measured on
//   the Dirichlet Poisson problem (residual 1e-6 max|b|, kflow bench sip):
//   the iteration count falls from alpha = 0 to 0.92 (423 / 291 / 162 / 84
//   for alpha 0 / 0.5 / 0.8 / 0.92 at 32^2 cells), while alpha = 0.97
//   diverges slowly; a diverged iterate (NaN/inf criterion) ends the solve
//   with converged = false.
// - Stopping rule: kflow's SolveControl (max-norm of the residual b - A x
//   after the sweep relative to max |b|, or of the correction d, every
//   check_every sweeps), so
//   SIP, red-black SOR and CG stop on the same criterion; tolerance 0 runs a
//   fixed number of sweeps (the paper's "number of refining iterations").
// - The factorization is computed once per operator (constructor), as in
//   caffa (it depends only on A and alpha), and timed separately by the
//   benchmark.
// - The residual is a separate, fully parallel pass (not fused into the
//   forward sweep as in caffa): same arithmetic, same iterates.
// - Cells with c.p == 0 (obstacles) are identity rows: their correction is 0.
// - Periodic directions are rejected: the wrap-around couples the last
//   row/column to the first, and the triangular factors would no longer be
//   triangular in any sweep order.
//
// Orderings of the three sequential sweeps (factorization, forward,
// backward); all give the same iterates up to rounding (each point sees the
// same inputs; only FMA contraction may differ):
//   lexicographic  one thread, i fastest (the CPU baseline; host backends).
//   diagonals      one kernel launch per anti-diagonal i + j = const, one
//                  thread per point: the paper's GPU method (section 4.1),
//                  2 (nx + ny - 1) launches per iteration.
//   pipelined      one kernel per sweep: teams of h threads own strips of h
//                  rows; thread t of a strip handles row j0 + t and trails
//                  thread t - 1 by one column, receiving y(i, j - 1) through
//                  team scratch; the first row of a strip waits (spinning on
//                  a per-strip progress counter published after a memory
//                  fence) until the strip below has finished column i.
//                  Strips are taken in order from an atomic counter, so a
//                  strip only ever waits on one that is already running:
//                  no deadlock, whatever the scheduling.  This is a
//                  software-pipelined wavefront: nx + ny steps per sweep
//                  instead of nx + ny launches.  Used for the iterations;
//                  the factorization (once) uses diagonals.  Slow: every
//                  column step is a dependent chain barrier -> uncoalesced
//                  global loads (consecutive threads in different rows) ->
//                  compute, so each of the ~nx + ny steps pays a memory
//                  latency, and every column is handed over between strips
//                  through global memory.
//   tiles          (GPU default) the grid is cut into strips of rows
//                  (SipTiles::rows), taken in sweep order from an atomic
//                  ticket counter, so a strip only ever waits on one that is
//                  already running: no deadlock on any backend.
//                  GPU (team) kernel, see sip_tiles_team: a team per strip of
//                  32 or 64 rows; one warp computes (lane l owns rows l and
//                  32 + l and trails lane l - 1 by one column: y(i, j - 1)
//                  arrives by a shuffle, no barrier per step), the other
//                  threads load the operands coalesced into a two-group ring
//                  in team scratch, two groups ahead, and write results back;
//                  one team barrier per group of SipTiles::group steps.  The
//                  top row of a strip reaches the strip above through a
//                  buffer whose "unwritten" value is a signalling NaN.
//                  Host kernel (OpenMP: teams are threads): strips cut into
//                  tiles of SipTiles::cols columns, each lexicographic, with
//                  a progress counter per strip (default tiles of 128 x 32;
//                  the OpenMP-parallel SIP, not the host default, which
//                  stays the one-thread lexicographic sweep).  The team
//                  kernel also runs on host backends with one compute thread
//                  (SipTiles::wavefront), which is how the unit tests check
//                  its ring, hand-over and edges without a GPU.
//                  The factorization (once) uses diagonals on GPUs and the
//                  lexicographic sweep on host backends.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/stencil.hpp"

namespace kflow::linalg {

enum class SipOrdering { automatic, lexicographic, diagonals, pipelined, tiles };

inline const char* name(SipOrdering o) {
  switch (o) {
    case SipOrdering::lexicographic:
      return "lexicographic";
    case SipOrdering::diagonals:
      return "diagonals";
    case SipOrdering::pipelined:
      return "pipelined";
    case SipOrdering::tiles:
      return "tiles";
    default:
      return "auto";
  }
}

// Shape of the tiles ordering (0 = default).
struct SipTiles {
  int rows = 0;     // rows per strip.  Host kernel: any (default 32).  Team kernel:
                    // 1, 2 or 4 rows per compute lane, i.e. 32, 64 or 128 on CUDA
                    // (default 64), 1, 2 or 4 on host backends (default 2)
  int cols = 0;     // host kernel: columns per tile, the granularity at which a
                    // strip publishes its progress (default 128)
  int group = 0;    // team kernel: wavefront steps per group, 8, 16 or 32 (default
                    // 16); a group's operands are loaded while the one before is
                    // computed, and progress is published once per group
  int threads = 0;  // team kernel: threads per team (0: the compute lanes and
                    // enough loaders for one round per group; host: 2)
  // Run the team kernel on a host backend too: lets the tests check it
  // without a GPU.
  bool wavefront = false;
};

template <class Real, class MemSpace>
struct SipFactors2 {
  Field<Real, 2, MemSpace> lw, ls, lpinv, un, ue;
};

namespace kernels {

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

// The pipelined wavefront sweep (forward or backward), strips of h rows.
template <class ExecSpace, class F, class R, class X>
void sip_pipelined(const ExecSpace& space, int nx, int ny, int h, const F& f, const R& r,
                   const X& x, bool forward,
                   const Kokkos::View<int*, typename X::memory_space>& progress,
                   const Kokkos::View<int, typename X::memory_space>& counter) {
  using Real = typename R::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using SV = Kokkos::View<Real*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using IV = Kokkos::View<int*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const int strips = (ny + h - 1) / h;
  Kokkos::deep_copy(space, progress, 0);
  Kokkos::deep_copy(space, counter, 0);
  Policy policy(space, strips, h);
  policy.set_scratch_size(0, Kokkos::PerTeam(SV::shmem_size(2 * h) + IV::shmem_size(1)));
  Kokkos::parallel_for(
      forward ? "kflow::linalg::sip::forward_pipelined" : "kflow::linalg::sip::backward_pipelined",
      policy, KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        SV buf(t.team_scratch(0), 2 * h);
        IV id(t.team_scratch(0), 1);
        const int tr = t.team_rank();
        if (tr == 0) id(0) = Kokkos::atomic_fetch_add(&counter(), 1);
        t.team_barrier();
        const int strip = id(0);
        const int row = strip * h + tr;  // 0-based row counted in sweep order
        const bool active = row < ny;
        const int j = forward ? 1 + row : ny - row;
        const int jprev = forward ? j - 1 : j + 1;
        // the last active row of the strip publishes its progress
        const int top = Kokkos::min(h, ny - strip * h) - 1;
        Real yprev_col = 0;  // y (or d) at the previous column of this row
        for (int s = 0; s < nx + h - 1; ++s) {
          const int c = s - tr;  // column step of this thread
          const bool work = active && c >= 0 && c < nx;
          if (work) {
            const int i = forward ? 1 + c : nx - c;
            Real yprev_row;
            if (tr == 0) {
              if (strip == 0) {
                yprev_row = 0;
              } else {
                while (relaxed_load(&progress(strip - 1)) < c + 1) {
                }
                Kokkos::memory_fence();
                yprev_row = relaxed_load(&r(i, jprev));
              }
            } else {
              yprev_row = buf(((s - 1) & 1) * h + tr - 1);
            }
            Real y;
            if (forward) {
              y = (r(i, j) - f.ls(i, j) * yprev_row - f.lw(i, j) * yprev_col) * f.lpinv(i, j);
            } else {
              y = r(i, j) - f.un(i, j) * yprev_row - f.ue(i, j) * yprev_col;
              x(i, j) += y;
            }
            r(i, j) = y;
            buf((s & 1) * h + tr) = y;
            yprev_col = y;
            if (tr == top) {
              Kokkos::memory_fence();
              relaxed_store(&progress(strip), c + 1);
            }
          }
          t.team_barrier();
        }
      });
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

// ---- the tiles ordering's team kernel (GPUs) ---------------------------------
// Lanes of the compute group: a CUDA warp, whose lanes hand y(a, b - 1) to
// each other through warp shuffles; 1 on other backends (one thread owns all
// rows of its strip), which is how the unit tests run the kernel on the host.
template <class ExecSpace>
constexpr int sip_lanes() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) return 32;
#endif
  return 1;
}

// v of lane `from` (W = 32: a warp shuffle; W = 1: v itself).
template <int W, class Real>
KOKKOS_INLINE_FUNCTION Real sip_lane_value(Real v, int from) {
  if constexpr (W == 1) {
    (void)from;
    return v;
  } else {
#if defined(__CUDA_ARCH__)
    return __shfl_sync(0xffffffffu, v, from, W);
#else
    (void)from;
    return v;  // not reached: W > 1 only in CUDA device code
#endif
  }
}

// Whether b holds on every lane (W = 32: a warp vote).
template <int W>
KOKKOS_INLINE_FUNCTION bool sip_lanes_all(bool b) {
  if constexpr (W == 1) {
    return b;
  } else {
#if defined(__CUDA_ARCH__)
    return __all_sync(0xffffffffu, b);
#else
    return b;  // not reached: W > 1 only in CUDA device code
#endif
  }
}

// "Not written yet" in the buffer through which strips hand over their top
// row: a signalling NaN, which no arithmetic produces (a NaN result is quiet),
// so a computed y never looks unwritten.
template <class Real>
struct SipUnwritten {
  using Bits = std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>;
  KOKKOS_INLINE_FUNCTION static constexpr Bits bits() {
    return sizeof(Real) == 8 ? Bits(0x7ff4b1d5c0de0001ull) : Bits(0x7fa5c0deu);
  }
  KOKKOS_INLINE_FUNCTION static Real value() { return Kokkos::bit_cast<Real>(bits()); }
  KOKKOS_INLINE_FUNCTION static bool is(Real v) { return Kokkos::bit_cast<Bits>(v) == bits(); }
};

// Position of array c (0: r, then y; 1: c1; 2: c2; 3: c3 forward, x
// backward), ring half h, strip row rho and step m of a group in the team
// scratch (rows padded to an odd stride).
template <int R, int Q>
KOKKOS_INLINE_FUNCTION int sip_tile_slot(int c, int h, int rho, int m) {
  return ((c * 2 + h) * R + rho) * (Q + 1) + m;
}

// Team scratch bytes of the team kernel: strips of `rows` rows, groups of q steps.
template <class Real>
std::size_t sip_tiles_scratch(int rows, int q) {
  return 2 * 4 * std::size_t(rows) * std::size_t(q + 1) * sizeof(Real) + 64;
}

// Ring elements (row, step) per loader thread: one round per group on GPUs.
template <class ExecSpace, int R, int Q>
constexpr int sip_tiles_elements() {
  return sip_lanes<ExecSpace>() > 1 ? 4 : R * Q;
}

// Team kernel: a team owns a strip of R = W K rows.  Its first W threads (the
// compute group, lanes) run the wavefront: lane l owns rows l, W + l, ...,
// (K - 1) W + l (K layers) and handles, at step s, column a = s - rho of each
// row rho, so y(a, b - 1) was computed one step earlier by lane l - 1 (by
// lane W - 1 one layer down for lane 0): one warp shuffle per layer and step,
// no barrier.  Row -1 is the top row of the strip below, which that strip's
// top lane stores into `hand` as soon as it computes it; lane m reads the
// value of step m one group ahead, and at the start of the group the lanes
// whose value was still the "unwritten" sentinel read it again until every
// lane has it (a warp vote).  The value is its own flag: no fence, no counter.
//
// The steps come in groups of Q; the operands of each group sit in one half
// of a two-group ring in team scratch.  The other threads (loaders; all
// threads when the team has only W) feed the ring; each owns the same E
// (row, step) elements of every group.  In the period in which group p is
// computed, a loader writes group p - 1's results back (coalesced, backward
// x += d there), stores group p + 1 into the half group p - 1 held (same
// thread, same elements: no barrier between the two), and issues the loads
// of group p + 3 into the registers it just emptied: loads are two periods
// in flight, in two register sets that alternate (no register copy that
// would wait on them).  One team barrier per group.  Strips are taken in
// sweep order from a ticket counter, so a team only waits on a strip that is
// already running: no deadlock.
template <int K, int Q, class ExecSpace, class F, class R, class X, class Sync, class Hand>
void sip_tiles_team(const ExecSpace& space, int nx, int ny, int threads, const F& f, const R& r,
                    const X& x, bool forward, const Sync& sync, const Hand& hand) {
  using Real = typename R::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<512, 1>>;
  using SV = Kokkos::View<Real*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using IV = Kokkos::View<int*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Unwritten = SipUnwritten<Real>;
  constexpr int W = sip_lanes<ExecSpace>();
  constexpr int RR = W * K;  // rows per strip
  constexpr int E = sip_tiles_elements<ExecSpace, RR, Q>();
  static_assert(Q <= 32 && (W == 1 || Q <= W), "a group's row -1 is one value per lane");
  const int strips = (ny + RR - 1) / RR;
  const int nsc = 8 * RR * (Q + 1);
  const int groups = (nx + RR - 1 + Q - 1) / Q;  // steps 0 .. nx + RR - 2
  Policy policy(space, strips, threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(SV::shmem_size(nsc) + IV::shmem_size(1)));
  Kokkos::parallel_for(
      forward ? "kflow::linalg::sip::forward_tiles" : "kflow::linalg::sip::backward_tiles", policy,
      KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        SV sc(t.team_scratch(0), nsc);
        IV id(t.team_scratch(0), 1);
        const int rank = t.team_rank(), size = t.team_size();
        if (rank == 0) id(0) = Kokkos::atomic_fetch_add(&sync(strips), 1);
        t.team_barrier();
        const int strip = id(0);
        const int b0 = strip * RR;
        const int top = Kokkos::min(RR, ny - b0) - 1;              // the strip's last row
        const bool handing = top == RR - 1 && strip + 1 < strips;  // a strip above reads it
        const bool separate = size > W;                            // loaders of their own
        const bool loads = !separate || rank >= W;
        const int nl = separate ? size - W : size;  // loader threads
        const int u = separate ? rank - W : rank;   // this loader
        const int lane = rank % W;
        auto slot = [&](int c, int h, int rho, int m) -> Real& {
          return sc(sip_tile_slot<RR, Q>(c, h, rho, m));
        };
        // Global indices of the point of strip row rho at column step a.
        auto ij = [&](int a, int rho, int& i, int& j) {
          i = forward ? 1 + a : nx - a;
          j = forward ? 1 + b0 + rho : ny - b0 - rho;
        };
        Real yw[K] = {};  // y of each layer's row at the previous step
        Real va[E][4], vb[E][4];
        // Row -1 (the strip below's top row) of group q: lane m reads step m
        // (W = 1: the one thread reads all of them) without waiting.
        constexpr int NH = W == 1 ? Q : 1;
        auto read_hand = [&](int q, Real(&hv)[NH]) {
          KFLOW_SIP_UNROLL
          for (int m = 0; m < NH; ++m) {
            const int a = q * Q + (W == 1 ? m : lane);
            hv[m] = strip > 0 && a < nx && (W == 1 || lane < Q) ? relaxed_load(&hand(strip - 1, a))
                                                                : Real(0);
          }
        };
        Real hand_next[NH];  // row -1 of the next group, read one group ahead
        if (rank < W) read_hand(0, hand_next);
        // Issues the loads of group q into v (zeros outside the grid).
        auto load = [&](int q, Real(&v)[E][4]) {
          KFLOW_SIP_UNROLL
          for (int n = 0; n < E; ++n) {
            v[n][0] = v[n][1] = v[n][2] = v[n][3] = Real(0);
            const int e = n * nl + u, rho = e / Q, a = q * Q + e % Q - rho;
            if (q >= groups || e >= RR * Q || a < 0 || a >= nx || rho > top) continue;
            int i, j;
            ij(a, rho, i, j);
            v[n][0] = r(i, j);
            v[n][1] = forward ? f.ls(i, j) : f.un(i, j);
            v[n][2] = forward ? f.lw(i, j) : f.ue(i, j);
            v[n][3] = forward ? f.lpinv(i, j) : x(i, j);
          }
        };
        // Period p with register set v (holding group p + 1).
        auto period = [&](int p, Real(&v)[E][4]) {
          if (rank < W && p >= 0 && p < groups) {
            const int h = p & 1;
            // Row -1 of this group, read during the group before: lanes
            // whose value was still unwritten read it again until the whole
            // group has arrived (a warp vote), then the next group's is read.
            // (H200, 1026^2: reading it in the same group 0.678 ms per
            // iteration, one group ahead 0.584, two groups ahead 0.648.)
            Real below_row[NH];
            KFLOW_SIP_UNROLL
            for (int m = 0; m < NH; ++m) {
              below_row[m] = hand_next[m];
              const int a = p * Q + (W == 1 ? m : lane);
              while (!sip_lanes_all<W>(!Unwritten::is(below_row[m])))
                if (Unwritten::is(below_row[m])) below_row[m] = relaxed_load(&hand(strip - 1, a));
            }
            read_hand(p + 1, hand_next);
            // The operands of step m + 1 are read from scratch before step m's
            // y is stored there.
            Real op[K][4];
            auto read = [&](int m, Real(&o)[K][4]) {
              KFLOW_SIP_UNROLL
              for (int k = 0; k < K; ++k) {
                KFLOW_SIP_UNROLL
                for (int c = 0; c < 4; ++c)
                  o[k][c] = c < 3 || forward ? slot(c, h, W * k + lane, m) : Real(1);
              }
            };
            read(0, op);
            KFLOW_SIP_UNROLL
            for (int m = 0; m < Q; ++m) {
              const Real row_m1 = sip_lane_value<W>(below_row[W == 1 ? m : 0], m);
              Real below[K];
              KFLOW_SIP_UNROLL
              for (int k = 0; k < K; ++k) below[k] = sip_lane_value<W>(yw[k], (lane + W - 1) % W);
              Real next[K][4];
              if (m + 1 < Q) read(m + 1, next);
              KFLOW_SIP_UNROLL
              for (int k = 0; k < K; ++k) {
                const Real ys = lane > 0 ? below[k] : k > 0 ? below[k - 1] : row_m1;
                const Real y = (op[k][0] - op[k][1] * ys - op[k][2] * yw[k]) * op[k][3];
                slot(0, h, W * k + lane, m) = y;
                yw[k] = y;
              }
              // The top row goes to the strip above at once.
              const int a = p * Q + m - (RR - 1);
              if (handing && rank == W - 1 && a >= 0 && a < nx)
                relaxed_store(&hand(strip, a), yw[K - 1]);
              if (m + 1 < Q) {
                KFLOW_SIP_UNROLL
                for (int k = 0; k < K; ++k) {
                  KFLOW_SIP_UNROLL
                  for (int c = 0; c < 4; ++c) op[k][c] = next[k][c];
                }
              }
            }
          }
          if (loads) {
            KFLOW_SIP_UNROLL
            for (int n = 0; n < E; ++n) {  // write group p - 1 back
              const int e = n * nl + u, rho = e / Q, m = e % Q, a = (p - 1) * Q + m - rho;
              if (p < 1 || e >= RR * Q || a < 0 || a >= nx || rho > top) continue;
              int i, j;
              ij(a, rho, i, j);
              const Real y = slot(0, (p - 1) & 1, rho, m);
              r(i, j) = y;
              if (!forward) x(i, j) = slot(3, (p - 1) & 1, rho, m) + y;
            }
            KFLOW_SIP_UNROLL
            for (int n = 0; n < E; ++n) {  // store group p + 1 where group p - 1 was
              const int e = n * nl + u;
              if (p + 1 >= groups || e >= RR * Q) continue;
              KFLOW_SIP_UNROLL
              for (int c = 0; c < 4; ++c) slot(c, (p + 1) & 1, e / Q, e % Q) = v[n][c];
            }
            load(p + 3, v);
          }
          t.team_barrier();
        };
        if (loads) {
          load(0, va);
          load(1, vb);
        }
        for (int p = -1; p <= groups; p += 2) {
          period(p, va);
          if (p + 1 <= groups) period(p + 1, vb);
        }
        // Ready for the next sweep without a fill kernel: the row this strip
        // read back to "unwritten" (no one else reads it), and the last team
        // to finish resets the ticket counters.
        if (strip > 0)
          for (int a = rank; a < nx; a += size) hand(strip - 1, a) = Unwritten::value();
        if (rank == 0 && Kokkos::atomic_fetch_add(&sync(strips + 1), 1) == strips - 1) {
          sync(strips) = 0;
          sync(strips + 1) = 0;
        }
      });
}

// Threads per team of the team kernel: the compute lanes, enough loaders for
// one round of E = 4 elements each and one spare warp of loaders (GPUs; an
// H200 at 1026^2, 32 rows, group 8: 96 threads 0.599 ms per iteration, 128
// threads 0.584, 160 0.625, 256 0.609), or one compute thread and one
// loader where the host has two threads (s.threads overrides).
template <class ExecSpace>
int sip_tiles_threads(const SipTiles& s) {
  constexpr int W = sip_lanes<ExecSpace>();
  if (s.threads > 0) return s.threads;
  if (W == 1) return std::min(2, int(ExecSpace().concurrency()));
  const int loaders = (s.rows * s.group + 3) / 4;
  return std::min(512, 2 * W + (loaders + W - 1) / W * W);
}

// The tiles ordering's sweep (forward or backward).
template <class ExecSpace, class F, class R, class X, class Sync, class Hand>
void sip_tiles(const ExecSpace& space, int nx, int ny, const SipTiles& s, const F& f, const R& r,
               const X& x, bool forward, const Sync& sync, const Hand& hand) {
  constexpr bool gpu = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
  if constexpr (!gpu) {
    if (!s.wavefront) {
      sip_tiles_host(space, nx, ny, s.rows, s.cols, f, r, x, forward, sync);
      return;
    }
  }
  constexpr int W = sip_lanes<ExecSpace>();
  // forward and backward sweeps hand over through buffers of their own
  const auto h = Kokkos::subview(hand, forward ? 0 : 1, Kokkos::ALL, Kokkos::ALL);
  auto run = [&](auto kc) {
    constexpr int KC = decltype(kc)::value;
    if (s.group == 8)
      sip_tiles_team<KC, 8>(space, nx, ny, s.threads, f, r, x, forward, sync, h);
    else
      sip_tiles_team<KC, 16>(space, nx, ny, s.threads, f, r, x, forward, sync, h);
  };
  if (s.rows == W)
    run(std::integral_constant<int, 1>{});
  else
    run(std::integral_constant<int, 2>{});
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

// max |v| over the interior; NaN counts as +inf.
template <class ExecSpace, class V>
double sip_max_abs(const ExecSpace& space, const Grid& g, const V& v) {
  double m = 0;
  if constexpr (V::rank == 2) {
    Kokkos::parallel_reduce(
        "kflow::linalg::sip::max_correction", interior_policy<2>(space, g),
        KOKKOS_LAMBDA(int i, int j, double& acc) {
          const double a = Kokkos::fabs(double(v(i, j)));
          acc = Kokkos::fmax(acc, a == a ? a : HUGE_VAL);
        },
        Kokkos::Max<double>(m));
  } else {
    Kokkos::parallel_reduce(
        "kflow::linalg::sip::max_correction", interior_policy<3>(space, g),
        KOKKOS_LAMBDA(int i, int j, int k, double& acc) {
          const double a = Kokkos::fabs(double(v(i, j, k)));
          acc = Kokkos::fmax(acc, a == a ? a : HUGE_VAL);
        },
        Kokkos::Max<double>(m));
  }
  space.fence("kflow::linalg::sip::max_correction");
  return m;
}

// max |b - A x| over the cells in the system, NaN counted as +inf so that a
// diverged iterate never looks converged (a 2D residual_max_norm that does not
// lose NaNs in the Max reduction).
template <class ExecSpace, class Op, class X, class B>
double sip_residual_max_norm(const ExecSpace& space, const Op& op, const X& x, const B& b) {
  double r = 0;
  Kokkos::parallel_reduce(
      "kflow::linalg::sip::residual_max_norm", interior_policy<2>(space, op.grid),
      KOKKOS_LAMBDA(int i, int j, double& acc) {
        if (op.coeffs(i, j).p == 0) return;
        const double d = Kokkos::fabs(double(b(i, j) - apply_at(op, x, i, j)));
        const double v = d == d ? d : HUGE_VAL;
        acc = v > acc ? v : acc;
      },
      Kokkos::Max<double>(r));
  space.fence("kflow::linalg::sip::residual_max_norm");
  return r;
}

}  // namespace kernels

template <class ExecSpace, class Op>
class Sip2 : public Solver2<ExecSpace, typename Op::real_type> {
 public:
  using Real = typename Op::real_type;
  using Base = Solver2<ExecSpace, Real>;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr bool gpu = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

  // Factorizes A (the operator) with parameter alpha in [0, 1).
  // strip_rows: rows per strip of the pipelined and tiles orderings (0:
  // default); tiles: the rest of the tiles ordering's shape (SipTiles).
  Sip2(const ExecSpace& space, const Op& op, double alpha = 0.92,
       SipOrdering ordering = SipOrdering::automatic, int strip_rows = 0, SipTiles tiles = {})
      : space_(space), op_(op), alpha_(alpha), ordering_(ordering) {
    if (!(alpha >= 0 && alpha < 1))
      throw std::invalid_argument("SIP: alpha = " + std::to_string(alpha) +
                                  " is outside [0, 1) (alpha = 0 is ILU(0); Stone's "
                                  "procedure needs alpha < 1)");
    if (op.px || op.py)
      throw std::invalid_argument(
          "SIP: periodic directions are not supported (the wrap-around breaks the triangular "
          "factors); use red-black SOR or CG");
    if (ordering_ == SipOrdering::automatic)
      ordering_ = gpu ? SipOrdering::tiles : SipOrdering::lexicographic;
    if (gpu && ordering_ == SipOrdering::lexicographic)
      throw std::invalid_argument(
          "SIP: the lexicographic ordering runs on one thread; use "
          "tiles, pipelined or diagonals on a GPU");
    strip_rows_ = strip_rows > 0 ? strip_rows : (gpu ? 32 : 1);
    const Grid& g = op.grid;
    if (ordering_ == SipOrdering::tiles) set_tiles(strip_rows, tiles);
    auto make = [&](const char* label) {
      return make_field<Real, 2>(space, label, g);
    };
    f_.lw = make("kflow::sip::lw");
    f_.ls = make("kflow::sip::ls");
    f_.lpinv = make("kflow::sip::lpinv");
    f_.un = make("kflow::sip::un");
    f_.ue = make("kflow::sip::ue");
    r_ = make("kflow::sip::r");
    progress_ = Kokkos::View<int*, memory_space>("kflow::sip::progress",
                                                 (g.cells[1] + strip_rows_ - 1) / strip_rows_);
    counter_ = Kokkos::View<int, memory_space>("kflow::sip::counter");
    long bad = 0;
    // The factorization (once per operator): one thread on host backends
    // (also for tiles), one launch per diagonal on GPUs.
    if (ordering_ == SipOrdering::lexicographic || (!gpu && ordering_ == SipOrdering::tiles)) {
      bad = kernels::sip_lexicographic(space_, op_, f_, r_, r_, Real(alpha_), 0);
    } else {
      Kokkos::View<long, memory_space> nbad("kflow::sip::bad");
      kernels::sip_diagonals(space_, op_, f_, r_, r_, Real(alpha_), 0, nbad);
      Kokkos::deep_copy(bad, nbad);
    }
    space_.fence("kflow::linalg::sip::factor");
    if (bad)
      throw std::runtime_error("SIP: " + std::to_string(bad) +
                               " zero or NaN pivots L_P in the incomplete factorization (alpha = " +
                               std::to_string(alpha) + ")");
  }

  // z = M^{-1} r (one forward and one backward sweep): SIP as a preconditioner.
  // z and r are fields on the operator's grid; r is not modified.
  void precondition(const Field<const Real, 2, memory_space>& r,
                    const Field<Real, 2, memory_space>& z) {
    Kokkos::deep_copy(space_, z, Real(0));
    kernels::sip_copy_interior(space_, op_.grid, r, r_);
    sweeps(z);
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    SolveStats s;
    const int every = std::max(1, c.check_every);
    // The residual criterion is relative to max |b| (solver.hpp), as for
    // red-black SOR.
    double scale = 1;
    if (c.tolerance > 0 && c.criterion == Criterion::residual) {
      scale = system_max_norm(space_, op_, b);
      if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
    }
    for (int k = 1; k <= c.max_iterations; ++k) {
      residual(space_, op_, x, b, r_);
      sweeps(x);
      s.iterations = k;
      const bool check = c.tolerance > 0 && (k % every == 0 || k == c.max_iterations);
      if (!check) continue;
      s.criterion = c.criterion == Criterion::change
                        ? kernels::sip_max_abs(space_, op_.grid, r_)
                        : kernels::sip_residual_max_norm(space_, op_, x, b) / scale;
      if (!(s.criterion < HUGE_VAL)) break;  // NaN/inf: diverged, not converged
      if (s.criterion <= c.tolerance) {
        s.converged = true;
        break;
      }
    }
    return s;
  }

  std::string name() const override { return std::string("sip (") + linalg::name(ordering_) + ")"; }
  double alpha() const { return alpha_; }
  SipOrdering ordering() const { return ordering_; }
  const SipTiles& tiles() const { return tiles_; }  // the tiles ordering's shape (after defaults)
  const SipFactors2<Real, memory_space>& factors() const { return f_; }

 private:
  // Forward and backward sweeps on r_ (the residual in, the correction out),
  // adding the correction to x.
  void sweeps(const Field<Real, 2, memory_space>& x) {
    const int nx = op_.grid.cells[0], ny = op_.grid.cells[1];
    switch (ordering_) {
      case SipOrdering::lexicographic:
        kernels::sip_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 1);
        kernels::sip_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 2);
        break;
      case SipOrdering::diagonals: {
        Kokkos::View<long, memory_space> unused;
        kernels::sip_diagonals(space_, op_, f_, r_, x, Real(alpha_), 1, unused);
        kernels::sip_diagonals(space_, op_, f_, r_, x, Real(alpha_), 2, unused);
        break;
      }
      case SipOrdering::tiles:
        kernels::sip_tiles(space_, nx, ny, tiles_, f_, r_, x, true, sync_, hand_);
        kernels::sip_tiles(space_, nx, ny, tiles_, f_, r_, x, false, sync_, hand_);
        break;
      default:
        kernels::sip_pipelined(space_, nx, ny, strip_rows_, f_, r_, x, true, progress_, counter_);
        kernels::sip_pipelined(space_, nx, ny, strip_rows_, f_, r_, x, false, progress_, counter_);
        break;
    }
  }

  // Shape of the tiles ordering, checked against the backend's limits.
  void set_tiles(int strip_rows, const SipTiles& s) {
    tiles_ = s;
    const bool team = gpu || tiles_.wavefront;
    constexpr int lanes = kernels::sip_lanes<ExecSpace>();
    // GPU defaults from a sweep on an H200 (1026^2, double, kflow bench sip).
    tiles_.rows = s.rows > 0 ? s.rows : strip_rows > 0 ? strip_rows : team ? lanes : 32;
    tiles_.cols = s.cols > 0 ? s.cols : 128;
    tiles_.group = s.group > 0 ? s.group : 8;
    if (tiles_.group != 8 && tiles_.group != 16)
      throw std::invalid_argument("SIP tiles: group = " + std::to_string(tiles_.group) +
                                  " steps; expected 8 or 16");
    if (team) {
      const int r = tiles_.rows;
      if (r != lanes && r != 2 * lanes)
        throw std::invalid_argument("SIP tiles: " + std::to_string(r) +
                                    " rows per strip; the team kernel takes " +
                                    std::to_string(lanes) + " or " + std::to_string(2 * lanes) +
                                    " here (1 or 2 rows per compute lane)");
      tiles_.threads = kernels::sip_tiles_threads<ExecSpace>(tiles_);
      // GPUs: the loaders must cover a group in one round of 4 elements each.
      const int least = gpu ? lanes + (r * tiles_.group + 3) / 4 : 1;
      const int most = gpu ? 512 : int(ExecSpace().concurrency());
      if (tiles_.threads < least || tiles_.threads > most)
        throw std::invalid_argument("SIP tiles: " + std::to_string(tiles_.threads) +
                                    " threads per team; expected " + std::to_string(least) +
                                    " to " + std::to_string(most) + " here");
      const std::size_t need = kernels::sip_tiles_scratch<Real>(r, tiles_.group);
      const std::size_t most_bytes = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
      if (need > most_bytes)
        throw std::invalid_argument(
            "SIP tiles: strips of " + std::to_string(r) + " rows with groups of " +
            std::to_string(tiles_.group) + " steps need " + std::to_string(need) +
            " bytes of team scratch; at most " + std::to_string(most_bytes) +
            " here (fewer rows or a smaller group)");
      hand_ = Kokkos::View<Real***, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kflow::sip::tile_hand"), 2,
          (op_.grid.cells[1] + r - 1) / r, op_.grid.cells[0]);
      Kokkos::deep_copy(space_, hand_, kernels::SipUnwritten<Real>::value());
    }
    // progress per strip (host kernel), the ticket and the finished-team counters
    sync_ = Kokkos::View<int*, memory_space>(
        "kflow::sip::tile_progress", (op_.grid.cells[1] + tiles_.rows - 1) / tiles_.rows + 2);
  }

  ExecSpace space_;
  Op op_;
  double alpha_;
  SipOrdering ordering_;
  int strip_rows_ = 1;
  SipFactors2<Real, memory_space> f_;
  Field<Real, 2, memory_space> r_;
  Kokkos::View<int*, memory_space> progress_;
  Kokkos::View<int, memory_space> counter_;
  SipTiles tiles_;
  // tiles: progress of every strip (columns done; host kernel), then the
  // ticket counter
  Kokkos::View<int*, memory_space> sync_;
  // tiles, team kernel: the top row of every strip, handed to the strip above
  // (one buffer for forward sweeps, one for backward sweeps)
  Kokkos::View<Real***, memory_space> hand_;
};

}  // namespace kflow::linalg
