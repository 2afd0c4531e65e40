#pragma once
// Multigrid's options (multigrid.hpp), apart so that case parsers can hold
// them without Kokkos.

#include <cstdio>
#include <string>
#include <utility>

#include "kflow/linalg/options.hpp"

namespace kflow::linalg {

enum class MgCycle { v, w, f };
enum class MgSmoother { rbgs, jacobi, chebyshev };
enum class MgCoarse { sweeps, cg };

template <>
struct EnumNames<MgCycle> {
  static constexpr const char* what = "multigrid cycle";
  static constexpr std::pair<MgCycle, const char*> table[] = {
      {MgCycle::v, "V"}, {MgCycle::w, "W"}, {MgCycle::f, "F"}};
};
template <>
struct EnumNames<MgSmoother> {
  static constexpr const char* what = "multigrid smoother";
  static constexpr std::pair<MgSmoother, const char*> table[] = {
      {MgSmoother::rbgs, "rbgs"},
      {MgSmoother::jacobi, "jacobi"},
      {MgSmoother::chebyshev, "chebyshev"}};
};
template <>
struct EnumNames<MgCoarse> {
  static constexpr const char* what = "multigrid coarsest-level solver";
  static constexpr std::pair<MgCoarse, const char*> table[] = {{MgCoarse::sweeps, "sweeps"},
                                                               {MgCoarse::cg, "cg"}};
};

struct MgOptions {
  MgCycle cycle = MgCycle::v;
  MgSmoother smoother = MgSmoother::rbgs;
  int pre_sweeps = 2, post_sweeps = 2;
  // Red-black Gauss-Seidel's relaxation factor (over-relaxed smoothing, as
  // Yavneh 1996 analyses for red-black SOR in multigrid).  1.15 saves one or
  // two cycles to 1e-6 in 2D and 3D (3D V(2,2): 8 -> 6); the
  // cycle stays symmetric for any value in (0, 2), so CG may use it.
  double smoother_omega = 1.15;
  // Weighted Jacobi's weight; 0: 4/5 (2D), 6/7 (3D), the weights that damp
  // the high frequencies of the Laplacian best.
  double jacobi_weight = 0;
  // Chebyshev: the smoothed part of the spectrum of D^-1 A is [lambda_max /
  // ratio, lambda_max] (lambda_max: Gershgorin's bound per level).  6: the
  // best V(2,2)-cycles measured on the Poisson problem.
  double chebyshev_ratio = 6;
  // The coarsest level: red-black SOR iterations (`coarse_sweeps` of them;
  // 0: 2 max(n) + 2) or conjugate gradients to rounding, on one team.
  MgCoarse coarse = MgCoarse::sweeps;
  int coarse_sweeps = 0;
  // The levels from the first with at most `team_cells` cells down to the
  // coarsest are cycled in one kernel by one team (detail/mg_team.hpp), the
  // finest level never; 0: a kernel per step on every level; -1: 1024 on
  // GPUs (1026^2 Poisson on the H100: 5.01 -> 4.08 ms), 0 on CPUs (no gain).
  long team_cells = -1;
  int max_levels = 30;
};

inline std::string shortest(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// "V(2,2) rbgs": the cycle, sweeps and smoother (solver names, run notes).
// With " (relaxation W)" where rbgs's factor is not 1.15, ", coarsest cg" and
// ", team <= N cells" where chosen.
inline std::string describe(const MgOptions& o) {
  return std::string(name(o.cycle)) + "(" + std::to_string(o.pre_sweeps) + "," +
         std::to_string(o.post_sweeps) + ") " + name(o.smoother) +
         (o.smoother == MgSmoother::rbgs && o.smoother_omega != 1.15
              ? " (relaxation " + shortest(o.smoother_omega) + ")"
              : "") +
         (o.coarse == MgCoarse::cg ? ", coarsest cg" : "") +
         (o.team_cells > 0 ? ", team <= " + std::to_string(o.team_cells) + " cells" : "");
}

}  // namespace kflow::linalg
