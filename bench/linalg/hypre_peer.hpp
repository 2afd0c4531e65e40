#pragma once
// hypre's structured multigrid (PFMG, and CG preconditioned by one PFMG
// cycle) on a 2D 5-point system, as the peer of linalg's multigrid in
// `kflow bench poisson` (solvers hypre_pfmg, hypre_pcg).  Built only when
// CMake finds hypre and MPI (KFLOW_HAVE_HYPRE); plain host arrays, so that
// this file needs neither Kokkos nor a GPU compiler.  hypre runs as one MPI
// rank (MPI initialised here on first use, singleton) on one core.

#include <array>
#include <string>
#include <vector>

namespace kflow::linsys {

struct HypreResult {
  double setup_seconds = 0, solve_seconds = 0;
  int iterations = 0;
  double relative_l2 = 0;  // hypre's final ||r||_2 / ||b||_2
  std::string name;        // "hypre PFMG ..." with its settings
};

// Solves A x = b for the nx x ny interior cells (arrays i fastest, no
// ghosts), A given by its entries p, w, e, s, n per cell (c[0..4]; the
// Laplacian's negative diagonal is fine: hypre solves -A x = -b).  x holds
// the initial guess and receives the solution; `tol` is hypre's relative
// 2-norm tolerance.  Throws std::runtime_error on a hypre error.
HypreResult hypre_solve2(int nx, int ny, const std::array<std::vector<double>, 5>& c,
                         const std::vector<double>& b, std::vector<double>& x, double tol,
                         bool pcg);

}  // namespace kflow::linsys
