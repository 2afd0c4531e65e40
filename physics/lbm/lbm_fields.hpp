#pragma once
// The derived fields of physics/lbm's output that need a cell's neighbours
// (on the host, from the moments the model copies there), and the sides'
// part of the "flags" field.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "kflow/linalg/grid.hpp"
#include "lbm.hpp"
#include "lbm_geometry.hpp"

namespace kflow::lbm {

// |curl u| from the cell velocities (central differences, one-sided at
// the walls; periodic axes wrap; across a face to another block, its
// cells in the ghost layer), physical units: h(stored cell, 1 + d) the
// velocity in lattice units, c = dx / dt, g the block.
template <class Real, class H>
std::vector<double> vorticity_magnitude(const H& h, double c, const Geometry<Real>& g,
                                        const linalg::Grid& grid, double dx) {
  const int nx = g.n[0], ny = g.n[1], nz = g.n[2], dim = grid.dim;
  std::vector<double> out(std::size_t(nx) * std::size_t(ny) * std::size_t(nz));
  auto id = [&](int x, int y, int z) {
    const int p[3] = {x, y, z};
    return std::size_t(g.index(p));
  };
  // d u_comp / d x_axis at (x, y, z).
  auto deriv = [&](int comp, int axis, int x, int y, int z) {
    int p[3] = {x, y, z}, lo[3] = {x, y, z}, hi[3] = {x, y, z};
    const int n = g.n[axis];
    double span = 2;
    if (axis >= dim || grid.cells[std::size_t(axis)] == 1) return 0.0;
    if ((p[axis] > 0 || g.halo[axis][0]) && (p[axis] < n - 1 || g.halo[axis][1])) {
      --lo[axis], ++hi[axis];
    } else if (g.periodic[axis]) {
      lo[axis] = (p[axis] - 1 + n) % n, hi[axis] = (p[axis] + 1) % n;
    } else if (p[axis] == 0 && !g.halo[axis][0]) {
      ++hi[axis], span = 1;
    } else {
      --lo[axis], span = 1;
    }
    return (h(id(hi[0], hi[1], hi[2]), 1 + comp) - h(id(lo[0], lo[1], lo[2]), 1 + comp)) * c /
           (span * dx);
  };
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const double wz = deriv(1, 0, x, y, z) - deriv(0, 1, x, y, z);
        double sq = wz * wz;
        if (dim == 3) {
          const double wx = deriv(2, 1, x, y, z) - deriv(1, 2, x, y, z);
          const double wy = deriv(0, 2, x, y, z) - deriv(2, 0, x, y, z);
          sq += wx * wx + wy * wy;
        }
        out[x + std::size_t(nx) * (y + std::size_t(ny) * z)] = std::sqrt(sq);
      }
  return out;
}

// The "flags" field at the block's cell x (offset: the block's first cell in
// the grid) from the domain's sides: 0 fluid; next to a side: 1 no-slip, 2
// moving wall, 3 inflow, 4 outflow (the largest where sides meet).
template <class Real>
double side_flag(const Setup& s, const Geometry<Real>& geo, const std::array<int, 3>& offset,
                 const int x[3]) {
  const auto& G = s.grid;
  double v = 0;
  for (int d = 0; d < G.dim; ++d)
    for (int side = 0; side < 2; ++side)
      if (s.bc[d][0] != Bc::periodic && x[d] + offset[d] == (side ? G.cells[d] - 1 : 0))
        v = std::max(v, s.bc[d][side] == Bc::inflow    ? 3.0
                        : s.bc[d][side] == Bc::outflow ? 4.0
                        : geo.moving[d][side]          ? 2.0
                                                       : 1.0);
  return v;
}

}  // namespace kflow::lbm
