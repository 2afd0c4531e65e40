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
// max_iterations.  Breakdown (p.Ap <= 0) or non-finite values end the solve
// unconverged.
//
// Each dot product returns its value to the host (Kokkos Kernels' scalar
// interface): 2 synchronisations per iteration, unlike cg.hpp's none.

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrminf.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/crs.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::linalg {

template <class ExecSpace, class Op>
class KkConjugateGradient : public Solver<ExecSpace, typename Op::real_type, Op::dim> {
 public:
  using Real = typename Op::real_type;
  static constexpr int Dim = Op::dim;
  using Base = Solver<ExecSpace, Real, Dim>;
  using memory_space = typename ExecSpace::memory_space;
  using V = Kokkos::View<Real*, memory_space>;

  KkConjugateGradient(const ExecSpace& space, const Op& op,
                      CgPreconditioner pre = CgPreconditioner::jacobi)
      : space_(space), grid_(op.grid), pre_(pre) {
    if (pre_ == CgPreconditioner::mg)
      throw std::invalid_argument(
          "kk_cg: preconditioner 'mg' is matrix-free only (cg); kk_cg takes none or jacobi");
    if (op.grid.dim != Dim)
      throw std::invalid_argument("kk_cg: a " + std::to_string(Dim) + "D solver on a " +
                                  std::to_string(op.grid.dim) + "D grid");
    const detail::CgOperatorInfo info = detail::cg_operator_info(space_, op);
    if (info.positive > 0 && info.negative > 0)
      throw std::invalid_argument(
          "kk_cg: the diagonal has both signs: the operator is not definite");
    const double eps = 64 * double(std::numeric_limits<Real>::epsilon());
    if (!(info.asymmetry <= eps))
      throw std::invalid_argument("kk_cg: the operator is not symmetric (relative difference " +
                                  std::to_string(info.asymmetry) +
                                  ", or a non-zero coefficient to a cell outside the system)");
    cells_ = info.cells();
    sign_ = info.negative > 0 ? Real(-1) : Real(1);
    singular_ = info.singular(eps);

    A_ = make_crs(space_, op);
    KokkosBlas::scal(space_, A_.values, sign_, A_.values);  // s A
    const int n = A_.numRows();
    auto vec = [&](const std::string& label) {
      return V(Kokkos::view_alloc(space_, label), n);
    };
    x_ = vec("kflow::kk_cg::x"), b_ = vec("kflow::kk_cg::b"), r_ = vec("kflow::kk_cg::r");
    z_ = vec("kflow::kk_cg::z"), p_ = vec("kflow::kk_cg::p"), q_ = vec("kflow::kk_cg::q");
    in_ = vec("kflow::kk_cg::in_system"), dinv_ = vec("kflow::kk_cg::dinv");
    crs_diagonal(space_, op, in_, dinv_, sign_);  // 1 / (s c.p)
    space_.fence("kflow::linalg::kk_cg::setup");
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    SolveStats s;
    if (cells_ == 0) {
      s.converged = true;
      s.criterion = 0;
      return s;
    }
    const bool checks = c.tolerance > 0;
    const bool residual_rule = c.criterion == Criterion::residual;
    const int every = c.check_every > 1 ? c.check_every : 1;
    gather_rows(space_, grid_, x, x_);
    gather_rows(space_, grid_, b, b_);
    KokkosBlas::mult(space_, Real(0), b_, Real(1), in_, b_);  // b = 0 outside the system
    double scale = 1;
    if (checks && residual_rule) {
      scale = double(KokkosBlas::nrminf(space_, b_));
      if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
    }
    if (singular_) {
      const double mean = double(KokkosBlas::dot(space_, b_, in_)) / double(cells_);
      KokkosBlas::axpby(space_, Real(-mean), in_, Real(1), b_);
    }
    KokkosBlas::scal(space_, b_, sign_, b_);  // s b
    // r = s b - s A x, z = M r, p = z; returns r.z.
    auto restart = [&]() {
      Kokkos::deep_copy(space_, r_, b_);
      KokkosSparse::spmv(space_, "N", Real(-1), A_, x_, Real(1), r_);
      precondition();
      Kokkos::deep_copy(space_, p_, z_);
      return double(KokkosBlas::dot(space_, r_, z_));
    };
    double rz = restart();
    for (int k = 1; k <= c.max_iterations; ++k) {
      check_stop();
      KokkosSparse::spmv(space_, "N", Real(1), A_, p_, Real(0), q_);
      const double pq = double(KokkosBlas::dot(space_, p_, q_));
      if (!(pq > 0) || !(pq < HUGE_VAL)) {
        s.iterations = k;
        s.criterion = HUGE_VAL;
        break;  // breakdown
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
    scatter_rows(space_, grid_, x_, x);
    space_.fence("kflow::linalg::kk_cg::solve");
    return s;
  }

  std::string name() const override { return std::string("kk_cg (") + linalg::name(pre_) + ")"; }
  // The assembled s A (s = sign()).
  const CrsMatrix<Real, ExecSpace>& matrix() const { return A_; }
  bool singular() const { return singular_; }
  double sign() const { return double(sign_); }

 private:
  void precondition() {
    if (pre_ == CgPreconditioner::jacobi)
      KokkosBlas::mult(space_, Real(0), z_, Real(1), dinv_, r_);
    else
      Kokkos::deep_copy(space_, z_, r_);
  }

  ExecSpace space_;
  Grid grid_;
  CgPreconditioner pre_;
  long cells_ = 0;
  Real sign_ = -1;
  bool singular_ = false;
  CrsMatrix<Real, ExecSpace> A_;
  V x_, b_, r_, z_, p_, q_, in_, dinv_;
};

}  // namespace kflow::linalg
