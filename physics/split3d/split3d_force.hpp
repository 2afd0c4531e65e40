#pragma once
// physics/split3d: the force of the fluid on the obstacles (the log's
// force_x, force_y, force_z), a diagnostic computed on the host.

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <vector>

#include "split3d_kernels.hpp"

namespace kflow::split3d {

// From the discrete momentum balance over the links between fluid nodes and
// solid nodes (density 1): the pressure (grad_t T, plus phi with the
// projection) on each link's face, and the viscous term nu (u_P - 0) / (q h_d)
// times the face, q the wall's distance in node spacings (1 on the
// staircase; cut_lo, cut_hi: Setup's, empty there) — the rows' own second
// difference; the convective term, non-conservative, is left out: the
// no-slip nodes beside the body carry little momentum.  Links to the sides'
// nodes are the walls'.  solid: Setup::solid (the host's mask, not copied
// back); phi: null without the projection.
template <class Real, class Mem>
std::array<double, 3> obstacle_force(const Params<Real>& p, const Vars<Real, Mem>& state,
                                     const std::vector<unsigned char>& solid_nodes,
                                     const std::vector<float> (&cut_lo)[3],
                                     const std::vector<float> (&cut_hi)[3],
                                     const linalg::Field3<double, Mem>* phi_field) {
  auto host = [](const auto& v) {
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  };
  const auto u = host(state.q[0]), v = host(state.q[1]), w = host(state.q[2]), t = host(state.q[3]);
  auto solid = [&](int i, int j, int k) {
    return solid_nodes[std::size_t(i) + std::size_t(p.e[0]) * (j + std::size_t(p.e[1]) * k)] != 0;
  };
  decltype(host(*phi_field)) phi;
  if (phi_field) phi = host(*phi_field);
  const int e[3] = {p.e[0], p.e[1], p.e[2]};
  std::array<double, 3> f{0, 0, 0};
  for (int k = 1; k < e[2] - 1; ++k)
    for (int j = 1; j < e[1] - 1; ++j)
      for (int i = 1; i < e[0] - 1; ++i) {
        if (solid(i, j, k)) continue;
        const double pr = double(p.grad_t) * t(i, j, k) + (phi_field ? double(phi(i, j, k)) : 0);
        const double vel[3] = {double(u(i, j, k)), double(v(i, j, k)), double(w(i, j, k))};
        for (int dir = 0; dir < 3; ++dir) {
          const double area = double(p.h[0] * p.h[1] * p.h[2]) / double(p.h[dir]);
          for (int sg = -1; sg <= 1; sg += 2) {
            const int a = i + sg * (dir == 0), b = j + sg * (dir == 1), c = k + sg * (dir == 2);
            const int at = dir == 0 ? a : dir == 1 ? b : c;
            if (!p.periodic[dir] && (at == 0 || at == e[dir] - 1)) continue;  // a side's node
            if (!solid(a, b, c)) continue;  // ghosts of periodic axes copy the mask
            const std::size_t m = std::size_t(i) + std::size_t(e[0]) * (j + std::size_t(e[1]) * k);
            const auto& cut = sg > 0 ? cut_hi[dir] : cut_lo[dir];
            const double qh = (cut.empty() ? 1.0 : double(cut[m])) * double(p.h[dir]);
            f[dir] += sg * pr * area;
            for (int q = 0; q < 3; ++q) f[q] += double(p.nu) * vel[q] * area / qh;
          }
        }
      }
  return f;
}

}  // namespace kflow::split3d
