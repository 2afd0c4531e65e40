#pragma once
// Affine placement of a body: body coordinates -> domain coordinates and
// back.  A Transform keeps both directions (the inverse is computed once, on
// the host), so kernels map a point into the body's own frame with one
// matrix-vector product.
//
// Rotations are given as an axis and an angle (right-handed: a positive
// angle turns counter-clockwise looking down the axis towards the origin),
// not as Euler angles: one rotation has one unambiguous meaning, and a 2D
// rotation is the same thing about z.  Compose several with then().

#include <Kokkos_Core.hpp>

#include <cmath>
#include <stdexcept>

#include "kflow/geometry/vec.hpp"

namespace kflow::geometry {

// x -> m x + t
struct Affine {
  double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  Vec3 t;

  KOKKOS_INLINE_FUNCTION Vec3 vector(const Vec3& v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
            m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
  KOKKOS_INLINE_FUNCTION Vec3 point(const Vec3& p) const { return vector(p) + t; }
  // m^T v (normals map with the inverse's transpose)
  KOKKOS_INLINE_FUNCTION Vec3 transposed(const Vec3& v) const {
    return {m[0][0] * v.x + m[1][0] * v.y + m[2][0] * v.z,
            m[0][1] * v.x + m[1][1] * v.y + m[2][1] * v.z,
            m[0][2] * v.x + m[1][2] * v.y + m[2][2] * v.z};
  }
};

// b after a: x -> b(a(x))
inline Affine compose(const Affine& b, const Affine& a) {
  Affine r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      r.m[i][j] = 0;
      for (int k = 0; k < 3; ++k) r.m[i][j] += b.m[i][k] * a.m[k][j];
    }
  r.t = b.point(a.t);
  return r;
}

struct Transform {
  Affine to_domain;  // body -> domain
  Affine to_body;    // domain -> body

  KOKKOS_INLINE_FUNCTION Vec3 body_point(const Vec3& p) const { return to_body.point(p); }
  KOKKOS_INLINE_FUNCTION Vec3 body_vector(const Vec3& v) const { return to_body.vector(v); }
  // A body-frame normal as a unit normal in the domain.
  KOKKOS_INLINE_FUNCTION Vec3 domain_normal(const Vec3& n) const {
    return normalized(to_body.transposed(n));
  }

  // This transform, then `next`.
  Transform then(const Transform& next) const {
    return {compose(next.to_domain, to_domain), compose(to_body, next.to_body)};
  }

  static Transform identity() { return {}; }
  static Transform translation(const Vec3& d) {
    Transform r;
    r.to_domain.t = d;
    r.to_body.t = -d;
    return r;
  }
  // Scaling by factors f (each positive) about `pivot`.
  static Transform scaling(const Vec3& f, const Vec3& pivot = {}) {
    if (!(f.x > 0 && f.y > 0 && f.z > 0) || !std::isfinite(f.x) || !std::isfinite(f.y) ||
        !std::isfinite(f.z))
      throw std::invalid_argument("geometry: scale factors must be positive and finite");
    Transform s;
    for (int d = 0; d < 3; ++d) {
      s.to_domain.m[d][d] = f[d];
      s.to_body.m[d][d] = 1.0 / f[d];
    }
    return translation(-pivot).then(s).then(translation(pivot));
  }
  // Rotation by `radians` about the line through `pivot` along `axis` (any
  // non-zero length), right-handed.
  static Transform rotation(const Vec3& axis, double radians, const Vec3& pivot = {}) {
    const Vec3 a = unit(axis);  // (any length: [1e200, 0, 0] is x)
    if (!(norm(a) > 0.5) || !std::isfinite(radians))
      throw std::invalid_argument(
          "geometry: a rotation needs a non-zero, finite axis and a finite angle");
    const double c = std::cos(radians), s = std::sin(radians), v = 1 - c;
    Transform r;
    // Rodrigues' formula; the inverse of a rotation is its transpose.
    const double m[3][3] = {{c + a.x * a.x * v, a.x * a.y * v - a.z * s, a.x * a.z * v + a.y * s},
                            {a.y * a.x * v + a.z * s, c + a.y * a.y * v, a.y * a.z * v - a.x * s},
                            {a.z * a.x * v - a.y * s, a.z * a.y * v + a.x * s, c + a.z * a.z * v}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        r.to_domain.m[i][j] = m[i][j];
        r.to_body.m[j][i] = m[i][j];
      }
    return translation(-pivot).then(r).then(translation(pivot));
  }
};

}  // namespace kflow::geometry
