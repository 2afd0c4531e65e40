// Triangle meshes on every backend: a tessellated sphere (made here, and the
// ASCII and binary STL files in cases/geometry/) against the analytic sphere
// up to the faceting, a cube whose vertices and edges lie on node rows (the
// rays through them: exact flags, no double-counted crossing), the same cube
// off the nodes (q at known fractions), a torus (four crossings a ray), a 2D
// slice, and the same results on every backend.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "geometry/geometry_helpers.hpp"
#include "kflow/geometry/tessellate.hpp"
#include "linalg/backends.hpp"

namespace geo = kflow::geometry;
using kflow::test::HostGeometry;

namespace {

// The largest distance between the sphere (c, r) and the planes of the
// mesh's facets (each facet's nearest point to c is inside it: small facets
// of a sphere).
double facet_gap(const geo::TriangleMesh& m, const geo::Vec3& c, double r) {
  double gap = 0;
  for (std::size_t t = 0; t < m.triangles(); ++t) {
    const geo::Vec3* v = &m.vertices[3 * t];
    const geo::Vec3 n = geo::normalized(geo::cross(v[1] - v[0], v[2] - v[0]));
    gap = std::max(gap, r - std::fabs(geo::dot(v[0] - c, n)));
  }
  return gap;
}

geo::Vec3 wall_point(const HostGeometry& g, const geo::Directions& dirs,
                     const kflow::test::HostLink& l) {
  const int nx = g.grid.n[0], ny = g.grid.n[1];
  const geo::Vec3 a = g.grid.node(l.node % nx, l.node / nx % ny, l.node / nx / ny);
  const int* c = dirs.c[l.dir];
  return a + l.q * geo::Vec3{c[0] * g.grid.h[0], c[1] * g.grid.h[1], c[2] * g.grid.h[2]};
}

// A faceted sphere against the analytic one: flags agree away from the
// band [r - gap, r], every wall point lies in that band, normals point out.
void check_faceted_sphere(const HostGeometry& g, const geo::Directions& dirs, const geo::Vec3& c,
                          double r, double gap) {
  REQUIRE(g.odd_columns == 0);
  REQUIRE(g.unresolved == 0);
  long checked = 0;
  for (int k = 0; k < g.grid.n[2]; ++k)
    for (int j = 0; j < g.grid.n[1]; ++j)
      for (int i = 0; i < g.grid.n[0]; ++i) {
        const double d = geo::norm(g.grid.node(i, j, k) - c);
        INFO("node " << i << " " << j << " " << k << " at " << d << " from the centre");
        if (d < r - gap - 1e-9) {
          REQUIRE(g.flag(i, j, k) != 0);
          ++checked;
        }
        if (d > r + 1e-9) {
          REQUIRE(g.flag(i, j, k) == 0);
          ++checked;
        }
      }
  CHECK(checked > 0);
  REQUIRE(!g.links.empty());
  for (const auto& l : g.links) {
    const geo::Vec3 w = wall_point(g, dirs, l);
    const double d = geo::norm(w - c);
    INFO("link node " << l.node << " dir " << l.dir << " q " << l.q);
    REQUIRE(d >= r - gap - 1e-9);
    REQUIRE(d <= r + 1e-9);
    CHECK(geo::dot(l.normal, geo::normalized(w - c)) > 0.95);
    CHECK(l.q > 0);
    CHECK(l.q <= 1);
  }
}

std::string source(const std::string& rel) {
  return kflow::test::source_dir() + "/" + rel;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE(
    "geometry: a tessellated sphere gives the sphere's flags and q up to its facets",
    "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const auto grid = kflow::test::cube_grid(21, 0.05);
  const auto dirs = kflow::test::lattice_directions<19>();
  const geo::Vec3 c{0.5213, 0.4791, 0.5037};
  const double r = 0.3127;
  const auto mesh = geo::sphere_mesh(c, r, 3);
  REQUIRE(mesh.triangles() == 1280);
  REQUIRE(geo::check_mesh(mesh).ok());
  const double gap = facet_gap(mesh, c, r);
  CHECK(gap < 0.2 * grid.h[0]);  // (the band is thinner than a spacing)
  check_faceted_sphere(
      kflow::test::voxelise_on<TestType>({kflow::test::mesh_body(0, mesh)}, grid, dirs), dirs, c, r,
      gap);
}

TEMPLATE_LIST_TEST_CASE(
    "geometry: the STL files in cases/geometry give the same sphere, ASCII and binary",
    "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const auto ascii = geo::read_stl(source("cases/geometry/sphere-ascii.stl"));
  const auto binary = geo::read_stl(source("cases/geometry/sphere-binary.stl"));
  REQUIRE(geo::check_mesh(ascii).triangles == 320);
  REQUIRE(geo::check_mesh(binary).triangles == 320);
  REQUIRE(ascii.vertices.size() == binary.vertices.size());
  for (std::size_t v = 0; v < ascii.vertices.size(); ++v)
    REQUIRE(ascii.vertices[v] == binary.vertices[v]);
  // Unit sphere at the origin in the files: placed as the test's sphere.
  const geo::Vec3 c{0.5213, 0.4791, 0.5037};
  const double r = 0.3127;
  const auto place = geo::Transform::scaling({r, r, r}).then(geo::Transform::translation(c));
  const auto a = geo::transformed(ascii, place), b = geo::transformed(binary, place);
  const auto grid = kflow::test::cube_grid(21, 0.05);
  const auto dirs = kflow::test::lattice_directions<27>();
  const auto ga = kflow::test::voxelise_on<TestType>({kflow::test::mesh_body(0, a)}, grid, dirs);
  const auto gb = kflow::test::voxelise_on<TestType>({kflow::test::mesh_body(0, b)}, grid, dirs);
  // (the files' vertices are float32 on the unit sphere: the gap with a margin)
  check_faceted_sphere(ga, dirs, c, r, facet_gap(a, c, r) + 1e-6);
  REQUIRE(ga.flags == gb.flags);
  REQUIRE(ga.links.size() == gb.links.size());
}

TEMPLATE_LIST_TEST_CASE("geometry: rays through a cube mesh's edges and vertices count once",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  // Corners and cuts (every 1/8) on the nodes: many rays run exactly through
  // vertices, along edges and face diagonals.  The solid is [lo, hi) on each
  // axis (a node on a face is solid where the body begins, fluid where it ends).
  const geo::Vec3 lo{0.25, 0.25, 0.25}, hi{0.75, 0.75, 0.75};
  const auto dirs = kflow::test::lattice_directions<27>();
  for (const auto& cells : {std::array<int, 3>{4, 4, 4}, std::array<int, 3>{2, 4, 1}}) {
    const auto mesh = geo::box_mesh(lo, hi, cells);
    REQUIRE(geo::check_mesh(mesh).ok());
    for (const double h : {0.125, 0.0625}) {
      const int n = int(1 / h) + 1;
      const auto g = kflow::test::voxelise_on<TestType>({kflow::test::mesh_body(0, mesh)},
                                                        kflow::test::cube_grid(n, h), dirs);
      REQUIRE(g.odd_columns == 0);
      REQUIRE(g.unresolved == 0);
      long solid = 0;
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            const geo::Vec3 x = g.grid.node(i, j, k);
            const bool in =
                x.x >= lo.x && x.x < hi.x && x.y >= lo.y && x.y < hi.y && x.z >= lo.z && x.z < hi.z;
            INFO("h " << h << " node " << i << " " << j << " " << k);
            REQUIRE((g.flag(i, j, k) != 0) == in);
            solid += in;
          }
      CHECK(solid == long(std::pow(0.5 / h, 3) + 0.5));
      // every wall point on the cube's surface (q = min_q: the fluid node is
      // on a face where the body ends, the wall at the node)
      for (const auto& l : g.links) {
        auto at = l;
        if (l.q == geo::min_q) at.q = 0;
        const geo::Vec3 w = wall_point(g, dirs, at);
        double level = -1e300;
        for (int d = 0; d < 3; ++d) level = std::max(level, std::max(lo[d] - w[d], w[d] - hi[d]));
        INFO("link node " << l.node << " dir " << l.dir << " q " << l.q);
        REQUIRE(std::fabs(level) < 1e-12);
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("geometry: a cube mesh off the nodes cuts links at the known fractions",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  // The nodes shifted by 0.3 h: the faces lie 0.3 h or 0.7 h from the nodes.
  const double h = 0.0625;
  const geo::Vec3 lo{0.25, 0.25, 0.25}, hi{0.75, 0.75, 0.75};
  const auto grid = kflow::test::cube_grid(16, h, {0.3 * h, 0.3 * h, 0.3 * h});
  const auto dirs = kflow::test::lattice_directions<19>();
  const auto g = kflow::test::voxelise_on<TestType>(
      {kflow::test::mesh_body(4, geo::box_mesh(lo, hi, {3, 5, 2}))}, grid, dirs);
  REQUIRE(g.unresolved == 0);
  int axis = 0;
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) {
        const geo::Vec3 x = grid.node(i, j, k);
        const bool in =
            x.x > lo.x && x.x < hi.x && x.y > lo.y && x.y < hi.y && x.z > lo.z && x.z < hi.z;
        REQUIRE((g.flag(i, j, k) == 5) == in);
      }
  for (const auto& l : g.links) {
    REQUIRE(l.body == 4);
    const int* c = dirs.c[l.dir];
    if (std::abs(c[0]) + std::abs(c[1]) + std::abs(c[2]) != 1) continue;
    ++axis;
    const int d = c[0] ? 0 : c[1] ? 1 : 2;
    const bool up = c[d] > 0;
    // from below the low face: 0.7 h to it; from above the high face: 0.3 h
    CHECK(std::fabs(l.q - (up ? 0.7 : 0.3)) < 1e-12);
    CHECK(l.normal[d] == (up ? -1.0 : 1.0));
  }
  CHECK(axis == 6 * 8 * 8);
}

TEMPLATE_LIST_TEST_CASE("geometry: a torus mesh (four crossings a ray) against the analytic torus",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const double R = 0.3, r = 0.12;
  const geo::Vec3 c{0.5, 0.5, 0.5};
  const auto turn = geo::Transform::rotation({1, 0.3, 0}, 0.35, c);
  const auto mesh = geo::transformed(geo::torus_mesh(c, R, r, 96, 48), turn);
  REQUIRE(geo::check_mesh(mesh).ok());
  const auto grid = kflow::test::cube_grid(33, 1.0 / 32);
  const auto g = kflow::test::voxelise_on<TestType>({kflow::test::mesh_body(0, mesh)}, grid,
                                                    kflow::test::lattice_directions<19>());
  REQUIRE(g.odd_columns == 0);
  REQUIRE(g.unresolved == 0);
  long agree = 0;
  for (int k = 0; k < 33; ++k)
    for (int j = 0; j < 33; ++j)
      for (int i = 0; i < 33; ++i) {
        const geo::Vec3 x = turn.body_point(grid.node(i, j, k)) - c;
        const double s = std::sqrt(x.x * x.x + x.y * x.y) - R;
        const double dist = std::sqrt(s * s + x.z * x.z) - r;  // to the torus surface
        if (std::fabs(dist) < 0.002) continue;                 // (the facets' chords: under 1e-3)
        INFO("node " << i << " " << j << " " << k << " at " << dist);
        REQUIRE((g.flag(i, j, k) != 0) == (dist < 0));
        ++agree;
      }
  CHECK(agree > 30000);
}

TEMPLATE_LIST_TEST_CASE("geometry: a 2D plane of nodes slices a mesh (D2Q9)", "[unit][geometry]",
                        kflow::test::ExecutionSpaces) {
  const geo::Vec3 c{0.5213, 0.4791, 0.5};
  const double r = 0.3127;
  const auto mesh = geo::sphere_mesh(c, r, 4);
  auto grid = kflow::test::cube_grid(41, 0.025);
  grid.n[2] = 1;
  grid.origin[2] = 0.5;
  const auto dirs = kflow::test::lattice_directions<9>();
  check_faceted_sphere(
      kflow::test::voxelise_on<TestType>({kflow::test::mesh_body(0, mesh)}, grid, dirs), dirs, c, r,
      facet_gap(mesh, c, r));
}

TEMPLATE_LIST_TEST_CASE("geometry: every backend gives the host's flags and links",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const geo::Vec3 c{0.5213, 0.4791, 0.5037};
  std::vector<geo::Body> bodies = {
      kflow::test::mesh_body(0, geo::sphere_mesh(c, 0.25, 3)),
      kflow::test::shape_body(1, geo::cylinder({0.5, 0.5, 0.5}, {1, 0.2, 0.1}, 0.08, 0.9)),
      kflow::test::mesh_body(2, geo::box_mesh({0.0, 0.0, 0.0}, {0.25, 0.25, 0.25}, {2, 2, 2}))};
  const auto grid = kflow::test::cube_grid(25, 1.0 / 24);
  const auto dirs = kflow::test::lattice_directions<27>();
  const auto g = kflow::test::voxelise_on<TestType>(bodies, grid, dirs);
  const auto s = kflow::test::voxelise_on<Kokkos::DefaultHostExecutionSpace>(bodies, grid, dirs);
  REQUIRE(g.flags == s.flags);
  REQUIRE(g.links.size() == s.links.size());
  for (std::size_t l = 0; l < g.links.size(); ++l) {
    REQUIRE(g.links[l].node == s.links[l].node);
    REQUIRE(g.links[l].dir == s.links[l].dir);
    REQUIRE(g.links[l].body == s.links[l].body);
    REQUIRE(std::fabs(g.links[l].q - s.links[l].q) <= 1e-14);
  }
  // and one more call on the same backend: the same list in the same order
  const auto again = kflow::test::voxelise_on<TestType>(bodies, grid, dirs);
  REQUIRE(again.links.size() == g.links.size());
  for (std::size_t l = 0; l < g.links.size(); ++l) REQUIRE(again.links[l].q == g.links[l].q);
}
