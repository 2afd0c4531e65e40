#pragma once
// The collision of physics/lbm: BGK and TRT with Guo forcing, in place on a
// cell's populations (the moments of post-collision populations:
// lbm_moments.hpp).

#include <Kokkos_Core.hpp>

#include "lbm_geometry.hpp"

namespace kflow::lbm {

// Collision in place on f (pre-collision -> post-collision): TRT in
// symmetric/antisymmetric pairs (BGK: omega_m = omega_p), Guo forcing.
// forced = false leaves the force terms out (a step is bound by instruction
// issue on GPUs: docs/performance.md); with a zero force both give the same
// bits, since every force term is then +0.
template <class L, bool forced = true, class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide(Real f[L::Q], const Geometry<Real>& g) {
  constexpr int Q = L::Q;
  Real rho = 0, j[3] = {0, 0, 0};
  KFLOW_LBM_UNROLL
  for (int i = 0; i < Q; ++i) {
    rho += f[i];
    for (int d = 0; d < 3; ++d)
      if (L::c(i, d) != 0) j[d] += L::c(i, d) > 0 ? f[i] : -f[i];
  }
  const Real inv = Real(1) / rho;
  Real u[3];
  for (int d = 0; d < 3; ++d) u[d] = forced ? (j[d] + Real(0.5) * g.force[d]) * inv : j[d] * inv;
  const Real usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const Real uf = forced ? u[0] * g.force[0] + u[1] * g.force[1] + u[2] * g.force[2] : Real(0);
  const Real op = g.omega_p, om = g.omega_m;
  const Real sp = Real(1) - Real(0.5) * op, sm = Real(1) - Real(0.5) * om;
  {
    const Real w0 = Real(L::w(0));
    const Real eq = w0 * rho * (Real(1) - Real(1.5) * usq);
    if constexpr (forced)
      f[0] += -op * (f[0] - eq) + sp * (w0 * Real(-3) * uf);
    else
      f[0] += -op * (f[0] - eq);
  }
  KFLOW_LBM_UNROLL
  for (int i = 1; i < Q; i += 2) {
    const Real w = Real(L::w(i));
    const Real cu = Real(L::c(i, 0)) * u[0] + Real(L::c(i, 1)) * u[1] + Real(L::c(i, 2)) * u[2];
    const Real eq_p = w * rho * (Real(1) + Real(4.5) * cu * cu - Real(1.5) * usq);
    const Real eq_m = w * rho * Real(3) * cu;
    const Real fp = Real(0.5) * (f[i] + f[i + 1]), fm = Real(0.5) * (f[i] - f[i + 1]);
    Real dp = -op * (fp - eq_p), dm = -om * (fm - eq_m);
    if constexpr (forced) {
      const Real cf = Real(L::c(i, 0)) * g.force[0] + Real(L::c(i, 1)) * g.force[1] +
                      Real(L::c(i, 2)) * g.force[2];
      dp += sp * (w * (Real(9) * cu * cf - Real(3) * uf));
      dm += sm * (w * Real(3) * cf);
    }
    f[i] += dp + dm;
    f[i + 1] += dp - dm;
  }
}

// The collision a step takes: without the force terms where the force is
// zero (a uniform branch: every cell of a launch takes the same one).  A GPU
// step is bound by instruction issue; on 2 CPU cores the force terms cost
// 10 % too, so the CPU line loop keeps both copies (docs/performance.md).
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide_cell(Real f[L::Q], const Geometry<Real>& g) {
  if (g.forced)
    collide<L, true>(f, g);
  else
    collide<L, false>(f, g);
}

// The collision of a checked (edge) cell: inlined on GPUs, a call on CPUs
// (lbm_step.hpp: the few cells at a line's ends).
#if defined(__CUDA_ARCH__) || !defined(__GNUC__)
#define KFLOW_LBM_CHECKED_FUNCTION KOKKOS_FORCEINLINE_FUNCTION
#else
#define KFLOW_LBM_CHECKED_FUNCTION __attribute__((noinline)) KOKKOS_FUNCTION
#endif
template <class L, class Real>
KFLOW_LBM_CHECKED_FUNCTION void collide_checked(Real f[L::Q], const Geometry<Real>& g) {
  collide_cell<L>(f, g);
}

}  // namespace kflow::lbm
