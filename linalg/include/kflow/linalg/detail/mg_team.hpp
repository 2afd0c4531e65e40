#pragma once
// Multigrid's cycle as a list of steps, and its coarse levels cycled by one
// team in one kernel (multigrid.hpp).  A cycle is recorded once per cycle
// type (mg_record: pre-smoothing, residual and restriction, the coarsest
// solve, prolongation and post-smoothing per level, in the order of the
// recursion) and run by the host, one kernel per step, except from the
// level MgOptions::team_cells picks down to the coarsest, which is one
// step: one team runs those levels' steps as loops of its threads over a
// level's cells separated by barriers (MgTeamCycle), because on GPUs a
// kernel on a few thousand cells costs its launch.  Each step calls the
// per-cell kernels of mg_kernels.hpp and rbsor.hpp, so that every cell gets
// the arithmetic of the per-level kernels.  The coarsest level: red-black
// SOR iterations or conjugate gradients to rounding (its mean removed when
// the system is singular), on the team.

#include <Kokkos_Core.hpp>

#include <vector>

#include "kflow/linalg/detail/mg_kernels.hpp"
#include "kflow/linalg/mg_options.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/rbsor.hpp"

namespace kflow::linalg::detail {

// A step: its kind and level (for mg_team, the cycle type), as kind + 8 level.
enum MgStepKind : int { mg_pre, mg_down, mg_coarsest, mg_up, mg_post, mg_team };
constexpr int mg_step(int kind, int level) {
  return kind + 8 * level;
}

// Appends the steps of a cycle of `type` entered at level l of `levels` (the
// last is the coarsest); at level `team` (< levels) one mg_team step stands
// for that level's cycle and everything below it.
inline void mg_record(std::vector<int>& p, int l, int levels, int team, MgCycle type) {
  if (l == team) {
    p.push_back(mg_step(mg_team, int(type)));
    return;
  }
  if (l + 1 == levels) {
    p.push_back(mg_step(mg_coarsest, l));
    return;
  }
  p.push_back(mg_step(mg_pre, l));
  p.push_back(mg_step(mg_down, l));
  const bool coarsest = l + 2 == levels;
  mg_record(p, l + 1, levels, team, type);
  if (type == MgCycle::w && !coarsest) mg_record(p, l + 1, levels, team, MgCycle::w);
  if (type == MgCycle::f && !coarsest) mg_record(p, l + 1, levels, team, MgCycle::v);
  p.push_back(mg_step(mg_up, l));
  p.push_back(mg_step(mg_post, l));
}

template <class Op, class F>
struct MgTeamLevel {
  Op op;
  F x, b, r;
  MgIndex index;  // its cells, and against the next finer level
};

// The steps of `program` on levels first .. first + count - 1 (the last the
// coarsest), by one team.
template <class ExecSpace, int Dim, class Op, class F>
struct MgTeamCycle {
  using Real = typename F::value_type;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using memory_space = typename ExecSpace::memory_space;
  using Level = MgTeamLevel<Op, F>;
  static constexpr int max_levels = 8;

  Kokkos::Array<Level, max_levels> lv;
  int first = 0, count = 0;
  Kokkos::View<const int*, memory_space> program;
  bool rbgs = true;
  int pre = 2, post = 2, post_first = 0;
  Kokkos::View<const Real**, memory_space> steps;  // (level - first, 2 s + {0, 1}): a, c
  bool coarse_cg = false;
  int coarse_iterations = 1;
  Real coarse_omega = 1;
  Real smoother_omega = 1;  // red-black smoothing's factor (MgOptions)
  double inv_cells = 0;     // CG: 1 / the coarsest system's cells where singular, else 0
  double tolerance2 = 0;    // CG: stop at |r|^2 <= tolerance2 |r0|^2
  F p, q;                   // CG: direction and A p on the coarsest level

  // f at cell c of a level (c = i - 1 + nx (j - 1 [+ ny (k - 1)])).
  template <class Fn>
  KOKKOS_INLINE_FUNCTION static auto at(const MgIndex& ix, int c, const Fn& f) {
    const int i = 1 + c % ix.n[0], rest = c / ix.n[0];
    if constexpr (Dim == 2)
      return f(i, 1 + rest);
    else
      return f(i, 1 + rest % ix.n[1], 1 + rest / ix.n[1]);
  }
  KOKKOS_INLINE_FUNCTION static int cells(const MgIndex& ix) {
    return ix.n[0] * ix.n[1] * (Dim == 3 ? ix.n[2] : 1);
  }
  // f(i, j[, k]) on every cell of a level, then a barrier.
  template <class Fn>
  KOKKOS_INLINE_FUNCTION void each(const Member& t, const MgIndex& ix, const Fn& f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, cells(ix)), [&](int c) { at(ix, c, f); });
    t.team_barrier();
  }
  // The sum of f(i, j[, k]) over a level (every thread gets it).
  template <class Fn>
  KOKKOS_INLINE_FUNCTION double sum(const Member& t, const MgIndex& ix, const Fn& f) const {
    double s = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(t, cells(ix)), [&](int c, double& acc) { acc += at(ix, c, f); }, s);
    t.team_barrier();
    return s;
  }
  // One colour of red-black SOR (red: i + j [+ k] even), as rb_sweep.
  KOKKOS_INLINE_FUNCTION void colour(const Member& t, const Level& L, Real omega, int c) const {
    const int nx = L.index.n[0], ny = L.index.n[1], half = (nx + 1) / 2;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, half * ny * (Dim == 3 ? L.index.n[2] : 1)),
                         [&](int m) {
                           const int ii = m % half, rest = m / half;
                           if constexpr (Dim == 2) {
                             const int j = 1 + rest, i = 1 + ((1 + j + c) & 1) + 2 * ii;
                             if (i <= nx) sor_update(L.op, L.x, L.b, omega, i, j);
                           } else {
                             const int j = 1 + rest % ny, k = 1 + rest / ny;
                             const int i = 1 + ((1 + j + k + c) & 1) + 2 * ii;
                             if (i <= nx) sor_update(L.op, L.x, L.b, omega, i, j, k);
                           }
                         });
    t.team_barrier();
  }
  KOKKOS_INLINE_FUNCTION void smooth(const Member& t, int l, int sweeps, int first_colour) const {
    const Level& L = lv[l];
    for (int s = 0; s < sweeps; ++s) {
      if (rbgs) {
        colour(t, L, smoother_omega, first_colour);
        colour(t, L, smoother_omega, 1 - first_colour);
      } else {
        each(t, L.index,
             MgCorrection<Op, F, F, F>{L.op, L.x, L.b, L.r, steps(l, 2 * s), steps(l, 2 * s + 1)});
        each(t, L.index, MgAdd<F, F>{L.x, L.r});
      }
    }
  }
  KOKKOS_INLINE_FUNCTION void down(const Member& t, int l) const {
    const Level &L = lv[l], &C = lv[l + 1];
    each(t, L.index, Residual<Op, F, F, F>{L.op, L.x, L.b, L.r});
    const MgRestrict<Dim, Op, F, decltype(C.op.cp), F> restrict_to{L.op, L.r, C.op.cp, C.b,
                                                                   C.index};
    each(t, C.index, [&](auto... c) {
      restrict_to(c...);
      C.x(c...) = 0;
    });
  }
  KOKKOS_INLINE_FUNCTION void up(const Member& t, int l) const {
    const Level &L = lv[l], &C = lv[l + 1];
    each(t, L.index,
         MgProlongAdd<Dim, Op, F, decltype(C.op.cp), F>{L.op, L.x, C.op.cp, C.x, C.index});
  }
  KOKKOS_INLINE_FUNCTION void coarsest(const Member& t) const {
    const Level& L = lv[count - 1];
    if (!coarse_cg) {  // red-black ... red, as multigrid.hpp's per-level kernels
      for (int s = 0; s < coarse_iterations; ++s) {
        colour(t, L, coarse_omega, 0);
        colour(t, L, coarse_omega, 1);
      }
      colour(t, L, coarse_omega, 0);
      return;
    }
    const auto &x = L.x, &r = L.r;
    const auto& cp = L.op.cp;
    each(t, L.index, Residual<Op, F, F, F>{L.op, x, L.b, r});
    const Real mean =
        inv_cells > 0
            ? Real(sum(t, L.index, [&](auto... c) { return double(r(c...)); }) * inv_cells)
            : Real(0);
    double rr = sum(t, L.index, [&](auto... c) {
      const Real v = cp(c...) != 0 ? r(c...) - mean : Real(0);
      r(c...) = v, p(c...) = v;
      return double(v) * double(v);
    });
    const double stop = rr * tolerance2;
    for (int it = 0; it < coarse_iterations && rr > stop; ++it) {
      const double pq = sum(t, L.index, [&](auto... c) {
        const Real a = cp(c...) != 0 ? Real(apply_at(L.op, p, c...)) : Real(0);
        q(c...) = a;
        return double(p(c...)) * double(a);
      });
      if (!(pq != 0)) break;  // the operators may be negative definite (c.p < 0)
      const Real alpha = Real(rr / pq);
      const double next = sum(t, L.index, [&](auto... c) {
        x(c...) += alpha * p(c...);
        r(c...) -= alpha * q(c...);
        return double(r(c...)) * double(r(c...));
      });
      const Real beta = Real(next / rr);
      rr = next;
      each(t, L.index, [&](auto... c) { p(c...) = r(c...) + beta * p(c...); });
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& t) const {
    for (int s = 0; s < int(program.extent(0)); ++s) {
      const int kind = program(s) % 8, l = program(s) / 8 - first;
      if (kind == mg_pre) smooth(t, l, pre, 0);
      if (kind == mg_down) down(t, l);
      if (kind == mg_coarsest) coarsest(t);
      if (kind == mg_up) up(t, l);
      if (kind == mg_post) smooth(t, l, post, post_first);
    }
  }
};

}  // namespace kflow::linalg::detail
