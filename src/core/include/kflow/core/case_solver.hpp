#pragma once
// Case plumbing every model with an elliptic solve shares: the multigrid
// keys of a solver table (cycle, smoother, sweeps, smoother_omega, coarse, team_cells), read and
// checked the same way in mac2d's [solver.pressure] and vorticity2d's [solver], and the
// check that a method over Kokkos Kernels has it in this build (mac2d, vorticity2d, split3d).

#include <string>

#include "kflow/core/config.hpp"
#include "kflow/linalg/mg_options.hpp"

namespace kflow {

// cycle = "V" | "W" | "F" (V), smoother = "rbgs" | "jacobi" | "chebyshev"
// (rbgs), sweeps = pre- and post-smoothing sweeps (Chebyshev: the degree)
// per level (2), smoother_omega = rbgs's relaxation factor in (0, 2) (1.15),
// coarse = "sweeps" | "cg" (the coarsest level's solve;
// sweeps), team_cells = N (the levels from the first with at most N cells
// down are cycled by one team in one kernel; 0 = none; -1, the default:
// 1024 on GPUs, 0 on CPUs).  As CG's preconditioner (`preconditioner`
// true) the cycle must be symmetric (rbgs or chebyshev, the tested ones), and a fixed iteration
// count (`fixed_count`: tolerance = 0) is refused: measured in mac2d, a doubly periodic box with 20
// fixed CG + multigrid iterations per step diverged (converged after about 8, then iterating on
// rounding noise), while 10, or a tolerance of 1e-10, were fine.
linalg::MgOptions parse_mg_options(const Config::Section& solver, bool preconditioner,
                                   bool fixed_count);

// A solver over Kokkos Kernels ("kk_cg", "kk_gmres", ...) named by `key` in a
// build without Kokkos Kernels: the configuration error (naming the file,
// key and value, and 'kflow info').  Call it after the keys such a method
// takes, so that a case's other mistakes are named alike in every build.
void require_kokkos_kernels(const Config::Section& solver, const std::string& key,
                            const std::string& method);

}  // namespace kflow
