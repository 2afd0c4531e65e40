#pragma once
// The loop of every stationary iteration x^(k) = x^(k-1) + M^{-1}(b - A x^(k-1))
// (red-black SOR, SIP; 2D and 3D): SolveControl's criterion every
// check_every iterations and after the last one, the residual relative to
// max |b| (1 where b is 0 or not finite), and a NaN or infinite criterion
// ends the solve as diverged (converged = false); a stop request
// (solver.hpp) ends it between iterations.

#include <algorithm>
#include <cmath>

#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::linalg {

// `iterate(change)` runs one iteration; with change = true it returns
// max |x^(k) - x^(k-1)| (NaN as +inf), else anything.
template <class ExecSpace, class Op, class X, class B, class Iterate>
SolveStats stationary_solve(const ExecSpace& space, const Op& op, const X& x, const B& b,
                            const SolveControl& c, Iterate&& iterate) {
  SolveStats s;
  const int every = std::max(1, c.check_every);
  double scale = 1;
  if (c.tolerance > 0 && c.criterion == Criterion::residual) {
    scale = system_max_norm(space, op, b);
    if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
  }
  for (int k = 1; k <= c.max_iterations; ++k) {
    check_stop(c);
    const bool check = c.tolerance > 0 && (k % every == 0 || k == c.max_iterations);
    if (check && c.criterion == Criterion::change) {
      s.criterion = iterate(true);
    } else {
      iterate(false);
      if (check) s.criterion = residual_max_norm(space, op, x, b) / scale;
    }
    s.iterations = k;
    if (!check) continue;
    if (!(s.criterion < HUGE_VAL)) break;  // NaN/inf: diverged, not converged
    if (s.criterion <= c.tolerance) {
      s.converged = true;
      break;
    }
  }
  return s;
}

}  // namespace kflow::linalg
