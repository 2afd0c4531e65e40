#pragma once
// Conjugate gradients over Kokkos Kernels: the operator assembled as a CRS
// matrix (crs.hpp), every step a Kokkos Kernels call (KokkosSparse::spmv,
// KokkosBlas::dot, axpby, mult, nrminf) on 1-D vectors of the rows, behind
// linalg's Solver interface with the stopping rules of cg.hpp.  The general
// sparse peer of ConjugateGradient (cg.hpp, matrix-free, two fused kernels per
// iteration): the same iteration in exact arithmetic, so the same solution to
// the tolerance.  Needs Kokkos Kernels (CMake target kflow_kokkoskernels).
//
// Same contract as ConjugateGradient: symmetric operators with a diagonal of
// one sign (checked, std::invalid_argument otherwise); CG runs on s A x = s b
// with s = -1 for a negative diagonal; cells with c.p == 0 are not part of the
// system (their rows are empty, their x left alone); singular systems (rows
// summing to zero) solve A x = b - mean(b).  Preconditioners: none and Jacobi
// (multigrid is matrix-free only: rejected).
//
// Stopping (SolveControl): residual = max |b - A x| / max |b| over the cells
// of the system: every check_every iterations the recursive residual's
// max-norm, and when it is below the tolerance (or at the last iteration) the
// true residual b - A x, which decides and replaces r (a restart from the
// steepest-descent direction); change = |alpha| max |p|.  tolerance 0 runs
// max_iterations.  Breakdown (p.Ap < 0, or 0 with a residual above the
// tolerance) or non-finite values end the solve unconverged; p.Ap = 0 with r
// = 0 (b = 0 from x = 0, an exact guess) is convergence.
//
// Each dot product returns its value to the host (Kokkos Kernels' scalar
// interface): 2 synchronisations per iteration, unlike cg.hpp's none.

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrminf.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/crs_system.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::linalg {

template <class ExecSpace, class Op>
class KkConjugateGradient : public Solver<ExecSpace, typename Op::real_type, Op::dim> {
 public:
  using Real = typename Op::real_type;
  static constexpr int Dim = Op::dim;
  using Base = Solver<ExecSpace, Real, Dim>;
  using memory_space = typename ExecSpace::memory_space;
  using System = CrsSystem<ExecSpace, Op>;
  using V = typename System::V;  // the rows' vectors

  KkConjugateGradient(const ExecSpace& space, const Op& op,
                      CgPreconditioner pre = CgPreconditioner::jacobi)
      : space_(space), pre_(pre), sys_(space, op, "kk_cg") {
    if (pre_ == CgPreconditioner::mg)
      throw std::invalid_argument(
          "kk_cg: preconditioner 'mg' is matrix-free only (cg); kk_cg takes none or jacobi");
    const detail::CgOperatorInfo& info = sys_.info();
    if (info.positive > 0 && info.negative > 0)
      throw std::invalid_argument(
          "kk_cg: the diagonal has both signs: the operator is not definite");
    if (!(info.asymmetry <= 64 * double(std::numeric_limits<Real>::epsilon())))
      throw std::invalid_argument("kk_cg: the operator is not symmetric (relative difference " +
                                  std::to_string(info.asymmetry) +
                                  ", or a non-zero coefficient to a cell outside the system)");
    x_ = sys_.vector("kk_cg::x"), b_ = sys_.vector("kk_cg::b"), r_ = sys_.vector("kk_cg::r");
    z_ = sys_.vector("kk_cg::z"), p_ = sys_.vector("kk_cg::p"), q_ = sys_.vector("kk_cg::q");
    space_.fence("kflow::linalg::kk_cg::setup");
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    Kokkos::Profiling::ScopedRegion region("kflow::linalg::kk_cg");
    SolveStats s;
    if (sys_.cells() == 0) {
      s.converged = true;
      s.criterion = 0;
      return s;
    }
    const bool checks = c.tolerance > 0;
    const bool residual_rule = c.criterion == Criterion::residual;
    const int every = c.check_every > 1 ? c.check_every : 1;
    gather_rows(space_, sys_.grid(), x, x_);
    const double scale = sys_.load_rhs(b, b_);  // s (b - mean)
    // r = s b - s A x, z = M r, p = z; returns r.z.
    auto restart = [&]() {
      sys_.residual(x_, b_, r_);
      precondition();
      Kokkos::deep_copy(space_, p_, z_);
      return double(KokkosBlas::dot(space_, r_, z_));
    };
    double rz = restart();
    for (int k = 1; k <= c.max_iterations; ++k) {
      check_stop(c);
      KokkosSparse::spmv(space_, "N", Real(1), sys_.matrix(), p_, Real(0), q_);
      const double pq = double(KokkosBlas::dot(space_, p_, q_));
      if (!(pq > 0) || !(pq < HUGE_VAL)) {
        s.iterations = k;
        s.criterion = HUGE_VAL;
        if (pq == 0 &&
            checks) {  // p = 0 because r = 0 (b = 0, an exact guess): the residual decides
          s.criterion = residual_rule ? sys_.residual(x_, b_, r_) / scale : 0.0;
          s.converged = s.criterion <= c.tolerance;
        }
        break;  // else a breakdown
      }
      const double alpha = rz / pq;
      const bool check = checks && (k % every == 0 || k == c.max_iterations);
      double step = 0;
      if (check && !residual_rule) step = std::fabs(alpha) * double(KokkosBlas::nrminf(space_, p_));
      KokkosBlas::axpby(space_, Real(alpha), p_, Real(1), x_);
      KokkosBlas::axpby(space_, Real(-alpha), q_, Real(1), r_);
      s.iterations = k;
      bool restarted = false;
      if (check) {
        double crit = residual_rule ? double(KokkosBlas::nrminf(space_, r_)) / scale : step;
        if (residual_rule && crit < HUGE_VAL && (crit <= c.tolerance || k == c.max_iterations)) {
          rz = restart();  // the true residual decides
          restarted = true;
          crit = double(KokkosBlas::nrminf(space_, r_)) / scale;
        }
        s.criterion = crit;
        if (!(crit < HUGE_VAL)) break;  // diverged
        if (crit <= c.tolerance) {
          s.converged = true;
          break;
        }
      }
      if (restarted) continue;
      precondition();
      const double rz_new = double(KokkosBlas::dot(space_, r_, z_));
      KokkosBlas::axpby(space_, Real(1), z_, Real(rz_new / rz), p_);  // p = z + beta p
      rz = rz_new;
    }
    scatter_rows(space_, sys_.grid(), x_, x);
    space_.fence("kflow::linalg::kk_cg::solve");
    return s;
  }

  std::string name() const override { return std::string("kk_cg (") + linalg::name(pre_) + ")"; }
  // The assembled s A (s = sign()).
  const typename System::Crs& matrix() const { return sys_.matrix(); }
  bool singular() const { return sys_.singular(); }
  double sign() const { return double(sys_.sign()); }

 private:
  void precondition() {
    if (pre_ == CgPreconditioner::jacobi)
      KokkosBlas::mult(space_, Real(0), z_, Real(1), sys_.dinv(), r_);
    else
      Kokkos::deep_copy(space_, z_, r_);
  }

  ExecSpace space_;
  CgPreconditioner pre_;
  System sys_;
  V x_, b_, r_, z_, p_, q_;
};

}  // namespace kflow::linalg
