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
//                  the factorization (once) uses diagonals.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/stencil.hpp"

namespace kflow::linalg {

enum class SipOrdering { automatic, lexicographic, diagonals, pipelined };

inline const char* name(SipOrdering o) {
  switch (o) {
    case SipOrdering::lexicographic:
      return "lexicographic";
    case SipOrdering::diagonals:
      return "diagonals";
    case SipOrdering::pipelined:
      return "pipelined";
    default:
      return "auto";
  }
}

template <class Real, class MemSpace>
struct SipFactors2 {
  Field<Real, 2, MemSpace> lw, ls, lpinv, un, ue;
};

namespace kernels {

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
                while (Kokkos::atomic_load(&progress(strip - 1)) < c + 1) {
                }
                Kokkos::memory_fence();
                yprev_row = Kokkos::atomic_load(&r(i, jprev));
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
              Kokkos::atomic_store(&progress(strip), c + 1);
            }
          }
          t.team_barrier();
        }
      });
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
  Sip2(const ExecSpace& space, const Op& op, double alpha = 0.92,
       SipOrdering ordering = SipOrdering::automatic, int strip_rows = 0)
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
      ordering_ = gpu ? SipOrdering::pipelined : SipOrdering::lexicographic;
    if (gpu && ordering_ == SipOrdering::lexicographic)
      throw std::invalid_argument(
          "SIP: the lexicographic ordering runs on one thread; use "
          "diagonals or pipelined on a GPU");
    strip_rows_ = strip_rows > 0 ? strip_rows : (gpu ? 32 : 1);
    const Grid& g = op.grid;
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
    if (ordering_ == SipOrdering::lexicographic) {
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
      default:
        kernels::sip_pipelined(space_, nx, ny, strip_rows_, f_, r_, x, true, progress_, counter_);
        kernels::sip_pipelined(space_, nx, ny, strip_rows_, f_, r_, x, false, progress_, counter_);
        break;
    }
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
};

}  // namespace kflow::linalg
