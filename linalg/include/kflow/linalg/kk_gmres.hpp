#pragma once
// Restarted GMRES from Kokkos Kernels (KokkosSparse::Experimental::gmres) on
// the operator assembled as a CRS matrix (crs.hpp), behind linalg's Solver
// interface with linalg's residual stopping rule.  Unlike CG it needs no
// symmetry and no definite diagonal: any 5- or 7-point operator whose rows
// of the system have a non-zero diagonal.  Needs Kokkos Kernels (CMake
// target kflow_kokkoskernels).
//
// Cells with c.p == 0 are not part of the system (empty rows; b taken as 0
// there, their x left alone).  Singular systems (every row summing to zero)
// solve A x = b - mean(b), as CG does.  Preconditioners (right, as Kokkos
// Kernels applies them): none and Jacobi (1 / c.p).
//
// Stopping (SolveControl): the residual criterion only, max |b - A x| /
// max |b| over the system (GMRES minimises the 2-norm; a max-norm of the
// last step's change means nothing for it: std::invalid_argument).  Kokkos
// Kernels stops on ||b - A x||_2 / ||b||_2; each call runs to a 2-norm target
// (first the tolerance), then kflow computes the max-norm criterion and, if
// it is not met, calls again from the current x with a tighter target, until
// it is met, max_iterations is spent or GMRES stops making progress.
// tolerance 0 runs max_iterations.  iterations counts GMRES iterations
// (Krylov vectors) over all calls.

#include <KokkosBlas1_mult.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_Preconditioner.hpp>
#include <KokkosSparse_gmres.hpp>
#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/crs_system.hpp"
#include "kflow/linalg/kk_ilu.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::linalg {

namespace detail {
// Jacobi as a Kokkos Kernels preconditioner: Y = beta Y + alpha D^-1 X.
template <class Crs>
class KkJacobi : public KokkosSparse::Experimental::Preconditioner<Crs> {
  using Base = KokkosSparse::Experimental::Preconditioner<Crs>;
  using Real = typename Base::ScalarType;
  using Device = Kokkos::Device<typename Base::EXSP, typename Base::MEMSP>;

 public:
  explicit KkJacobi(const Kokkos::View<Real*, Device>& dinv) : dinv_(dinv) {}
  void apply(const Kokkos::View<const Real*, Device>& x, const Kokkos::View<Real*, Device>& y,
             const char* = "N", Real alpha = Real(1), Real beta = Real(0)) const override {
    KokkosBlas::mult(beta, y, alpha, dinv_, x);
  }
  void setParameters() override {}
  void initialize() override {}
  bool isInitialized() const override { return true; }
  void compute() override {}
  bool isComputed() const override { return true; }

 private:
  Kokkos::View<Real*, Device> dinv_;
};
}  // namespace detail

struct KkGmresOptions {
  CgPreconditioner preconditioner = CgPreconditioner::jacobi;  // none or jacobi
  int restart = 50;                                            // Krylov vectors before a restart
  int ilu_level = -1;  // >= 0: ILU(ilu_level) instead of `preconditioner`
};

template <class ExecSpace, class Op>
class KkGmres : public Solver<ExecSpace, typename Op::real_type, Op::dim> {
 public:
  using Real = typename Op::real_type;
  static constexpr int Dim = Op::dim;
  using Base = Solver<ExecSpace, Real, Dim>;
  using memory_space = typename ExecSpace::memory_space;
  using System = CrsSystem<ExecSpace, Op>;
  using V = typename System::V;  // the rows' vectors
  using Crs = typename System::Crs;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, Real, ExecSpace,
                                                                  memory_space, memory_space>;

  KkGmres(const ExecSpace& space, const Op& op, const KkGmresOptions& o = {})
      : space_(space), options_(checked(o)), sys_(space, op, "kk_gmres") {
    x_ = sys_.vector("kk_gmres::x"), b_ = sys_.vector("kk_gmres::b");
    r_ = sys_.vector("kk_gmres::r");
    if (o.ilu_level >= 0)
      ilu_ = std::make_unique<detail::KkIlu<Crs>>(sys_.matrix(), o.ilu_level);
    else if (o.preconditioner == CgPreconditioner::jacobi)
      jacobi_ = std::make_unique<detail::KkJacobi<Crs>>(sys_.dinv());
    space_.fence("kflow::linalg::kk_gmres::setup");
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    Kokkos::Profiling::ScopedRegion region("kflow::linalg::kk_gmres");
    if (c.criterion != Criterion::residual)
      throw std::invalid_argument(
          "kk_gmres stops on the residual criterion only (criterion = \"residual\")");
    SolveStats s;
    if (sys_.cells() == 0) {
      s.converged = true;
      s.criterion = 0;
      return s;
    }
    gather_rows(space_, sys_.grid(), x, x_);
    const double scale = sys_.load_rhs(b, b_);
    // The criterion of the current x: max |b - A x| / scale.
    auto criterion = [&]() {
      return sys_.residual(x_, b_, r_) / scale;
    };
    const int m = options_.restart;
    // Below float's or double's reach the 2-norm target stops meaning anything.
    const double floor = 4 * double(std::numeric_limits<Real>::epsilon());
    double target = std::max(c.tolerance, floor);
    double crit = criterion();
    s.criterion = crit;
    const bool checks = c.tolerance > 0;
    while (s.iterations < c.max_iterations) {
      check_stop(c);
      if (checks && crit <= c.tolerance) break;
      const int left = c.max_iterations - s.iterations;
      Handle kh;
      // Cycles of m vectors (the last one shorter) for at most `left` iterations.
      const int mm = std::min(m, left);
      kh.create_gmres_handle(mm, checks ? target : 0.0, std::max(0, (left + mm - 1) / mm - 1));
      auto* gh = kh.get_gmres_handle();
      space_.fence("kflow::linalg::kk_gmres::call");
      Crs A = sys_.matrix();  // gmres takes a non-const matrix (a shallow copy)
      KokkosSparse::Experimental::gmres(
          &kh, A, b_, x_,
          ilu_ ? static_cast<KokkosSparse::Experimental::Preconditioner<Crs>*>(ilu_.get())
               : jacobi_.get());
      ExecSpace().fence("kflow::linalg::kk_gmres::called");  // Kokkos Kernels' own instance
      const int done = gh->get_num_iters();
      // The 2-norm target already met, the max-norm criterion not: tighter.
      auto tighten = [&] {
        if (target <= floor) return false;
        target = std::max(floor, target * std::max(0.01, 0.5 * c.tolerance / crit));
        return true;
      };
      if (done == 0) {
        if (!checks || !tighten()) break;
        continue;
      }
      s.iterations += std::min(done, left);
      const double before = crit;
      crit = criterion();
      s.criterion = crit;
      if (!(crit < HUGE_VAL)) break;  // diverged
      if (!checks) continue;
      if (crit <= c.tolerance) break;
      if (!(crit < before) || !tighten()) break;  // no progress, or at the floor
    }
    s.converged = checks ? crit <= c.tolerance : false;
    scatter_rows(space_, sys_.grid(), x_, x);
    space_.fence("kflow::linalg::kk_gmres::solve");
    return s;
  }

  std::string name() const override {
    return std::string("kk_gmres(") + std::to_string(options_.restart) + ") (" +
           (ilu_ ? "ilu(" + std::to_string(options_.ilu_level) + ")"
                 : std::string(linalg::name(options_.preconditioner))) +
           ")";
  }
  const Crs& matrix() const { return sys_.matrix(); }
  // The ILU(k) factors (null unless ilu_level >= 0).
  const detail::KkIlu<Crs>* ilu() const { return ilu_.get(); }
  bool singular() const { return sys_.singular(); }

 private:
  static const KkGmresOptions& checked(const KkGmresOptions& o) {
    if (o.preconditioner == CgPreconditioner::mg)
      throw std::invalid_argument(
          "kk_gmres: preconditioner 'mg' is matrix-free only; kk_gmres takes none or jacobi");
    if (o.ilu_level < -1)
      throw std::invalid_argument("kk_gmres: ILU level " + std::to_string(o.ilu_level) +
                                  ": needs k >= 0 (or -1: no ILU)");
    if (o.restart < 1)
      throw std::invalid_argument("kk_gmres: restart " + std::to_string(o.restart) +
                                  ": needs at least 1 Krylov vector");
    return o;
  }

  ExecSpace space_;
  KkGmresOptions options_;
  System sys_;
  V x_, b_, r_;
  std::unique_ptr<detail::KkJacobi<Crs>> jacobi_;
  std::unique_ptr<detail::KkIlu<Crs>> ilu_;
};

}  // namespace kflow::linalg
