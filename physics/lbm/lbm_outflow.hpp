#pragma once
// A pressure outflow on a side of physics/lbm: anti-bounce-back with the
// side's density (Ginzburg, Verhaeghe & d'Humieres 2008; the pressure
// condition of Izquierdo & Fueyo 2008), written before each step into the
// slots the step's halfway bounce-back reads for the side's links:
//
//   f_i(x) = -f*_opp(i)(x) + 2 w_i rho_w (1 + 9/2 (c_i . u)^2 - 3/2 u . u)
//
// for the links that come in across the side only (c_i into the domain; a
// link across an edge with a wall stays bounced back), u the cell's
// velocity from its post-collision populations (the last step's: Guo's
// half force taken off, as for the output).  The density, not the velocity,
// is set at the side, halfway outside the last cells: a vortex passes it
// with the reflection the validation measures (docs/models/lbm.md).  One
// thread per cell of the side: it reads the cell's populations before it
// writes any, and no other cell reads the slots it writes.

#include <Kokkos_Core.hpp>

#include "lbm_geometry.hpp"
#include "lbm_kernels.hpp"
#include "lbm_modes.hpp"
#include "lbm_moments.hpp"

namespace kflow::lbm::kernels {

template <class L, class Real, class ExecSpace, class Pops>
void outflow(const ExecSpace& space, const Pops& a, const Geometry<Real>& g,
             const Offsets<L::Q>& off, Mode mode, Layout layout, int d, int side, Real rho_w) {
  const int e1 = d == 0 ? 1 : 0, e2 = d == 2 ? 1 : 2;  // the side's own axes
  const int n1 = g.n[e1], n = n1 * g.n[e2];
  const int in = side ? -1 : 1;  // c_i[d] of the links that come in across the side
  Kokkos::parallel_for(
      "kflow::lbm::outflow", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int m) {
        int x[3];
        x[d] = side ? g.n[d] - 1 : 0;
        x[e1] = m % n1;
        x[e2] = m / n1;
        const int idx = g.index(x);
        Real f[L::Q], rho, u[3];
        gather<L>(a, g, off.v, layout, x[0] + g.n[0] * (x[1] + g.n[1] * x[2]), f);
        moments<L>(f, g, rho, u);
        const Real usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        for (int i = 0; i < L::Q; ++i) {
          if (L::c(i, d) != in) continue;
          // Across this side only: along the side's own axes the link's
          // origin is a cell, a wrap or another block's cell.
          const int dd[3] = {-L::c(i, 0), -L::c(i, 1), -L::c(i, 2)};
          bool only = true;
          const int es[2] = {e1, e2};
          for (int j = 0; j < 2; ++j) {
            const int e = es[j], t = x[e] + dd[e];
            if (t >= 0 && t < g.n[e]) continue;
            const int s = t < 0 ? 0 : 1;
            if (!g.halo[e][s] && !g.periodic[e]) only = false;
          }
          if (!only) continue;
          const Real cu =
              Real(L::c(i, 0)) * u[0] + Real(L::c(i, 1)) * u[1] + Real(L::c(i, 2)) * u[2];
          const Real v = -f[opp(i)] + Real(2 * L::w(i)) * rho_w *
                                          (Real(1) + Real(4.5) * cu * cu - Real(1.5) * usq);
          a.set(idx, mode == Mode::two_grid ? opp(i) : i, v);
        }
      });
}

}  // namespace kflow::lbm::kernels
