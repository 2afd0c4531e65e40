#pragma once
// Analytic bodies: box, sphere, cylinder (finite with end caps, or infinite:
// through the domain), and the 2D circle (an infinite cylinder along z).  A
// Shape is a small POD (a kind tag, its parameters in its own body frame and
// a Transform to the domain), so a kernel tests points and segments against
// it directly.  Shapes are closed sets: a point on the surface is inside.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <stdexcept>

#include "kflow/geometry/transform.hpp"
#include "kflow/geometry/vec.hpp"

namespace kflow::geometry {

enum class ShapeKind : int { box = 0, sphere = 1, cylinder = 2 };

struct Shape {
  ShapeKind kind = ShapeKind::sphere;
  // Body frame: box [lo, hi]; sphere center, radius; cylinder center, unit
  // axis, radius and half of its length (infinite: through the domain).
  Vec3 lo, hi, center, axis{0, 0, 1};
  double radius = 0;
  double half_length = Kokkos::Experimental::infinity_v<double>;
  Transform xf;  // body -> domain
};

// ---- construction (host) -----------------------------------------------------

inline Shape box(const Vec3& lo, const Vec3& hi) {
  if (!(lo.x < hi.x && lo.y < hi.y && lo.z < hi.z))
    throw std::invalid_argument("geometry: a box needs min < max on every axis");
  Shape s;
  s.kind = ShapeKind::box;
  s.lo = lo, s.hi = hi;
  for (int d = 0; d < 3; ++d)  // (a 2D box is infinite along z: its centre there is 0)
    s.center[d] = std::isfinite(lo[d]) && std::isfinite(hi[d]) ? 0.5 * (lo[d] + hi[d]) : 0.0;
  return s;
}

inline Shape sphere(const Vec3& center, double radius) {
  if (!(radius > 0) || !std::isfinite(radius))
    throw std::invalid_argument("geometry: a sphere needs a positive radius");
  Shape s;
  s.kind = ShapeKind::sphere;
  s.center = center;
  s.radius = radius;
  return s;
}

// A cylinder along `axis` (any non-zero length) through `center`; `length`
// infinite (the default) for one through the whole domain, else finite with
// flat end caps at center +- length/2 along the axis.
inline Shape cylinder(const Vec3& center, const Vec3& axis, double radius,
                      double length = Kokkos::Experimental::infinity_v<double>) {
  const Vec3 u = unit(axis);  // (any length: [1e200, 0, 0] is x)
  if (!(norm(u) > 0.5))
    throw std::invalid_argument("geometry: a cylinder needs a non-zero, finite axis");
  if (!(radius > 0) || !std::isfinite(radius) || !(length > 0))
    throw std::invalid_argument("geometry: a cylinder needs a positive radius and length");
  Shape s;
  s.kind = ShapeKind::cylinder;
  s.center = center;
  s.axis = u;
  s.radius = radius;
  s.half_length = 0.5 * length;
  return s;
}

// 2D: the circle of `radius` about (x, y): a cylinder along z through the domain.
inline Shape circle(double x, double y, double radius) {
  return cylinder({x, y, 0}, {0, 0, 1}, radius);
}

// The shape moved by `t` (after the placement it already has).
inline Shape transformed(Shape s, const Transform& t) {
  s.xf = s.xf.then(t);
  return s;
}

// ---- queries (host and device) -----------------------------------------------

// Whether x lies in the shape, its surface included, or within `tol` of it
// (in the body's frame).
KOKKOS_INLINE_FUNCTION bool inside(const Shape& s, const Vec3& x, double tol = 0) {
  const Vec3 p = s.xf.body_point(x);
  switch (s.kind) {
    case ShapeKind::box:
      return p.x >= s.lo.x - tol && p.x <= s.hi.x + tol && p.y >= s.lo.y - tol &&
             p.y <= s.hi.y + tol && p.z >= s.lo.z - tol && p.z <= s.hi.z + tol;
    case ShapeKind::sphere: {
      const Vec3 r = p - s.center;
      return dot(r, r) <= (s.radius + tol) * (s.radius + tol);
    }
    case ShapeKind::cylinder: {
      const Vec3 r = p - s.center;
      const double a = dot(r, s.axis);
      const Vec3 w = r - a * s.axis;
      return dot(w, w) <= (s.radius + tol) * (s.radius + tol) &&
             Kokkos::fabs(a) <= s.half_length + tol;
    }
  }
  return false;
}

namespace detail {
// The parameter interval [t0, t1] over which the line a + t d (body frame)
// lies in the closed shape, with the body-frame outward normals at its ends;
// false when the line misses.  Infinite ends for lines the shape does not
// bound (a line along an infinite cylinder).
struct LineInterval {
  double t0, t1;
  Vec3 n0, n1;
};

KOKKOS_INLINE_FUNCTION void clip(LineInterval& r, double ta, double tb, const Vec3& na,
                                 const Vec3& nb) {
  // intersect with [ta, tb] (ta <= tb), whose ends have normals na, nb
  if (ta > r.t0) r.t0 = ta, r.n0 = na;
  if (tb < r.t1) r.t1 = tb, r.n1 = nb;
}

// The quadratic A t^2 + 2 B t + C <= 0 (A > 0): the roots in order, or false.
KOKKOS_INLINE_FUNCTION bool roots(double A, double B, double C, double& t0, double& t1) {
  const double disc = B * B - A * C;
  if (!(disc >= 0)) return false;
  const double q = -(B + Kokkos::copysign(Kokkos::sqrt(disc), B));
  if (q == 0) {  // B = 0 and disc = 0: a double root at 0 (C = 0)
    t0 = t1 = 0;
    return true;
  }
  const double r0 = q / A, r1 = C / q;  // stable forms of (-B -+ sqrt(disc)) / A
  t0 = Kokkos::fmin(r0, r1), t1 = Kokkos::fmax(r0, r1);
  return true;
}

KOKKOS_INLINE_FUNCTION bool line_interval(const Shape& s, const Vec3& a, const Vec3& d,
                                          LineInterval& r) {
  constexpr double inf = Kokkos::Experimental::infinity_v<double>;
  r.t0 = -inf, r.t1 = inf;
  r.n0 = r.n1 = Vec3{};
  switch (s.kind) {
    case ShapeKind::box:
      for (int k = 0; k < 3; ++k) {
        Vec3 e{};
        e[k] = 1;
        if (d[k] == 0) {
          if (a[k] < s.lo[k] || a[k] > s.hi[k]) return false;
          continue;
        }
        const double ta = (s.lo[k] - a[k]) / d[k], tb = (s.hi[k] - a[k]) / d[k];
        if (d[k] > 0)
          clip(r, ta, tb, -e, e);
        else
          clip(r, tb, ta, e, -e);
      }
      return r.t0 <= r.t1;
    case ShapeKind::sphere: {
      const Vec3 oc = a - s.center;
      const double A = dot(d, d), C = dot(oc, oc) - s.radius * s.radius;
      if (A == 0) return C <= 0;
      if (!roots(A, dot(d, oc), C, r.t0, r.t1)) return false;
      r.n0 = (1.0 / s.radius) * (oc + r.t0 * d);
      r.n1 = (1.0 / s.radius) * (oc + r.t1 * d);
      return true;
    }
    case ShapeKind::cylinder: {
      const Vec3 oc = a - s.center;
      const double sa = dot(oc, s.axis), sd = dot(d, s.axis);
      const Vec3 w = oc - sa * s.axis, e = d - sd * s.axis;
      const double A = dot(e, e), C = dot(w, w) - s.radius * s.radius;
      if (A == 0) {
        if (C > 0) return false;
      } else {
        double l0, l1;
        if (!roots(A, dot(e, w), C, l0, l1)) return false;
        clip(r, l0, l1, normalized(w + l0 * e), normalized(w + l1 * e));
      }
      if (s.half_length < inf) {
        const double h = s.half_length;
        if (sd == 0) {
          if (Kokkos::fabs(sa) > h) return false;
        } else {
          const double ta = (-h - sa) / sd, tb = (h - sa) / sd;
          if (sd > 0)
            clip(r, ta, tb, -s.axis, s.axis);
          else
            clip(r, tb, ta, s.axis, -s.axis);
        }
      }
      return r.t0 <= r.t1;
    }
  }
  return false;
}
}  // namespace detail

// The first point of the segment a -> b (domain coordinates) on the shape's
// surface, as the fraction t of the segment (t = 0 at a, 1 at b; within
// [-tol, 1 + tol], tol absorbing rounding at the ends), and the unit outward
// normal there.  False when the segment does not reach the surface.
KOKKOS_INLINE_FUNCTION bool first_hit(const Shape& s, const Vec3& a, const Vec3& b, double tol,
                                      double& t, Vec3& normal) {
  const Vec3 pa = s.xf.body_point(a), pb = s.xf.body_point(b);
  detail::LineInterval r;
  if (!detail::line_interval(s, pa, pb - pa, r)) return false;
  if (r.t0 >= -tol && r.t0 <= 1 + tol) {
    t = r.t0, normal = s.xf.domain_normal(r.n0);
    return true;
  }
  if (r.t0 < -tol && r.t1 >= -tol && r.t1 <= 1 + tol) {  // a inside: where the segment leaves
    t = r.t1, normal = s.xf.domain_normal(r.n1);
    return true;
  }
  return false;
}

// The shape's axis-aligned bounding box in domain coordinates (tight for
// every placement; infinite along an infinite cylinder's axis).
inline Box3 bounds(const Shape& s) {
  const Affine& A = s.xf.to_domain;
  Box3 b;
  const Vec3 c = A.point(s.center);
  for (int i = 0; i < 3; ++i) {
    double lo = 0, hi = 0;
    switch (s.kind) {
      case ShapeKind::box:
        lo = hi = A.t[i];
        for (int j = 0; j < 3; ++j) {
          const double m = A.m[i][j];
          if (m == 0) continue;  // (0 * inf: no extent)
          lo += Kokkos::fmin(m * s.lo[j], m * s.hi[j]);
          hi += Kokkos::fmax(m * s.lo[j], m * s.hi[j]);
        }
        break;
      case ShapeKind::sphere: {
        const double e = s.radius * std::sqrt(A.m[i][0] * A.m[i][0] + A.m[i][1] * A.m[i][1] +
                                              A.m[i][2] * A.m[i][2]);
        lo = c[i] - e, hi = c[i] + e;
        break;
      }
      case ShapeKind::cylinder: {
        const Vec3 row{A.m[i][0], A.m[i][1], A.m[i][2]};
        const double along = dot(row, s.axis);
        const double across = std::sqrt(std::fmax(0.0, dot(row, row) - along * along));
        const double e = (along == 0 ? 0.0 : std::fabs(along) * s.half_length) + s.radius * across;
        lo = c[i] - e, hi = c[i] + e;
        break;
      }
    }
    b.lo[i] = lo, b.hi[i] = hi;
  }
  return b;
}

}  // namespace kflow::geometry
