// The OBJ reader: a cube of quads in every face form and with relative
// indices is the box mesh, polygons are fans, what is skipped is skipped,
// the sphere of cases/geometry written as OBJ gives the STL's flags, and
// every bad file is an error that names the file and the line and says what
// is wrong, with the numbers (the index and the vertices defined so far).

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "geometry/geometry_helpers.hpp"
#include "kflow/geometry/mesh.hpp"
#include "kflow/geometry/obj.hpp"
#include "kflow/geometry/stl.hpp"
#include "kflow/geometry/tessellate.hpp"

namespace geo = kflow::geometry;
using Catch::Matchers::ContainsSubstring;

namespace {

// The volume a closed mesh bounds (positive when wound counter-clockwise
// seen from outside).
double volume(const geo::TriangleMesh& m) {
  double v = 0;
  for (std::size_t t = 0; t < m.triangles(); ++t) {
    const geo::Vec3* p = &m.vertices[3 * t];
    v += geo::dot(p[0], geo::cross(p[1], p[2])) / 6;
  }
  return v;
}

// The unit cube as six quads: each face form, relative indices (the bottom
// face before the top's vertices exist), a w, comments, statements that are
// skipped, a continued line and Windows line ends on two lines.
const std::string cube_obj = R"(# a unit cube of quads
mtllib cube.mtl
o cube

v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0 1.0
vn 0 0 -1
f -4//-1 -1//-1 -2//-1 -3//-1
v 0 0 1
v 1 0 1)"
                             "\r\n"
                             "v 1 1 1\r\n"
                             R"(v 0 1 1
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
vn 0 -1 0
vn 0 1 0
vn -1 0 0
vn 1 0 0
vp 0.5
g sides
usemtl grey
s off
f 5/1 6/2 7/3 8/4
f 1/1/3 2/2/3 6/3/3 5/4/3   # y = 0
f 4//4 8//4 \
  7//4 3//4
f 1 5 8 4
f -7//-1 -6//-1 -2//-1 -3//-1
l 1 2
)";

// The triangles of `m` as an OBJ file: three vertices and a face each (not
// shared), 17 digits (read back bit for bit); odd triangles with relative
// indices.
std::string obj_text(const geo::TriangleMesh& m) {
  std::string out = "# " + m.source + "\n";
  char line[160];
  for (std::size_t t = 0; t < m.triangles(); ++t) {
    for (int k = 0; k < 3; ++k) {
      const geo::Vec3& v = m.vertices[3 * t + std::size_t(k)];
      std::snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", v.x, v.y, v.z);
      out += line;
    }
    if (t % 2)
      out += "f -3 -2 -1\n";
    else
      out += "f " + std::to_string(3 * t + 1) + " " + std::to_string(3 * t + 2) + " " +
             std::to_string(3 * t + 3) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("geometry: an OBJ cube of quads in every face form is the box mesh", "[unit][geometry]") {
  const auto m = geo::parse_obj(cube_obj, "cube.obj");
  CHECK(m.source == "cube.obj");
  REQUIRE(m.triangles() == 12);
  REQUIRE(geo::check_mesh(m).ok());
  const auto box = geo::box_mesh({0, 0, 0}, {1, 1, 1}, {1, 1, 1});
  CHECK(std::fabs(volume(box) - 1) < 1e-12);
  CHECK(std::fabs(volume(m) - volume(box)) < 1e-12);  // (and wound outwards)
  const auto b = geo::bounds(m), bb = geo::bounds(box);
  CHECK(b.lo == bb.lo);
  CHECK(b.hi == bb.hi);
  // The first face, with relative indices before the top's vertices: 1 4 3 2.
  CHECK(m.vertices[0] == geo::Vec3{0, 0, 0});
  CHECK(m.vertices[1] == geo::Vec3{0, 1, 0});
  CHECK(m.vertices[2] == geo::Vec3{1, 1, 0});
  // The last, -7 -6 -2 -3 after 8 vertices: 2 3 7 6.
  CHECK(m.vertices[30] == geo::Vec3{1, 0, 0});
  CHECK(m.vertices[31] == geo::Vec3{1, 1, 0});
  CHECK(m.vertices[32] == geo::Vec3{1, 1, 1});
  CHECK(m.vertices[35] == geo::Vec3{1, 0, 1});
}

TEST_CASE("geometry: OBJ polygons are fans, and what is skipped is skipped", "[unit][geometry]") {
  // A pentagon: (v1, vk, vk+1).
  const auto p =
      geo::parse_obj("v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nf 1 2 3 4 5\n", "pentagon.obj");
  REQUIRE(p.triangles() == 3);
  const int fan[9] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
  const geo::Vec3 pts[5] = {{0, 0, 0}, {2, 0, 0}, {3, 1, 0}, {1, 2, 0}, {-1, 1, 0}};
  for (int k = 0; k < 9; ++k) CHECK(p.vertices[std::size_t(k)] == pts[fan[k]]);
  // A byte order mark, tabs, a comment that hides a backslash, a backslash
  // between tokens, the last line without a line end, exponents.
  const auto t = geo::parse_obj(
      "\xEF\xBB\xBFv\t1e0 0 0  # one\\\nv 0 1 0\nv 0\\\n 0 1.5E-1\nf 1 2\\\n3", "odd.obj");
  REQUIRE(t.triangles() == 1);
  CHECK(t.vertices[0] == geo::Vec3{1, 0, 0});
  CHECK(t.vertices[2] == geo::Vec3{0, 0, 0.15});
}

TEST_CASE("geometry: bad OBJ files are refused with the file, the line and the numbers",
          "[unit][geometry]") {
  const std::string tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";  // lines 1-3
  // Bad numbers, and vertices of 2 or 5 numbers.
  CHECK_THROWS_WITH(geo::parse_obj("v 0 0 0\nv 1 x 0\n", "n.obj"),
                    ContainsSubstring("n.obj:2: OBJ: 'v': expected a number, got 'x'"));
  CHECK_THROWS_WITH(geo::parse_obj("v 0,5 0 0\n", "n.obj"),
                    ContainsSubstring("n.obj:1: OBJ: 'v': expected a number, got '0,5'"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "vn 0 0 1a\n", "n.obj"),
                    ContainsSubstring("n.obj:4: OBJ: 'vn': expected a number, got '1a'"));
  CHECK_THROWS_WITH(
      geo::parse_obj("v 0 0\n", "c.obj"),
      ContainsSubstring("c.obj:1: OBJ: 'v' takes 3 coordinates x y z (and an optional w), got 2 "
                        "numbers"));
  CHECK_THROWS_WITH(geo::parse_obj("\nv 0 0 0 1 1\n", "c.obj"),
                    ContainsSubstring("c.obj:2: OBJ: 'v' takes 3 coordinates x y z (and an "
                                      "optional w), got 5 numbers"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "vn 0 1\n", "c.obj"),
                    ContainsSubstring("c.obj:4: OBJ: 'vn' takes 3 numbers x y z, got 2 numbers"));
  // Faces of fewer than 3 vertices (a continued face: its first line).
  CHECK_THROWS_WITH(
      geo::parse_obj(tri + "f 1 2\n", "f.obj"),
      ContainsSubstring("f.obj:4: OBJ: a face needs 3 or more vertices, got 2 vertices"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "\n# two\nf 1 \\\n 2\n", "f.obj"),
                    ContainsSubstring("f.obj:6: OBJ: a face needs 3 or more vertices"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f\n", "f.obj"),
                    ContainsSubstring("f.obj:4: OBJ: a face needs 3 or more vertices, got 0"));
  // Index 0, and indices past the vertices defined up to the face's line
  // (a vertex after it does not count; a continued face: the index's line).
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f 0 1 2\n", "i.obj"),
                    ContainsSubstring("i.obj:4: OBJ: vertex index 0 in '0': indices count from 1"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f 1 2 \\\n  0//1\n", "i.obj"),
                    ContainsSubstring("i.obj:5: OBJ: vertex index 0 in '0//1'"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f 1 2 4\nv 1 1 1\n", "i.obj"),
                    ContainsSubstring("i.obj:4: OBJ: vertex index 4 in '4' is out of range: 3 "
                                      "vertices (v) defined up to this line"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f -1 -2 -4\n", "i.obj"),
                    ContainsSubstring("i.obj:4: OBJ: vertex index -4 in '-4' is out of range: 3 "
                                      "vertices (v) defined up to this line (-1 is the last)"));
  CHECK_THROWS_WITH(geo::parse_obj("v 0 0 0\nf 1 2 3\n", "i.obj"),
                    ContainsSubstring("i.obj:2: OBJ: vertex index 2 in '2' is out of range: 1 "
                                      "vertex (v) defined"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f 99999999999999999999 1 2\n", "i.obj"),
                    ContainsSubstring("i.obj:4: OBJ: bad face vertex '99999999999999999999'"));
  // Texture and normal indices against the vt and vn lines before them.
  CHECK_THROWS_WITH(geo::parse_obj(tri + "vt 0 0\nf 1/1 2/2 3/1\n", "t.obj"),
                    ContainsSubstring("t.obj:5: OBJ: texture coordinate index 2 in '2/2' is out "
                                      "of range: 1 texture coordinate (vt) defined up to this "
                                      "line"));
  CHECK_THROWS_WITH(geo::parse_obj(tri + "f 1//1 2//1 3//1\n", "t.obj"),
                    ContainsSubstring("t.obj:4: OBJ: normal index 1 in '1//1' is out of range: 0 "
                                      "normals (vn) defined up to this line"));
  // Face vertices that are not i, i/t, i//n or i/t/n.
  for (const char* bad : {"1/", "1//", "/1", "1/2/3/4", "a", "1.5", "1/x", "1//+"}) {
    INFO(bad);
    CHECK_THROWS_WITH(geo::parse_obj(tri + "f 1 2 " + bad + "\n", "r.obj"),
                      ContainsSubstring(std::string("r.obj:4: OBJ: bad face vertex '") + bad +
                                        "': expected i, i/t, i//n or i/t/n with integer indices"));
  }
  // Statements not known: free-form geometry, points, a keyword's case.
  for (const char* kw : {"p 1", "curv 0 1 1 2", "V 0 0 0", "vx 1"}) {
    INFO(kw);
    const std::string word = std::string(kw).substr(0, std::string(kw).find(' '));
    CHECK_THROWS_WITH(geo::parse_obj(tri + "f 1 2 3\n" + kw + "\n", "k.obj"),
                      ContainsSubstring("k.obj:5: OBJ: unknown statement '" + word +
                                        "': kflow reads v and f (polygons)"));
  }
  // No faces: the last line.
  CHECK_THROWS_WITH(geo::parse_obj(tri, "none.obj"),
                    ContainsSubstring("none.obj:3: OBJ: no faces ('f' statements) by the end of "
                                      "the file (3 vertices)"));
  CHECK_THROWS_WITH(geo::parse_obj("", "empty.obj"),
                    ContainsSubstring("empty.obj:1: OBJ: no faces ('f' statements) by the end of "
                                      "the file (0 vertices)"));
  CHECK_THROWS_WITH(geo::parse_obj("# nothing\n\ng x\n", "c.obj"),
                    ContainsSubstring("c.obj:3: OBJ: no faces"));
  // Not text (a binary file), and line ends: \r\n counted once.
  CHECK_THROWS_WITH(geo::parse_obj(tri + std::string("v 0 0\0 0\n", 9), "b.obj"),
                    ContainsSubstring("b.obj:4: OBJ: byte 0x00 is not text (a binary file?)"));
  CHECK_THROWS_WITH(geo::parse_obj("v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 0\r\n", "crlf.obj"),
                    ContainsSubstring("crlf.obj:4: OBJ: vertex index 0"));
  // The mesh is read as it is: an open one is check_mesh's.
  const auto open = geo::parse_obj(tri + "f 1 2 3\n", "open.obj");
  CHECK_THROWS_WITH(geo::check_mesh(open),
                    ContainsSubstring("open.obj: the mesh is open: 3 boundary edges"));
  // Files on disk: a missing one, and one that reads.
  CHECK_THROWS_WITH(geo::read_obj("/nonexistent/kflow/x.obj"),
                    ContainsSubstring("/nonexistent/kflow/x.obj: cannot open"));
  const auto path = std::filesystem::path(kflow::test::scratch_dir()) / "kflow-test-obj-read.obj";
  std::filesystem::create_directories(path.parent_path());
  {
    std::ofstream f(path, std::ios::binary);
    f << cube_obj << "f 1 2 0\n";
  }
  CHECK_THROWS_WITH(geo::read_obj(path.string()),
                    ContainsSubstring(path.string() + ":35: OBJ: vertex index 0"));
  {
    std::ofstream f(path, std::ios::binary);
    f << cube_obj;
  }
  const auto m = geo::read_obj(path.string());
  CHECK(m.triangles() == 12);
  CHECK(m.source == path.string());
  std::filesystem::remove(path);
}

TEST_CASE("geometry: the sphere STL of cases/geometry written as OBJ gives the STL's flags",
          "[unit][geometry]") {
  using Space = Kokkos::DefaultHostExecutionSpace;
  const auto stl = geo::read_stl(kflow::test::source_dir() + "/cases/geometry/sphere-ascii.stl");
  REQUIRE(stl.triangles() == 320);
  const auto obj = geo::parse_obj(obj_text(stl), "sphere.obj");
  REQUIRE(geo::check_mesh(obj).triangles == 320);
  REQUIRE(obj.vertices.size() == stl.vertices.size());
  for (std::size_t v = 0; v < stl.vertices.size(); ++v) REQUIRE(obj.vertices[v] == stl.vertices[v]);
  CHECK(std::fabs(volume(obj) - volume(stl)) < 1e-12);
  CHECK(volume(obj) > 3.9);  // (the unit sphere's 4.19, less the facets)
  // Placed as the mesh tests place the STL, voxelised with D3Q27 links.
  const geo::Vec3 c{0.5213, 0.4791, 0.5037};
  const double r = 0.3127;
  const auto place = geo::Transform::scaling({r, r, r}).then(geo::Transform::translation(c));
  const auto grid = kflow::test::cube_grid(21, 0.05);
  const auto dirs = kflow::test::lattice_directions<27>();
  const auto gs = kflow::test::voxelise_on<Space>(
      {kflow::test::mesh_body(0, geo::transformed(stl, place))}, grid, dirs);
  const auto go = kflow::test::voxelise_on<Space>(
      {kflow::test::mesh_body(0, geo::transformed(obj, place))}, grid, dirs);
  REQUIRE(go.odd_columns == 0);
  long solid = 0;
  for (auto f : go.flags) solid += f != 0;
  CHECK(solid > 900);  // (4/3 pi (r/h)^3 = 1025 nodes, less the facets: 998)
  REQUIRE(go.flags == gs.flags);
  REQUIRE(go.links.size() == gs.links.size());
  for (std::size_t l = 0; l < go.links.size(); ++l) {
    REQUIRE(go.links[l].node == gs.links[l].node);
    REQUIRE(go.links[l].dir == gs.links[l].dir);
    REQUIRE(go.links[l].q == gs.links[l].q);
  }
}
