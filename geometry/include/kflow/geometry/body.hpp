#pragma once
// A body: an analytic shape or a closed triangle mesh, placed in the domain,
// with an id.  Several bodies make a union; each keeps its id (the solid
// flag of a node is the id + 1 of the first body that holds it, and every
// boundary link names the body it hits), so forces can be summed per body.

#include <string>
#include <vector>

#include "kflow/geometry/mesh.hpp"
#include "kflow/geometry/shape.hpp"
#include "kflow/geometry/vec.hpp"

namespace kflow::geometry {

// Flags are bytes: 0 is fluid, id + 1 a node of body id.
inline constexpr int max_bodies = 255;

struct Body {
  int id = 0;  // 0 <= id < max_bodies, distinct
  std::string name;
  bool is_mesh = false;
  Shape shape;        // when !is_mesh
  TriangleMesh mesh;  // when is_mesh: closed (check_mesh), in domain coordinates
};

inline Box3 bounds(const Body& b) {
  return b.is_mesh ? bounds(b.mesh) : bounds(b.shape);
}

// Where a body's box lies against a domain box (2D: dim = 2, the plane z =
// domain.lo.z).  touches[axis][side]: the body reaches that side (side 0 the
// low one) or beyond it.
struct Placement {
  bool outside = false;  // no point of the body's box in the domain
  bool touches[3][2] = {};
};

inline Placement placement(const Box3& body, const Box3& domain, int dim) {
  Placement p;
  for (int d = 0; d < 3; ++d) {
    if (d >= dim) {  // 2D: the body must cross the plane
      if (body.lo[d] > domain.lo[d] || body.hi[d] < domain.lo[d]) p.outside = true;
      continue;
    }
    if (body.hi[d] < domain.lo[d] || body.lo[d] > domain.hi[d]) p.outside = true;
    p.touches[d][0] = body.lo[d] <= domain.lo[d];
    p.touches[d][1] = body.hi[d] >= domain.hi[d];
  }
  return p;
}

}  // namespace kflow::geometry
