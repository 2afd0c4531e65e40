#pragma once
// The extremum of a sampled field refined by a parabola through a sample
// and its two neighbours (the models' psi_min / psi_max diagnostics).

#include <algorithm>

namespace kflow::extremum {

// Vertex of the parabola through (-1, a), (0, b), (1, c): offset (clamped to
// [-1/2, 1/2]) and value.
inline void parabola(double a, double b, double c, double& off, double& val) {
  const double den = a - 2 * b + c;
  off = den != 0 ? 0.5 * (a - c) / den : 0.0;
  off = std::clamp(off, -0.5, 0.5);
  val = b - 0.25 * (a - c) * off;
}

}  // namespace kflow::extremum
