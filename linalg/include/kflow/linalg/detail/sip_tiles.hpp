#pragma once
// The tiles ordering's team kernel (GPUs; host backends with
// SipTiles::wavefront): strips of rows swept by one compute group while the
// other threads stream the operands through team scratch.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/detail/sip2.hpp"

namespace kflow::linalg::detail {
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
            // group has arrived (a warp vote), then the next group's is read
            // (one group ahead measured best).
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
// one round of E = 4 elements each and one spare warp of loaders (GPUs; the
// best of a measured sweep), or one compute thread and one
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

}  // namespace kflow::linalg::detail
