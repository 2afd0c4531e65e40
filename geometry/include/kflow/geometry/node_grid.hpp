#pragma once
// The structured grid of nodes a body is voxelised into: node (i, j, k) lies
// at origin + ((first x + i) hx, (first y + j) hy, (first z + k) hz), 0 <= i
// < nx, ...; a 2D grid has nz = 1 (the plane z = origin z).  Nodes are
// numbered i fastest (Kokkos::LayoutLeft): n = i + nx (j + ny k).  Models pass
// their own nodes: lattice nodes, cell centres (ghost layers included where
// they want flags there), cell faces.  `first` makes the grid a block of a
// larger one (a rank's part of a decomposed grid) whose nodes have the larger
// grid's coordinates bit for bit, so that a block's flags and links are the
// whole grid's there.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/geometry/vec.hpp"

namespace kflow::geometry {

struct NodeGrid {
  int n[3] = {1, 1, 1};
  double origin[3] = {0, 0, 0};
  double h[3] = {1, 1, 1};
  int first[3] = {0, 0, 0};  // the index of node 0 in the larger grid (0: none)

  KOKKOS_INLINE_FUNCTION double coord(int d, int i) const {
    return origin[d] + (first[d] + i) * h[d];
  }
  KOKKOS_INLINE_FUNCTION Vec3 node(int i, int j, int k) const {
    return {coord(0, i), coord(1, j), coord(2, k)};
  }
  KOKKOS_INLINE_FUNCTION int index(int i, int j, int k) const { return i + n[0] * (j + n[1] * k); }
  std::int64_t count() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  int dim() const { return n[2] == 1 ? 2 : 3; }
  // The box spanned by the nodes.
  Box3 box() const {
    Box3 b;
    for (int d = 0; d < 3; ++d) b.lo[d] = origin[d], b.hi[d] = coord(d, n[d] - 1);
    return b;
  }

  // Throws std::invalid_argument unless the counts are positive, the
  // spacings positive and finite, and the nodes indexable by an int.
  void check() const {
    for (int d = 0; d < 3; ++d)
      if (n[d] < 1 || !(h[d] > 0) || !std::isfinite(h[d]) || !std::isfinite(origin[d]))
        throw std::invalid_argument("geometry: a node grid needs n >= 1 and h > 0 per axis");
    if (count() > std::numeric_limits<int>::max())
      throw std::invalid_argument("geometry: " + std::to_string(count()) +
                                  " nodes: more than kernels index with an int");
  }
};

// How far outside a shape's surface a node still counts as on it (solid):
// 1e-9 of the smallest spacing, so that the last bits of a node's
// coordinates do not decide (flags.hpp); links.hpp gives such a node's links
// q = 1 where the segment grazes the surface.
inline double surface_margin(const NodeGrid& g) {
  return 1e-9 * std::min({g.h[0], g.h[1], g.h[2]});
}

}  // namespace kflow::geometry
