#pragma once
// The moments of physics/lbm's post-collision populations (the output, the
// outflow, the probes): density and velocity with Guo's half force taken off.

#include <Kokkos_Core.hpp>

#include "lbm_geometry.hpp"

namespace kflow::lbm {

// Density and velocity (lattice units) from post-collision populations:
// rho = sum f*, rho u = sum c f* - F/2 (Guo forcing: the collision adds F).
template <class L, class Real>
KOKKOS_INLINE_FUNCTION void moments(const Real f[L::Q], const Geometry<Real>& g, Real& rho,
                                    Real u[3]) {
  rho = 0;
  u[0] = u[1] = u[2] = 0;
  KFLOW_LBM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    rho += f[i];
    for (int d = 0; d < 3; ++d) u[d] += Real(L::c(i, d)) * f[i];
  }
  for (int d = 0; d < 3; ++d) u[d] = (u[d] - Real(0.5) * g.force[d]) / rho;
}

}  // namespace kflow::lbm
