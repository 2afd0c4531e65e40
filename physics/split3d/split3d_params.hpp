#pragma once
// physics/split3d: the kernels' parameters (Params, split3d_kernels.hpp) of
// a set-up (Setup, split3d.hpp); the bridge between the two.

#include "split3d.hpp"
#include "split3d_kernels.hpp"

namespace kflow::split3d {

// The kernels' parameters of a set-up (tau set per step).
template <class Real>
Params<Real> make_params(const Setup& s) {
  Params<Real> p;
  for (int d = 0; d < 3; ++d) {
    p.e[d] = s.nodes.cells[d] + 2;
    p.spacing(d, s.nodes.spacing(d));
    p.force[d] = Real(s.body_force[d]);
  }
  p.nu = Real(1 / s.reynolds);
  p.kappa = Real(1 / (s.reynolds * s.prandtl));
  p.diss = Real((s.gamma - 1) / (s.gamma * s.reynolds));
  for (int sd = 0; sd < 6; ++sd) {
    const auto& b = s.side[sd];
    for (int q = 0; q < 4; ++q) {
      const bool open = b.kind == Kind::outflow || (q == 3 && b.kind == Kind::wall && b.adiabatic);
      p.row[sd][q] = open ? zero_gradient : dirichlet;
    }
  }
  for (int d = 0; d < 3; ++d) p.periodic[d] = s.periodic[d] ? 1 : 0;
  return p;
}

}  // namespace kflow::split3d
