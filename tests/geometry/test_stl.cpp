// The STL reader and the mesh checks: both formats read back what was
// written, the format is told by size and content, and every bad file or
// mesh is an error that names the file and says what is wrong, with the
// numbers (bytes expected and found, the line of a bad token, the first bad
// triangle, the boundary edges of an open mesh).

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "geometry/geometry_helpers.hpp"
#include "kflow/geometry/mesh.hpp"
#include "kflow/geometry/stl.hpp"
#include "kflow/geometry/tessellate.hpp"

namespace geo = kflow::geometry;
using Catch::Matchers::ContainsSubstring;

namespace {

// what() of the MeshError that f throws ("" when none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const geo::MeshError& e) {
    return e.what();
  }
  return "";
}

geo::TriangleMesh cube() {
  return geo::box_mesh({0, 0, 0}, {1, 1, 1}, {1, 1, 1});
}

}  // namespace

TEST_CASE("geometry: STL files, binary and ASCII, read back what was written", "[unit][geometry]") {
  const auto m = geo::sphere_mesh({0.5, 0.25, -1}, 2, 1);
  const auto b = geo::parse_stl(geo::stl_binary(m), "b.stl");
  const auto a = geo::parse_stl(geo::stl_ascii(m), "a.stl");
  REQUIRE(b.triangles() == 80);
  REQUIRE(a.triangles() == 80);
  for (std::size_t v = 0; v < m.vertices.size(); ++v) {
    CHECK(a.vertices[v] == m.vertices[v]);  // 17 digits: bit for bit
    for (int d = 0; d < 3; ++d) CHECK(b.vertices[v][d] == double(float(m.vertices[v][d])));
  }
  CHECK(a.source == "a.stl");
  // A binary file whose header begins with "solid" is binary when its size
  // matches its count.
  const auto s = geo::parse_stl(geo::stl_binary(cube(), "solid cube"), "s.stl");
  CHECK(s.triangles() == 12);
  // ASCII: keywords in any case, several solids in a row, a name or none.
  const std::string facet =
      "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
      "endfacet\n";
  const auto two = geo::parse_stl("solid\n" + facet + "endsolid\nSOLID x y\n" +
                                      "FACET NORMAL 0 0 1 OUTER LOOP VERTEX 0 0 0 VERTEX 1 0 0 "
                                      "VERTEX 0 1 0 ENDLOOP ENDFACET\nendsolid x y\n",
                                  "t.stl");
  CHECK(two.triangles() == 2);
  CHECK(two.vertices[4].x == 1.0);
  // An ASCII file that begins with a UTF-8 byte order mark is ASCII (it
  // was read as binary, with a triangle count made of its text).
  const auto bom = geo::parse_stl("\xEF\xBB\xBF" + geo::stl_ascii(m), "bom.stl");
  REQUIRE(bom.triangles() == 80);
  for (std::size_t v = 0; v < m.vertices.size(); ++v) CHECK(bom.vertices[v] == m.vertices[v]);
}

TEST_CASE("geometry: bad STL files are refused with the file, what is wrong and the numbers",
          "[unit][geometry]") {
  CHECK_THAT(error_of([] { geo::parse_stl("", "empty.stl"); }),
             ContainsSubstring("empty.stl: empty file (0 bytes)"));
  CHECK_THAT(error_of([] { geo::parse_stl(std::string(10, '\x01'), "short.stl"); }),
             ContainsSubstring("short.stl: 10 bytes: too short for a binary STL"));
  // Truncated: 12 triangles take 84 + 600 = 684 bytes.
  const std::string full = geo::stl_binary(cube());
  REQUIRE(full.size() == 684);
  const auto cut = error_of([&] { geo::parse_stl(full.substr(0, 674), "cut.stl"); });
  CHECK_THAT(cut, ContainsSubstring("cut.stl: binary STL: the header counts 12 triangles"));
  CHECK_THAT(cut, ContainsSubstring("684 bytes; the file has 674 bytes: truncated (11 whole "
                                    "triangles, 10 bytes missing)"));
  CHECK_THAT(error_of([&] { geo::parse_stl(full + "xyz", "long.stl"); }),
             ContainsSubstring("(3 bytes too many)"));
  // A binary file that begins with "solid" and is cut: still a size error.
  const std::string solid = geo::stl_binary(cube(), "solid cube");
  CHECK_THAT(error_of([&] { geo::parse_stl(solid.substr(0, 600), "sb.stl"); }),
             ContainsSubstring("begins with 'solid' but is not text"));
  CHECK_THAT(error_of([&] { geo::parse_stl(std::string(84, '\0'), "zero.stl"); }),
             ContainsSubstring("zero.stl: binary STL with no triangles"));

  // ASCII: every token checked, with the line.
  std::string text = geo::stl_ascii(cube());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  CHECK_THAT(error_of([&] { geo::parse_stl(with("vertex", "vertx"), "bad.stl"); }),
             ContainsSubstring("bad.stl:4: ASCII STL: expected 'vertex', got 'vertx'"));
  CHECK_THAT(error_of([&] { geo::parse_stl(with("outer loop", "outer lop"), "bad.stl"); }),
             ContainsSubstring("bad.stl:3: ASCII STL: expected 'loop', got 'lop'"));
  {
    std::string t = text;
    const auto n0 = t.find("facet normal ") + 13;
    t.replace(n0, t.find(' ', n0) - n0, "0,5");
    CHECK_THAT(error_of([&] { geo::parse_stl(t, "n.stl"); }),
               ContainsSubstring("n.stl:2: ASCII STL: expected a number, got '0,5'"));
  }
  // a facet with two vertices
  const auto v3 =
      text.find("      vertex", text.find("      vertex", text.find("      vertex") + 1) + 1);
  std::string two = text;
  two.erase(v3, two.find('\n', v3) + 1 - v3);
  CHECK_THAT(error_of([&] { geo::parse_stl(two, "two.stl"); }),
             ContainsSubstring("two.stl:6: ASCII STL: expected 'vertex', got 'endloop'"));
  const std::string open = text.substr(0, text.rfind("endsolid"));
  CHECK_THAT(error_of([&] { geo::parse_stl(open, "open.stl"); }),
             ContainsSubstring("expected 'facet' or 'endsolid', got the end of the file"));
  CHECK_THAT(error_of([&] { geo::parse_stl(text + "junk\n", "tail.stl"); }),
             ContainsSubstring("expected 'solid', got 'junk'"));
  CHECK_THAT(error_of([&] { geo::parse_stl("solid x\nendsolid x\n", "none.stl"); }),
             ContainsSubstring("none.stl: ASCII STL with no facets"));

  // Files on disk: a missing one, and one that reads.
  CHECK_THAT(error_of([] { geo::read_stl("/nonexistent/kflow/x.stl"); }),
             ContainsSubstring("/nonexistent/kflow/x.stl: cannot open"));
  const auto path = std::filesystem::path(kflow::test::scratch_dir()) / "kflow-test-stl-read.stl";
  std::filesystem::create_directories(path.parent_path());
  {
    std::ofstream f(path, std::ios::binary);
    f << full;
  }
  CHECK(geo::read_stl(path.string()).triangles() == 12);
  std::filesystem::remove(path);
}

TEST_CASE("geometry: meshes that bound no solid are refused with the counts", "[unit][geometry]") {
  CHECK(geo::check_mesh(cube()).ok());
  // NaN and Inf coordinates: counted, the first named
  auto m = cube();
  m.source = "nan.stl";
  m.vertices[3 * 5 + 1].y = std::numeric_limits<double>::quiet_NaN();
  m.vertices[3 * 9].z = std::numeric_limits<double>::infinity();
  auto e = error_of([&] { geo::check_mesh(m); });
  CHECK_THAT(e, ContainsSubstring("nan.stl: 2 of 12 triangles have a NaN or infinite coordinate "
                                  "(the first is triangle 5)"));
  // through the ASCII reader too
  std::string text = geo::stl_ascii(cube());
  const auto at = text.find("vertex", text.find("facet", text.find("facet") + 1));
  text.replace(text.find(' ', at) + 1, 1, "nan ");
  const auto read = geo::parse_stl(text, "nan2.stl");
  CHECK_THAT(error_of([&] { geo::check_mesh(read); }),
             ContainsSubstring("nan2.stl: 1 of 12 triangles have a NaN or infinite coordinate "
                               "(the first is triangle 1)"));
  // zero area: two triangles collapsed to segments
  m = cube();
  m.source = "flat.stl";
  m.vertices[3 * 4 + 2] = m.vertices[3 * 4 + 1];
  m.vertices[3 * 7 + 2] = 0.5 * (m.vertices[3 * 7] + m.vertices[3 * 7 + 1]);
  e = error_of([&] { geo::check_mesh(m); });
  CHECK_THAT(e, ContainsSubstring("flat.stl: 2 of 12 triangles have zero area (degenerate; the "
                                  "first is triangle 4)"));
  // open: one triangle removed leaves 3 boundary edges; two sharing an edge, 4
  m = cube();
  m.source = "open.stl";
  m.vertices.erase(m.vertices.begin() + 3 * 11, m.vertices.end());
  CHECK_THAT(error_of([&] { geo::check_mesh(m); }),
             ContainsSubstring("open.stl: the mesh is open: 3 boundary edges"));
  m.vertices.erase(m.vertices.begin() + 3 * 10, m.vertices.end());
  CHECK_THAT(error_of([&] { geo::check_mesh(m); }), ContainsSubstring("4 boundary edges"));
  // a triangle twice: its edges shared by three triangles
  m = cube();
  m.source = "twice.stl";
  m.vertices.insert(m.vertices.end(), m.vertices.begin(), m.vertices.begin() + 3);
  e = error_of([&] { geo::check_mesh(m); });
  CHECK_THAT(e, ContainsSubstring("twice.stl: 3 non-manifold edges"));
  CHECK_THAT(e, !ContainsSubstring("boundary"));
  // every problem at once
  m = cube();
  m.source = "all.stl";
  m.vertices[0].x = std::numeric_limits<double>::quiet_NaN();
  m.vertices[3 * 6 + 2] = m.vertices[3 * 6];
  e = error_of([&] { geo::check_mesh(m); });
  CHECK_THAT(e, ContainsSubstring("NaN"));
  CHECK_THAT(e, ContainsSubstring("zero area"));
  CHECK_THAT(e, ContainsSubstring("boundary edges"));
  CHECK_THAT(error_of([] {
               geo::check_mesh(geo::TriangleMesh{{}, "none.stl"});
             }),
             ContainsSubstring("none.stl: no triangles"));
}
