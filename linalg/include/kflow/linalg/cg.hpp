#pragma once
// Preconditioned conjugate gradients for the symmetric 5-point (stencil.hpp)
// and 7-point (stencil7.hpp) operators (operator.hpp), behind the Solver
// interface (solver.hpp).  Options: CgOptions at construction.
//
// Sign convention.  The operators store the matrix entries themselves, so
// the Laplacian is negative (semi)definite (c.p < 0).  CG runs on
// s A x = s b with s = -1 when the diagonal is negative (s = +1 when it is
// positive); a diagonal of both signs, or an operator that is not symmetric
// (c.e at P differs from c.w at P's east neighbour, ...), is rejected by the
// constructor.  Cells with c.p == 0 are not part of the system (obstacles):
// their value of x is left alone.
//
// Singular systems.  When every row of the system sums to zero (pure
// Neumann, periodic: the constants are in the null space; detected by the
// constructor with a relative tolerance of 64 machine epsilons of Real), CG
// solves the compatible system A x = b - mean(b), the mean taken over the
// cells of the system, and the residual criterion measures that system's
// residual.  (mac2d projects its right-hand side with outflow sides anyway;
// with only walls it is compatible up to rounding.)  The constant part of x
// is whatever the iteration leaves (that of the initial guess with no
// preconditioner).  With several disconnected regions the right-hand side
// must be compatible in each region: only the global mean is removed.
//
// Preconditioners: none, Jacobi (z = r / diag), or one multigrid cycle
// (multigrid.hpp; z = M r from z = 0, with symmetric red-black smoothing so
// that M is symmetric positive definite: one extra pass per iteration for
// r.z, and the cycle).
//
// Stopping (SolveControl):
//   residual  max |b - A x| / max |b| (absolute where b = 0), as for
//             red-black SOR and SIP.  Every check_every iterations the
//             max-norm of the recursively updated residual r is read (it is
//             reduced in the update kernel, no extra pass); when it reaches
//             the tolerance (or at the last iteration) the true residual
//             b - A x is computed and decides.  If the true residual has not
//             reached the tolerance, r is replaced by it and CG restarts
//             from the steepest-descent direction (residual replacement).
//   change    max |x^(k) - x^(k-1)| = |alpha_k| max |p_k|, the definition of
//             solver.hpp, reduced in the update kernel.  Unlike SOR's
//             correction it says little about the error (CG's steps are not
//             monotone); the residual criterion is the one to use for CG.
//   tolerance 0 runs exactly max_iterations with no host synchronisation.
// A breakdown (p.Ap <= 0 or non-finite values seen at a check, before
// convergence) ends the solve with converged = false.
//
// GPU efficiency.  No host synchronisation between checks: alpha and beta
// are computed by every thread from reduction results that stay in device
// memory; the host reads them at convergence checks only.
//   none, Jacobi on GPUs  one pass and one reduction an iteration: the
//              single-reduction form of Chronopoulos & Gear (1989), with
//              z = M r computed on the fly at the cell and its neighbours
//              (detail::CgFused: r, s = A p and w = A z double buffered).
//              Mathematically CG; the two passes below took 1.4x as long on
//              the H200, but on CPUs the fused pass is the slower one
//              (measured), so CPUs run the two passes.
//   multigrid, and none / Jacobi on CPUs  two passes (z = M r, where
//              stored, needs the whole r):
//     direction  p_new = z + beta p_old at the cell and its neighbours,
//                q = s A p_new, reduces p_new.q;
//     update     alpha = (r.z) / (p.q), x += alpha p, r -= alpha q, reduces
//                max |r|, max |alpha p|; then the cycle and r.z.

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kflow/linalg/detail/cg_kernels.hpp"
#include "kflow/linalg/multigrid.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/options.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::linalg {

enum class CgPreconditioner { none, jacobi, mg };

template <>
struct EnumNames<CgPreconditioner> {
  static constexpr const char* what = "CG preconditioner";
  static constexpr std::pair<CgPreconditioner, const char*> table[] = {
      {CgPreconditioner::none, "none"},
      {CgPreconditioner::jacobi, "jacobi"},
      {CgPreconditioner::mg, "mg"}};
};

struct CgOptions {
  CgOptions() = default;
  CgOptions(CgPreconditioner p, const MgOptions& m = {}) : preconditioner(p), mg(m) {}  // NOLINT
  CgPreconditioner preconditioner = CgPreconditioner::jacobi;
  MgOptions mg;  // the multigrid preconditioner's (smoother rbgs for a symmetric M)
};

template <class ExecSpace, class Op>
class ConjugateGradient : public Solver<ExecSpace, typename Op::real_type, Op::dim> {
 public:
  using Real = typename Op::real_type;
  static constexpr int Dim = Op::dim;
  using Base = Solver<ExecSpace, Real, Dim>;
  using memory_space = typename ExecSpace::memory_space;
  using F = Field<Real, Dim, memory_space>;
  using Sums = Kokkos::View<detail::CgSums*, memory_space>;

  ConjugateGradient(const ExecSpace& space, const Op& op, const CgOptions& options = {})
      : space_(space), op_(op), pre_(options.preconditioner) {
    if (pre_ == CgPreconditioner::mg && options.mg.smoother == MgSmoother::jacobi)
      throw std::invalid_argument(
          "CG: the multigrid preconditioner needs the rbgs or chebyshev smoother (weighted "
          "Jacobi would also be symmetric, but only those two are checked)");
    if (op.grid.dim != Dim)
      throw std::invalid_argument("CG: a " + std::to_string(Dim) + "D solver on a " +
                                  std::to_string(op.grid.dim) + "D grid");
    const detail::CgOperatorInfo info = detail::cg_operator_info(space_, op_);
    if (info.positive > 0 && info.negative > 0)
      throw std::invalid_argument(
          "CG: the diagonal has both signs (" + std::to_string(info.positive) + " positive, " +
          std::to_string(info.negative) +
          " negative entries): the operator is not definite; use red-black SOR or SIP");
    const double eps = 64 * double(std::numeric_limits<Real>::epsilon());
    if (!(info.asymmetry <= eps))
      throw std::invalid_argument(
          "CG: the operator is not symmetric (relative difference " +
          std::to_string(info.asymmetry) +
          " between a coefficient and its neighbour's mirror entry, or a non-zero coefficient "
          "to a cell outside the system); use red-black SOR or SIP");
    cells_ = info.cells();
    sign_ = info.negative > 0 ? Real(-1) : Real(1);
    singular_ = info.singular(eps);
    const Grid& g = op.grid;
    r_[0] = make_field<Real, Dim>(space_, "kflow::cg::r0", g);
    p_[0] = make_field<Real, Dim>(space_, "kflow::cg::p0", g);
    if (pre_ == CgPreconditioner::mg || !on_gpu<ExecSpace>) {
      q_ = make_field<Real, Dim>(space_, "kflow::cg::q", g);
      p_[1] = make_field<Real, Dim>(space_, "kflow::cg::p1", g);
    } else {
      r_[1] = make_field<Real, Dim>(space_, "kflow::cg::r1", g);
      for (int k = 0; k < 2; ++k) {
        s_[k] = make_field<Real, Dim>(space_, "kflow::cg::s", g);
        w_[k] = make_field<Real, Dim>(space_, "kflow::cg::w", g);
      }
    }
    if (pre_ == CgPreconditioner::jacobi) {
      dinv_ = make_field<Real, Dim>(space_, "kflow::cg::dinv", g);
      detail::cg_diagonal(space_, op_, dinv_, sign_);
    } else if (pre_ == CgPreconditioner::mg) {
      dinv_ = make_field<Real, Dim>(space_, "kflow::cg::z", g);  // holds z
      mg_ = std::make_unique<Multigrid<ExecSpace, Op>>(space_, op_, options.mg);
    }
    // Slots: 0, 1, 2 r.z (and w.z) of successive iterations; 3 the
    // right-hand side; 4 p.q; 5, 6, 7 the fused iterations' alpha beside
    // 0, 1, 2 (one copy to the host reads them all).
    sums_ = Sums(Kokkos::view_alloc(space_, "kflow::cg::sums"), 8);
    host_ = Kokkos::create_mirror_view(Kokkos::HostSpace(), sums_);
    space_.fence("kflow::linalg::cg::setup");
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    Kokkos::Profiling::ScopedRegion region("kflow::linalg::cg");
    if (pre_ == CgPreconditioner::jacobi) return run<detail::CgZ::jacobi>(x, b, c);
    if (pre_ == CgPreconditioner::mg) return run<detail::CgZ::stored>(x, b, c);
    return run<detail::CgZ::none>(x, b, c);
  }

  // Replaces the operator by one of the same structure (the same cells in
  // the system, symmetric, the same sign of the diagonal): e.g. I - dt k lap
  // for a new dt.  Not checked; recomputes the Jacobi diagonal (allocates
  // nothing) or rebuilds the multigrid hierarchy (allocates).
  void set_operator(const Op& op) {
    op_ = op;
    if (pre_ == CgPreconditioner::jacobi) detail::cg_diagonal(space_, op_, dinv_, sign_);
    if (pre_ == CgPreconditioner::mg)
      mg_ = std::make_unique<Multigrid<ExecSpace, Op>>(space_, op_, mg_->options());
  }

  std::string name() const override {
    if (mg_) return "cg (" + mg_->name() + ")";
    return std::string("cg (") + linalg::name(pre_) + ")";
  }
  // The multigrid preconditioner (null unless preconditioner = mg).
  const Multigrid<ExecSpace, Op>* multigrid() const { return mg_.get(); }
  CgPreconditioner preconditioner() const { return pre_; }
  // Whether the constants are in the null space (the right-hand side is
  // projected).
  bool singular() const { return singular_; }
  // +1 or -1: CG runs on sign * A (positive definite).
  double sign() const { return double(sign_); }

 private:
  template <detail::CgZ J>
  SolveStats run(const typename Base::X& x, const typename Base::B& b, const SolveControl& c) {
    using XV = typename Base::X;
    using BV = typename Base::B;
    SolveStats s;
    if (cells_ == 0) {
      s.converged = true;
      s.criterion = 0;
      return s;
    }
    const Grid& g = op_.grid;
    const bool checks = c.tolerance > 0;
    const bool residual_rule = c.criterion == Criterion::residual;
    const int every = std::max(1, c.check_every);
    constexpr int rhs = 3, pq_slot = 4, alpha_slot = 5;
    auto slot = [&](int k) {
      return Kokkos::View<detail::CgSums, memory_space>(&sums_.data()[k]);
    };
    auto read = [&](int k) {
      Kokkos::deep_copy(space_, host_, sums_);
      space_.fence("kflow::linalg::cg::check");
      return host_(k);
    };
    double scale = 1;
    if (singular_ || (checks && residual_rule)) {
      detail::cg_reduce<Dim>(space_, "kflow::linalg::cg::rhs", g, detail::CgRhs<Op, BV>{op_, b},
                             detail::CgReducer<memory_space>(slot(rhs)));
      if (checks && residual_rule) {
        scale = read(rhs).rmax;
        if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
      }
    }
    const double inv_cells = singular_ ? 1.0 / double(cells_) : 0.0;
    // The fused pass on GPUs; CPUs run the two passes (measured faster
    // there).
    constexpr bool fused = J != detail::CgZ::stored && on_gpu<ExecSpace>;
    int rb = 0;  // the fused iteration's current buffer of r, s, w
    // A stored z: z = M r and r.z into slot `k` (its max |r| kept).
    auto precondition = [&](int k) {
      if constexpr (J == detail::CgZ::stored) {
        mg_->precondition(dinv_, r_[0]);
        if (singular_)
          detail::cg_reduce<Dim>(space_, "kflow::linalg::cg::z_sum", g,
                                 detail::CgSystemSum<Op, F>{op_, dinv_},
                                 Kokkos::Sum<double, memory_space>(
                                     Kokkos::View<double, memory_space>(&sums_.data()[k].delta)));
        detail::cg_reduce<Dim>(
            space_, "kflow::linalg::cg::rz", g,
            detail::CgStoredDot<Op, F, Sums>{op_, r_[0], dinv_, sums_, k, inv_cells, sign_},
            Kokkos::Sum<double, memory_space>(
                Kokkos::View<double, memory_space>(&sums_.data()[k].dot)));
      }
    };
    // One fused pass from slot `cur` (gamma_{i-1} in `prev`) into `next`.
    auto fused_pass = [&](int cur, int prev, int next, bool init, bool restart) {
      detail::cg_reduce<Dim>(
          space_, init ? "kflow::linalg::cg::fused_init" : "kflow::linalg::cg::fused", g,
          detail::CgFused<J, Op, XV, F, Sums>{op_, x, r_[rb], s_[rb], w_[rb], r_[1 - rb],
                                              s_[1 - rb], w_[1 - rb], p_[0], dinv_, sums_, cur,
                                              prev, alpha_slot, g.ghost, init, restart, sign_},
          detail::CgReducer<memory_space>(slot(next)), detail::cg_fused_blocks<Op>);
      rb = 1 - rb;
    };
    // r = s (b - mean - A x) into slot `k`; then z = M r (and, fused, the
    // pass that computes w = s A z and the sums).
    auto residual = [&](int k) {
      detail::cg_reduce<Dim>(space_, "kflow::linalg::cg::residual", g,
                             detail::CgResidual<J, Op, XV, BV, F, Sums>{
                                 op_, x, b, r_[rb], dinv_, sums_, rhs, inv_cells, sign_},
                             detail::CgReducer<memory_space>(slot(k)));
      if constexpr (fused)
        fused_pass(k, k, k, true, false);
      else
        precondition(k);
    };
    int prev = 0;   // the slot holding the latest r.z
    int older = 2;  // the one before (fused)
    residual(prev);
    bool restart = true;
    for (int k = 1; k <= c.max_iterations; ++k) {
      check_stop(c);
      int cur;
      if constexpr (fused) {
        cur = 3 - prev - older;  // the third slot
        fused_pass(prev, older, cur, false, restart);
        older = prev;
      } else {
        cur = 1 - prev;
        const F& pold = p_[pnew_ ^ 1];
        const F& pnew = p_[pnew_];
        detail::cg_reduce<Dim>(
            space_, "kflow::linalg::cg::direction", g,
            detail::CgDirection<J, Op, F, Sums>{op_, r_[0], dinv_, pold, pnew, q_, sums_, prev, cur,
                                                restart, sign_},
            Kokkos::Sum<double, memory_space>(
                Kokkos::View<double, memory_space>(&sums_.data()[pq_slot].dot)));
        detail::cg_reduce<Dim>(
            space_, "kflow::linalg::cg::update", g,
            detail::CgUpdate<J, XV, F, Sums>{x, pnew, q_, r_[0], dinv_, sums_, prev, pq_slot},
            detail::CgReducer<memory_space>(slot(cur)));
        precondition(cur);
        pnew_ ^= 1;
      }
      const int step_slot = prev;  // fused: alpha of this iteration sits beside it
      prev = cur;
      restart = false;
      s.iterations = k;
      const bool check = checks && (k % every == 0 || k == c.max_iterations);
      if (!check) continue;
      const detail::CgSums h = read(prev);
      // The step length's denominator p.A p: positive unless CG broke down.
      const double pq = fused ? host_(alpha_slot + step_slot).dot : host_(pq_slot).dot;
      double crit = residual_rule ? h.rmax / scale : h.dmax;
      if (residual_rule && crit < HUGE_VAL && (crit <= c.tolerance || k == c.max_iterations)) {
        // The true residual decides (and replaces r: a restart).
        residual(prev);
        crit = read(prev).rmax / scale;
        restart = true;
      }
      s.criterion = crit;
      if (!(crit < HUGE_VAL)) break;  // NaN/inf: diverged
      if (crit <= c.tolerance) {
        s.converged = true;
        break;
      }
      if (!(pq > 0) || !(pq < HUGE_VAL)) break;  // breakdown
    }
    return s;
  }

  ExecSpace space_;
  Op op_;
  CgPreconditioner pre_;
  long cells_ = 0;
  Real sign_ = -1;
  bool singular_ = false;
  // dinv_: 1 / diag (Jacobi) or z (multigrid).  Fused (none, Jacobi): r_,
  // s_, w_ double buffered, p_[0].  Multigrid: r_[0], q_, p_ double buffered.
  F r_[2], s_[2], w_[2], q_, dinv_, p_[2];
  std::unique_ptr<Multigrid<ExecSpace, Op>> mg_;
  int pnew_ = 0;
  Sums sums_;
  typename Sums::host_mirror_type host_;
};

}  // namespace kflow::linalg
