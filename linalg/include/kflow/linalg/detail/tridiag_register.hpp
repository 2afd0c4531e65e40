#pragma once
// The register method of tridiag.hpp on every backend: partitions of M rows
// per (virtual) thread reduced in registers, the reduced system by PCR in
// team scratch; systems longer than a team go through a reduced system.

#include <Kokkos_Core.hpp>

#include "kflow/linalg/detail/tridiag_rows.hpp"
#include "kflow/linalg/space.hpp"

namespace kflow::linalg::detail {

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
  constexpr bool gpu = on_gpu<ExecSpace>;
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

}  // namespace kflow::linalg::detail
