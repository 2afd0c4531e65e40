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
// with the reflection the validation measures (docs/models/lbm.md).
//
// The characteristic outflow lets pressure waves leave: rho_w
// follows the outgoing acoustic characteristic, dp/dt + (u_n + c) dp/dn = 0
// (the wave equation's one-way form behind Poinsot & Lele's (1992) partially
// non-reflecting condition), one upwind step from the last cell (1) and the
// one before it (2), n the outward normal, c = 1/sqrt(3), plus their
// relaxation of the level to the side's density rho_0:
//
//   rho_e = rho_1 + (rho_1 - rho_2) / 2                 (the side, now)
//   rho_w = rho_e - (u_n + c) (rho_1 - rho_2) - K / 2 (rho_e - rho_0),
//   K = sigma c (1 - Ma^2) / N                           (N cells along n)
//
// It reads only the current populations: no state of its own, the same bits
// on any number of ranks and after a restart.  (Their full LODI form, with
// the velocity jump rho c (u_n1 - u_n2) in the outgoing wave, diverged
// within the first wave's passage when evaluated from the current cells:
// docs/models/lbm.md.)  One thread per cell of the side: it reads the cell's
// populations and its inner neighbour's, which no thread writes, before it
// writes any, and no other cell reads the slots it writes.

#include <Kokkos_Core.hpp>

#include "lbm_geometry.hpp"
#include "lbm_kernels.hpp"
#include "lbm_modes.hpp"
#include "lbm_moments.hpp"

namespace kflow::lbm::kernels {

template <class L, class Real, class ExecSpace, class Pops>
void outflow(const ExecSpace& space, const Pops& a, const Geometry<Real>& g,
             const Offsets<L::Q>& off, Mode mode, Layout layout, int d, int side, Real rho_0,
             bool characteristic, Real sigma) {
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
        Real rho_w = rho_0;
        if (characteristic) {
          int y[3] = {x[0], x[1], x[2]};
          y[d] += side ? -1 : 1;       // the cell before the last (n[d] >= 2: the parser)
          Real f2[L::Q], rho2, u2[3];  // (u2: moments' output, unused)
          gather<L>(a, g, off.v, layout, y[0] + g.n[0] * (y[1] + g.n[1] * y[2]), f2);
          moments<L>(f2, g, rho2, u2);
          const Real c = Real(0.57735026918962576);
          const Real un = side ? u[d] : -u[d];  // outward
          const Real rho_e = rho + Real(0.5) * (rho - rho2);
          const Real k = sigma * c * (Real(1) - Real(3) * usq) / Real(g.cells[d]);
          rho_w = rho_e - (un + c) * (rho - rho2) - Real(0.5) * k * (rho_e - rho_0);
        }
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
