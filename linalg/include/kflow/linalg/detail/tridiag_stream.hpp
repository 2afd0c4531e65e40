#pragma once
// The GPU kernel of the register method for batches that fit a team and
// need no staging (register_stream).

#include <Kokkos_Core.hpp>

#include "kflow/linalg/detail/tridiag_rows.hpp"

namespace kflow::linalg::detail {

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
//     runs (hinting whole partitions, or this group's rows, was slower).
// Team scratch: 7 V values.
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

}  // namespace kflow::linalg::detail
