#pragma once
// Multigrid's options (multigrid.hpp), apart so that case parsers can hold
// them without Kokkos.

#include <string>
#include <utility>

#include "kflow/linalg/options.hpp"

namespace kflow::linalg {

enum class MgCycle { v, w, f };
enum class MgSmoother { rbgs, jacobi, chebyshev };

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

struct MgOptions {
  MgCycle cycle = MgCycle::v;
  MgSmoother smoother = MgSmoother::rbgs;
  int pre_sweeps = 2, post_sweeps = 2;
  // Weighted Jacobi's weight; 0: 4/5 (2D), 6/7 (3D), the weights that damp
  // the high frequencies of the Laplacian best.
  double jacobi_weight = 0;
  // Chebyshev: the smoothed part of the spectrum of D^-1 A is [lambda_max /
  // ratio, lambda_max] (lambda_max: Gershgorin's bound per level).  6: the
  // best V(2,2)-cycles measured on the Poisson problem (docs/linalg.md).
  double chebyshev_ratio = 6;
  // Red-black SOR iterations on the coarsest level; 0: 2 max(n) + 2.
  int coarse_sweeps = 0;
  int max_levels = 30;
};

// "V(2,2) rbgs": the cycle, sweeps and smoother (solver names, run notes).
inline std::string describe(const MgOptions& o) {
  return std::string(name(o.cycle)) + "(" + std::to_string(o.pre_sweeps) + "," +
         std::to_string(o.post_sweeps) + ") " + name(o.smoother);
}

}  // namespace kflow::linalg
