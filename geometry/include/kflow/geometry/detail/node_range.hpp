#pragma once
// The nodes of a grid inside a box (with a margin of 1e-9 of a spacing, so
// that rounding never drops a node on the box's surface; the exact tests
// decide about those).

#include <cmath>

#include "kflow/geometry/node_grid.hpp"
#include "kflow/geometry/vec.hpp"

namespace kflow::geometry::detail {

struct NodeRange {
  int lo[3] = {0, 0, 0}, hi[3] = {-1, -1, -1};  // inclusive
  bool empty() const { return hi[0] < lo[0] || hi[1] < lo[1] || hi[2] < lo[2]; }
};

inline NodeRange node_range(const NodeGrid& g, const Box3& b) {
  NodeRange r;
  if (b.empty()) return r;
  for (int d = 0; d < 3; ++d) {
    const double top = g.n[d] - 1;
    const double a = std::ceil((b.lo[d] - g.origin[d]) / g.h[d] - 1e-9) - g.first[d];
    const double z = std::floor((b.hi[d] - g.origin[d]) / g.h[d] + 1e-9) - g.first[d];
    if (!(a <= top) || !(z >= 0)) return NodeRange{};
    r.lo[d] = int(std::fmax(0.0, a));
    r.hi[d] = int(std::fmin(top, z));
  }
  return r;
}

}  // namespace kflow::geometry::detail
