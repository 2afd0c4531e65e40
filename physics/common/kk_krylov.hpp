#pragma once
// Kokkos Kernels' Krylov solvers (linalg/kk_cg.hpp, linalg/kk_gmres.hpp) on
// the models' operators, declared here and compiled once per (backend,
// precision) in their own translation units (kk_krylov_impl.hpp), not inside
// every model: Kokkos Kernels' templates (CRS assembly, spmv, the BLAS
// kernels) otherwise doubled the compile time of each model that offers
// them.  Only where Kokkos Kernels is in the build (KFLOW_HAVE_KOKKOSKERNELS).

#include <memory>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::kk {

struct KrylovOptions {
  bool gmres = false;  // KkGmres; otherwise KkConjugateGradient
  linalg::CgPreconditioner preconditioner = linalg::CgPreconditioner::jacobi;  // none or jacobi
  int restart = 50;    // GMRES: Krylov vectors before a restart
  int ilu_level = -1;  // GMRES: >= 0 for ILU(ilu_level) instead of `preconditioner`
};

// Instantiated for linalg::Laplace5<Real, Mem> and linalg::Uniform5<Real>
// (double and float) and linalg::Stencil7<double, Mem> on every backend.
template <class ExecSpace, class Op>
struct Krylov {
  using SolverPtr = std::unique_ptr<linalg::Solver<ExecSpace, typename Op::real_type, Op::dim>>;
  static SolverPtr make(const ExecSpace& space, const Op& op, const KrylovOptions& o);
};

}  // namespace kflow::kk
