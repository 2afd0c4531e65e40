#pragma once
// Triangle meshes on the host: a triangle soup as an STL file holds it (three
// vertices per triangle), the checks a mesh must pass before it is
// voxelised, and its placement.
//
// A mesh bounds a solid only when it is closed: every edge shared by exactly
// two triangles.  Edges are found by welding vertices with identical
// coordinates (STL writers repeat a shared vertex bit for bit), so a gap of
// any width is found, and so is a crack that one rounding made.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kflow/geometry/transform.hpp"
#include "kflow/geometry/vec.hpp"

namespace kflow::geometry {

// A bad mesh or mesh file; what() names the file.
class MeshError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TriangleMesh {
  std::vector<Vec3> vertices;  // triangle t: vertices 3t, 3t + 1, 3t + 2
  std::string source;          // the file (or what made it), for messages
  std::size_t triangles() const { return vertices.size() / 3; }
};

// What inspect() found; triangle indices are 0-based, in file order.
struct MeshReport {
  std::size_t triangles = 0;
  std::size_t nonfinite = 0, first_nonfinite = 0;    // a NaN or Inf coordinate
  std::size_t degenerate = 0, first_degenerate = 0;  // zero area (collinear vertices)
  std::size_t boundary_edges = 0;                    // used by one triangle only
  std::size_t nonmanifold_edges = 0;                 // used by more than two
  bool ok() const {
    return triangles > 0 && nonfinite == 0 && degenerate == 0 && boundary_edges == 0 &&
           nonmanifold_edges == 0;
  }
};

inline MeshReport inspect(const TriangleMesh& mesh) {
  MeshReport r;
  const std::size_t nt = mesh.triangles();
  r.triangles = nt;
  std::vector<char> finite(nt, 1);
  for (std::size_t t = 0; t < nt; ++t) {
    const Vec3* v = &mesh.vertices[3 * t];
    for (int k = 0; k < 3; ++k)
      if (!std::isfinite(v[k].x) || !std::isfinite(v[k].y) || !std::isfinite(v[k].z)) finite[t] = 0;
    if (!finite[t]) {
      if (r.nonfinite++ == 0) r.first_nonfinite = t;
      continue;
    }
    const Vec3 n = cross(v[1] - v[0], v[2] - v[0]);
    if (n.x == 0 && n.y == 0 && n.z == 0)
      if (r.degenerate++ == 0) r.first_degenerate = t;
  }
  // Weld: one id per distinct point (finite triangles only).
  std::vector<std::pair<Vec3, std::uint32_t>> pts;
  pts.reserve(mesh.vertices.size());
  for (std::size_t t = 0; t < nt; ++t)
    if (finite[t])
      for (int k = 0; k < 3; ++k)
        pts.emplace_back(mesh.vertices[3 * t + k], std::uint32_t(3 * t + k));
  auto less = [](const std::pair<Vec3, std::uint32_t>& a, const std::pair<Vec3, std::uint32_t>& b) {
    if (a.first.x != b.first.x) return a.first.x < b.first.x;
    if (a.first.y != b.first.y) return a.first.y < b.first.y;
    return a.first.z < b.first.z;
  };
  std::sort(pts.begin(), pts.end(), less);
  std::vector<std::uint32_t> id(mesh.vertices.size(), 0);
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (i > 0 && !(pts[i - 1].first == pts[i].first)) ++next;
    id[pts[i].second] = next;
  }
  // Count the triangles on each edge.
  std::vector<std::uint64_t> edges;
  edges.reserve(3 * nt);
  for (std::size_t t = 0; t < nt; ++t) {
    if (!finite[t]) continue;
    for (int k = 0; k < 3; ++k) {
      std::uint64_t a = id[3 * t + k], b = id[3 * t + (k + 1) % 3];
      if (a == b) continue;  // (a degenerate triangle's collapsed edge)
      if (a > b) std::swap(a, b);
      edges.push_back(a << 32 | b);
    }
  }
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 0; i < edges.size();) {
    std::size_t j = i;
    while (j < edges.size() && edges[j] == edges[i]) ++j;
    if (j - i == 1) ++r.boundary_edges;
    if (j - i > 2) ++r.nonmanifold_edges;
    i = j;
  }
  return r;
}

// Every problem of `r` in one sentence for `source`; empty when none.
inline std::string describe_problems(const MeshReport& r, const std::string& source) {
  std::string s;
  auto add = [&](const std::string& what) {
    s += (s.empty() ? "" : "; ") + what;
  };
  const std::string of = " of " + std::to_string(r.triangles) + " triangles";
  if (r.triangles == 0) add("no triangles");
  if (r.nonfinite)
    add(std::to_string(r.nonfinite) + of + " have a NaN or infinite coordinate (the first is " +
        "triangle " + std::to_string(r.first_nonfinite) + ")");
  if (r.degenerate)
    add(std::to_string(r.degenerate) + of + " have zero area (degenerate; the first is triangle " +
        std::to_string(r.first_degenerate) + ")");
  if (r.boundary_edges)
    add("the mesh is open: " + std::to_string(r.boundary_edges) +
        " boundary edges (edges of one triangle only; a closed surface has none)");
  if (r.nonmanifold_edges)
    add(std::to_string(r.nonmanifold_edges) +
        " non-manifold edges (shared by more than two triangles)");
  return s.empty() ? s : source + ": " + s;
}

// Throws MeshError naming the file and every problem when the mesh does not
// bound a solid: no triangles, NaN or infinite coordinates, zero-area
// triangles, boundary or non-manifold edges.
inline MeshReport check_mesh(const TriangleMesh& mesh) {
  const MeshReport r = inspect(mesh);
  if (!r.ok()) throw MeshError(describe_problems(r, mesh.source));
  return r;
}

// The mesh placed by `t` (body -> domain).
inline TriangleMesh transformed(TriangleMesh mesh, const Transform& t) {
  for (auto& v : mesh.vertices) v = t.to_domain.point(v);
  return mesh;
}

inline Box3 bounds(const TriangleMesh& mesh) {
  Box3 b;
  for (const auto& v : mesh.vertices) b.add(v);
  return b;
}

}  // namespace kflow::geometry
