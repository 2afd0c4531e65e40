#pragma once
// The surface of a placed body as triangles (host), to show the body with
// the flow (a run writes it as body.stl beside its frames).  A mesh body is
// its mesh as placed.  An analytic shape is tessellated in its own frame and
// moved by its placement: facets at most about a tenth of a cell `h` from
// the true surface for spheres and cylinders (vertices on it); where a shape
// is infinite (a cylinder through the domain, a 2D shape along z) it is cut
// at the domain's box, closed by flat ends.  In 2D (dim = 2) the domain's
// box is a slab one cell thick about the plane z = domain.lo.z, so a circle
// shows as a short cylinder across the plane of the frames.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kflow/geometry/body.hpp"
#include "kflow/geometry/tessellate.hpp"

namespace kflow::geometry {

namespace detail {
// The range of the body-frame coordinate a = dot(p - origin, axis) over
// the corners of `box` (domain coordinates) mapped into the body frame.
inline void body_range(const Box3& box, const Transform& xf, const Vec3& origin, const Vec3& axis,
                       double& lo, double& hi) {
  lo = Kokkos::Experimental::infinity_v<double>;
  hi = -lo;
  for (int c = 0; c < 8; ++c) {
    const Vec3 p{c & 1 ? box.hi.x : box.lo.x, c & 2 ? box.hi.y : box.lo.y,
                 c & 4 ? box.hi.z : box.lo.z};
    const double a = dot(xf.body_point(p) - origin, axis);
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
}
}  // namespace detail

// The surface of `b` in domain coordinates (see above); `domain` the
// domain's box (2D: lo.z = hi.z, the plane), h the cell size.
inline TriangleMesh surface_mesh(const Body& b, const Box3& domain, int dim, double h) {
  if (b.is_mesh) return b.mesh;
  if (!(h > 0)) throw std::invalid_argument("geometry: surface_mesh needs a cell size h > 0");
  Box3 box = domain;
  if (dim == 2) box.lo.z = domain.lo.z - 0.5 * h, box.hi.z = domain.lo.z + 0.5 * h;
  const Shape& s = b.shape;
  // A polygon of n sides inscribed in radius r is at most r (1 - cos(pi/n))
  // inside: n = pi / acos(1 - 0.1 h / r) keeps that below 0.1 h.
  auto sides = [&](double r) {
    const double c = std::max(-1.0, 1 - 0.1 * h / r);
    return std::clamp(int(std::ceil(M_PI / std::acos(c))), 16, 4096);
  };
  TriangleMesh m;
  switch (s.kind) {
    case ShapeKind::sphere: {
      // Level l: the edge of the subdivided icosahedron is about 1.05 r / 2^l;
      // its facets are about edge^2 / (8 r) inside the sphere.
      int level = 1;
      while (level < 7 &&
             std::pow(1.05 * s.radius / std::pow(2.0, level), 2) / (8 * s.radius) > 0.1 * h)
        ++level;
      m = sphere_mesh(s.center, s.radius, level);
      break;
    }
    case ShapeKind::cylinder: {
      double lo = -s.half_length, hi = s.half_length, dlo, dhi;
      detail::body_range(box, s.xf, s.center, s.axis, dlo, dhi);
      lo = std::max(lo, dlo), hi = std::min(hi, dhi);
      if (!(lo < hi)) return m;  // (placement has refused a body outside the domain)
      m = cylinder_mesh(s.center, s.axis, s.radius, lo, hi, sides(s.radius));
      break;
    }
    case ShapeKind::box: {
      Vec3 lo = s.lo, hi = s.hi;
      for (int d = 0; d < 3; ++d) {
        if (std::isfinite(lo[d]) && std::isfinite(hi[d])) continue;
        Vec3 e;
        e[d] = 1;
        double dlo, dhi;
        detail::body_range(box, s.xf, Vec3{}, e, dlo, dhi);
        lo[d] = std::max(lo[d], dlo), hi[d] = std::min(hi[d], dhi);
      }
      if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z)) return m;
      m = box_mesh(lo, hi, {1, 1, 1});
      break;
    }
  }
  m = transformed(std::move(m), s.xf);
  m.source = b.name.empty() ? "body " + std::to_string(b.id) : b.name;
  return m;
}

// Every body's surface in one mesh (their triangles one after another).
inline TriangleMesh surface_mesh(const std::vector<Body>& bodies, const Box3& domain, int dim,
                                 double h) {
  TriangleMesh all;
  all.source = "bodies";
  for (const auto& b : bodies) {
    const auto m = surface_mesh(b, domain, dim, h);
    all.vertices.insert(all.vertices.end(), m.vertices.begin(), m.vertices.end());
  }
  return all;
}

}  // namespace kflow::geometry
