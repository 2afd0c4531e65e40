#pragma once
// Closed triangle meshes made in code (host): a subdivided icosahedron on a
// sphere, a torus, a box with each face cut into a grid of squares, a
// cylinder with flat end caps.  Each
// point is computed once and shared by its triangles bit for bit, so the
// meshes pass check_mesh(); triangles are wound counter-clockwise seen from
// outside.  For the tests and the benchmark (no large files in the tree) and
// for comparing a mesh with its analytic shape.

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kflow/geometry/mesh.hpp"

namespace kflow::geometry {

namespace detail {
inline TriangleMesh soup(const std::vector<Vec3>& points,
                         const std::vector<std::array<int, 3>>& tris, const std::string& source) {
  TriangleMesh m;
  m.source = source;
  m.vertices.reserve(3 * tris.size());
  for (const auto& t : tris)
    for (int k = 0; k < 3; ++k) m.vertices.push_back(points[std::size_t(t[std::size_t(k)])]);
  return m;
}
}  // namespace detail

// 20 4^level triangles with their vertices on the sphere (facets inside it).
inline TriangleMesh sphere_mesh(const Vec3& center, double radius, int level) {
  if (level < 0 || level > 10) throw std::invalid_argument("geometry: sphere_mesh level 0..10");
  const double p = (1 + std::sqrt(5.0)) / 2;
  std::vector<Vec3> pts = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0},
                           {0, -1, p}, {0, 1, p}, {0, -1, -p}, {0, 1, -p},
                           {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
  std::vector<std::array<int, 3>> tris = {
      {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (auto& q : pts) q = normalized(q);
  for (int l = 0; l < level; ++l) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      const auto key = std::make_pair(std::min(a, b), std::max(a, b));
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      pts.push_back(normalized(0.5 * (pts[std::size_t(a)] + pts[std::size_t(b)])));
      return mid[key] = int(pts.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    next.reserve(4 * tris.size());
    for (const auto& t : tris) {
      const int a = midpoint(t[0], t[1]), b = midpoint(t[1], t[2]), c = midpoint(t[2], t[0]);
      next.push_back({t[0], a, c});
      next.push_back({t[1], b, a});
      next.push_back({t[2], c, b});
      next.push_back({a, b, c});
    }
    tris.swap(next);
  }
  for (auto& q : pts) q = center + radius * q;
  return detail::soup(pts, tris, "sphere_mesh(level " + std::to_string(level) + ")");
}

// A torus about the z axis through `center`: major radius R, minor r, n
// segments around z and m around the tube: 2 n m triangles.
inline TriangleMesh torus_mesh(const Vec3& center, double R, double r, int n, int m) {
  if (n < 3 || m < 3 || !(r > 0) || !(R > r))
    throw std::invalid_argument("geometry: torus_mesh needs n, m >= 3 and R > r > 0");
  const double pi = 3.141592653589793;
  std::vector<Vec3> pts(std::size_t(n) * m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const double u = 2 * pi * i / n, v = 2 * pi * j / m;
      pts[std::size_t(i) * m + j] =
          center + Vec3{(R + r * std::cos(v)) * std::cos(u), (R + r * std::cos(v)) * std::sin(u),
                        r * std::sin(v)};
    }
  std::vector<std::array<int, 3>> tris;
  tris.reserve(2 * std::size_t(n) * m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const int a = i * m + j, b = ((i + 1) % n) * m + j, c = ((i + 1) % n) * m + (j + 1) % m,
                d = i * m + (j + 1) % m;
      tris.push_back({a, b, c});
      tris.push_back({a, c, d});
    }
  return detail::soup(pts, tris,
                      "torus_mesh(" + std::to_string(n) + " x " + std::to_string(m) + ")");
}

// The box [lo, hi] with each face cut into cells[a] x cells[b] squares of two
// triangles: 4 (nx ny + ny nz + nz nx) triangles.  The points are
// lo + (hi - lo) i / n per axis, so a box whose corners and cuts fall on
// grid nodes puts vertices and edges exactly on the node rows.
inline TriangleMesh box_mesh(const Vec3& lo, const Vec3& hi, const std::array<int, 3>& cells) {
  for (int d = 0; d < 3; ++d)
    if (cells[std::size_t(d)] < 1 || !(lo[d] < hi[d]))
      throw std::invalid_argument("geometry: box_mesh needs lo < hi and cells >= 1");
  auto coord = [&](int d, int i) {
    const int n = cells[std::size_t(d)];
    return i == n ? hi[d] : lo[d] + (hi[d] - lo[d]) * i / n;
  };
  std::vector<Vec3> pts;
  std::map<std::array<int, 3>, int> index;
  auto point = [&](const std::array<int, 3>& ijk) {
    auto it = index.find(ijk);
    if (it != index.end()) return it->second;
    pts.push_back({coord(0, ijk[0]), coord(1, ijk[1]), coord(2, ijk[2])});
    return index[ijk] = int(pts.size()) - 1;
  };
  std::vector<std::array<int, 3>> tris;
  for (int a = 0; a < 3; ++a) {  // the faces normal to axis a
    const int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < cells[std::size_t(b)]; ++i)
        for (int j = 0; j < cells[std::size_t(c)]; ++j) {
          std::array<int, 3> q[4];
          for (int v = 0; v < 4; ++v) {
            q[v][std::size_t(a)] = side ? cells[std::size_t(a)] : 0;
            q[v][std::size_t(b)] = i + (v == 1 || v == 2);
            q[v][std::size_t(c)] = j + (v >= 2);
          }
          // (b, c, a) is right-handed: counter-clockwise in (b, c) faces +a
          const int p0 = point(q[0]), p1 = point(q[1]), p2 = point(q[2]), p3 = point(q[3]);
          if (side) {
            tris.push_back({p0, p1, p2});
            tris.push_back({p0, p2, p3});
          } else {
            tris.push_back({p0, p2, p1});
            tris.push_back({p0, p3, p2});
          }
        }
  }
  return detail::soup(pts, tris, "box_mesh");
}

// The cylinder of `radius` about the line center + a axis (axis a unit
// vector), a in [a0, a1], with flat end caps: `segments` points around each
// rim (on the cylinder), a fan from each cap's centre; 4 segments triangles.
inline TriangleMesh cylinder_mesh(const Vec3& center, const Vec3& axis, double radius, double a0,
                                  double a1, int segments) {
  if (!(radius > 0) || !(a0 < a1) || segments < 3 || !std::isfinite(a0) || !std::isfinite(a1))
    throw std::invalid_argument("geometry: cylinder_mesh needs radius > 0, a0 < a1, segments >= 3");
  // Two unit vectors across the axis.
  const Vec3 t = std::fabs(axis.x) < 0.9 ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
  const Vec3 e1 = normalized(t - dot(t, axis) * axis), e2 = cross(axis, e1);
  std::vector<Vec3> pts;
  for (const double a : {a0, a1})
    for (int k = 0; k < segments; ++k) {
      const double phi = 2 * M_PI * k / segments;
      pts.push_back(center + a * axis + radius * (std::cos(phi) * e1 + std::sin(phi) * e2));
    }
  const int c0 = int(pts.size()), c1 = c0 + 1;
  pts.push_back(center + a0 * axis);
  pts.push_back(center + a1 * axis);
  std::vector<std::array<int, 3>> tris;
  for (int k = 0; k < segments; ++k) {
    const int j = (k + 1) % segments, b0 = k, b1 = j, u0 = segments + k, u1 = segments + j;
    tris.push_back({b0, b1, u1});  // (e1, e2, axis) is right-handed: outward
    tris.push_back({b0, u1, u0});
    tris.push_back({c0, b1, b0});  // the cap at a0 faces -axis
    tris.push_back({c1, u0, u1});  // the cap at a1 faces +axis
  }
  return detail::soup(pts, tris, "cylinder_mesh(" + std::to_string(segments) + ")");
}

}  // namespace kflow::geometry
