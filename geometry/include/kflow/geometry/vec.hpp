#pragma once
// Points, vectors and axis-aligned boxes in 3D, usable on the host and in
// kernels.  2D cases use the plane z = const: every point still has a z.

#include <Kokkos_Core.hpp>

namespace kflow::geometry {

struct Vec3 {
  double x = 0, y = 0, z = 0;
  KOKKOS_INLINE_FUNCTION double operator[](int d) const { return d == 0 ? x : d == 1 ? y : z; }
  KOKKOS_INLINE_FUNCTION double& operator[](int d) { return d == 0 ? x : d == 1 ? y : z; }
};

KOKKOS_INLINE_FUNCTION Vec3 operator+(const Vec3& a, const Vec3& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
KOKKOS_INLINE_FUNCTION Vec3 operator-(const Vec3& a, const Vec3& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
KOKKOS_INLINE_FUNCTION Vec3 operator-(const Vec3& a) {
  return {-a.x, -a.y, -a.z};
}
KOKKOS_INLINE_FUNCTION Vec3 operator*(double s, const Vec3& a) {
  return {s * a.x, s * a.y, s * a.z};
}
KOKKOS_INLINE_FUNCTION double dot(const Vec3& a, const Vec3& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
KOKKOS_INLINE_FUNCTION Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
KOKKOS_INLINE_FUNCTION double norm(const Vec3& a) {
  return Kokkos::sqrt(dot(a, a));
}
// A direction given by the user (an axis): a / |a| without overflow or
// underflow of |a|^2 ([1e200, 0, 0] and [1e-200, 0, 0] are x), or zero when
// a is zero or not finite (no direction).
KOKKOS_INLINE_FUNCTION Vec3 unit(const Vec3& a) {
  const double m =
      Kokkos::fmax(Kokkos::fabs(a.x), Kokkos::fmax(Kokkos::fabs(a.y), Kokkos::fabs(a.z)));
  if (!(m > 0) || !Kokkos::isfinite(m)) return {0, 0, 0};
  const Vec3 b = (1.0 / m) * a;
  return (1.0 / norm(b)) * b;
}
// a / |a|, or a itself when it is zero.
KOKKOS_INLINE_FUNCTION Vec3 normalized(const Vec3& a) {
  const double n = norm(a);
  return n > 0 ? (1.0 / n) * a : a;
}
KOKKOS_INLINE_FUNCTION bool operator==(const Vec3& a, const Vec3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}

// A closed axis-aligned box [lo, hi]; empty when some lo > hi.  Bounds may
// be infinite (a cylinder through the domain, a 2D box along z).
struct Box3 {
  Vec3 lo{Kokkos::Experimental::infinity_v<double>, Kokkos::Experimental::infinity_v<double>,
          Kokkos::Experimental::infinity_v<double>};
  Vec3 hi{-Kokkos::Experimental::infinity_v<double>, -Kokkos::Experimental::infinity_v<double>,
          -Kokkos::Experimental::infinity_v<double>};

  KOKKOS_INLINE_FUNCTION bool empty() const { return lo.x > hi.x || lo.y > hi.y || lo.z > hi.z; }
  KOKKOS_INLINE_FUNCTION void add(const Vec3& p) {
    lo = {Kokkos::fmin(lo.x, p.x), Kokkos::fmin(lo.y, p.y), Kokkos::fmin(lo.z, p.z)};
    hi = {Kokkos::fmax(hi.x, p.x), Kokkos::fmax(hi.y, p.y), Kokkos::fmax(hi.z, p.z)};
  }
  KOKKOS_INLINE_FUNCTION bool overlaps(const Box3& b) const {
    return !(b.lo.x > hi.x || b.hi.x < lo.x || b.lo.y > hi.y || b.hi.y < lo.y || b.lo.z > hi.z ||
             b.hi.z < lo.z);
  }
};

KOKKOS_INLINE_FUNCTION Box3 intersection(const Box3& a, const Box3& b) {
  Box3 r;
  r.lo = {Kokkos::fmax(a.lo.x, b.lo.x), Kokkos::fmax(a.lo.y, b.lo.y), Kokkos::fmax(a.lo.z, b.lo.z)};
  r.hi = {Kokkos::fmin(a.hi.x, b.hi.x), Kokkos::fmin(a.hi.y, b.hi.y), Kokkos::fmin(a.hi.z, b.hi.z)};
  return r;
}

}  // namespace kflow::geometry
