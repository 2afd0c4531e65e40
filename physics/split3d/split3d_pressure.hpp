#pragma once
// physics/split3d: the output field `pressure` (docs/models/split3d.md,
// "Pressure"), computed on the host from host copies.

#include <cstddef>
#include <vector>

#include "split3d_kernels.hpp"

namespace kflow::split3d {

// T + phi on every node (T alone where phi is empty: no projection).  phi is
// first filtered by (1, 2, 1)/4 along each axis on the interior fluid nodes,
// the neighbours by project's rules (across a wall, inflow or obstacle phi_P,
// across an outflow 0, periodic axes wrapped): it removes the odd-even mode
// that the central gradient, and so the velocity, does not see.  A boundary
// node takes phi's boundary rule (its interior neighbour's phi, 0 on an
// outflow face), a periodic ghost the node it copies, an obstacle node T
// alone.  solid: Setup::solid (empty without obstacles).
template <class Real>
std::vector<double> pressure_field(const Params<Real>& p, const std::vector<unsigned char>& solid,
                                   std::vector<double> t, std::vector<double> phi) {
  if (phi.empty()) return t;
  const int* e = p.e;
  auto idx = [&](const int(&a)[3]) {
    return std::size_t(a[0]) + std::size_t(e[0]) * (std::size_t(a[1]) + std::size_t(e[1]) * a[2]);
  };
  auto is_solid = [&](std::size_t m) {
    return !solid.empty() && solid[m] != 0;
  };
  std::vector<double> out = phi;
  for (int d = 0; d < 3; ++d) {
    int a[3];
    for (a[2] = 1; a[2] < e[2] - 1; ++a[2])
      for (a[1] = 1; a[1] < e[1] - 1; ++a[1])
        for (a[0] = 1; a[0] < e[0] - 1; ++a[0]) {
          const std::size_t m = idx(a);
          if (is_solid(m)) continue;
          double nb[2];
          for (int side = 0; side < 2; ++side) {
            int b[3] = {a[0], a[1], a[2]};
            b[d] += side ? 1 : -1;
            if (p.periodic[d] && (b[d] == 0 || b[d] == e[d] - 1))
              b[d] = b[d] == 0 ? e[d] - 2 : 1;  // round the loop
            if (b[d] == 0 || b[d] == e[d] - 1)
              nb[side] = p.row[2 * d + side][0] == zero_gradient ? 0.0 : phi[m];
            else
              nb[side] = is_solid(idx(b)) ? phi[m] : phi[idx(b)];
          }
          out[m] = 0.25 * (nb[0] + 2 * phi[m] + nb[1]);
        }
    phi.swap(out);
  }
  int a[3];
  for (a[2] = 0; a[2] < e[2]; ++a[2])
    for (a[1] = 0; a[1] < e[1]; ++a[1])
      for (a[0] = 0; a[0] < e[0]; ++a[0]) {
        const std::size_t m = idx(a);
        if (is_solid(m)) continue;  // no phi: T alone
        int b[3] = {a[0], a[1], a[2]};
        bool outflow = false;  // phi's Dirichlet side (0)
        for (int d = 0; d < 3; ++d) {
          const int last = e[d] - 1;
          if (b[d] > 0 && b[d] < last) continue;
          if (p.periodic[d])  // a ghost: the node it copies
            b[d] = b[d] == 0 ? last - 1 : 1;
          else {  // a boundary node: phi's boundary rule (project)
            outflow = outflow || p.row[2 * d + (b[d] == last)][0] == zero_gradient;
            b[d] = b[d] == 0 ? 1 : last - 1;
          }
        }
        if (!outflow) t[m] += phi[idx(b)];
      }
  return t;
}

}  // namespace kflow::split3d
