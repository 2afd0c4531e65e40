// Every problem of a case's [[body]] tables (kflow/model/case_geometry.hpp)
// reported together with file, line and key: a misspelt shape, a key of
// another shape, bad values, a bad STL file, a mesh file that is not a
// regular file, a body outside the domain or on a side kept free, bodies
// that cover no cell or every cell.  Placing shapes and meshes:
// test_case_geometry.cpp.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "geometry/case_bodies.hpp"
#include "geometry/geometry_helpers.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/error.hpp"
#include "unit/helpers.hpp"

namespace geo = kflow::geometry;
using Catch::Matchers::ContainsSubstring;

namespace {

using kflow::test::bodies::count_of;
using kflow::test::bodies::grid;
using kflow::test::bodies::parse;

}  // namespace

TEST_CASE("geometry: every [[body]] problem is reported at once, with file, line and key",
          "[unit][geometry]") {
  // A truncated STL file.
  const auto bad =
      std::filesystem::path(kflow::test::scratch_dir()) / "kflow-test-case-geometry-cut.stl";
  std::filesystem::create_directories(bad.parent_path());
  {
    std::ifstream in(kflow::test::source_dir() + "/cases/geometry/sphere-binary.stl",
                     std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(bad, std::ios::binary);
    out << bytes.substr(0, 1000);
  }
  const auto p = parse(R"([[body]]
shape = "sphre"

[[body]]
shape = "box"
min = [0.5, 0.1, 0.1]
max = [0.2, 0.3, 0.4]

[[body]]
shape = "box"
min = [0.1, 0.1, 0.1]
max = [0.2, 0.3, 0.4]
radius = 0.1

[[body]]
shape = "stl"

[[body]]
shape = "sphere"
center = [2.5, 0.5, 0.5]
radius = 0.1

[[body]]
shape = "circle"
center = [0.5, 0.5]
radius = 0.1

[[body]]
shape = "sphere"
center = [0.5, 0.5]
radius = -1

[[body]]
shape = "stl"
file = "missing.stl"

[[body]]
shape = "cylinder"
center = [0.5, 0.5, 0.5]
radius = 0.1
axis = [0, 0, 0]

[[body]]
shape = "stl"
file = ")" + bad.string() + R"("

[[body]]
shape = "sphere"
center = [0.5, 0.5, 0.5]
radius = 0.1
rotate = 30
)",
                       3);
  const auto& e = p.error;
  CHECK_THAT(e, ContainsSubstring("test.toml:2: key 'body[0].shape': expected one of box, sphere, "
                                  "circle, cylinder, stl, obj, got \"sphre\" (did you mean "
                                  "\"sphere\"?)"));
  CHECK_THAT(e, ContainsSubstring("test.toml:7: key 'body[1].max': expected max > min"));
  CHECK_THAT(e, ContainsSubstring("test.toml:13: key 'body[2].radius': a box has no 'radius'"));
  CHECK(count_of(e, "a box has no 'radius'") == 1);  // (a key of three shapes, once)
  CHECK_THAT(e, ContainsSubstring("key 'body[3].file': missing; expected the STL file"));
  CHECK_THAT(e, ContainsSubstring("key 'body[4]': the body lies outside the domain: its bounding "
                                  "box is x in [2.4, 2.6]"));
  CHECK_THAT(e, ContainsSubstring("key 'body[5].shape': \"circle\" is a 2D shape"));
  CHECK_THAT(e, ContainsSubstring("test.toml:30: key 'body[6].center': expected an array of 3 "
                                  "numbers"));
  CHECK_THAT(e, ContainsSubstring("test.toml:31: key 'body[6].radius': expected a number > 0, "
                                  "got -1"));
  CHECK_THAT(e, ContainsSubstring("key 'body[7].file': "));
  CHECK_THAT(e, ContainsSubstring("cases/geometry/missing.stl: cannot read the STL file: No such "
                                  "file or directory"));
  CHECK_THAT(e, ContainsSubstring("key 'body[8].axis': expected a non-zero direction"));
  CHECK_THAT(e, ContainsSubstring("key 'body[9].file': " + bad.string() +
                                  ": binary STL: the header counts 320 triangles"));
  CHECK_THAT(e, ContainsSubstring("truncated (18 whole triangles"));
  CHECK_THAT(e, ContainsSubstring("key 'body[10].rotate': expected a table { axis = [x, y, z], "
                                  "degrees = angle }"));
  std::filesystem::remove(bad);

  // Unknown keys, with a suggestion (reported by the case's key check).
  CHECK_THAT(parse("[[body]]\nshape = \"sphere\"\ncenter = [0.5, 0.5, 0.5]\nradius = 0.1\n"
                   "raduis = 0.2\n",
                   3)
                 .error,
             ContainsSubstring("test.toml:5: key 'body[0].raduis': unknown key (did you mean "
                               "'radius'?)"));
}

// Issue 72: every problem of the bodies once, none made up, none lost.
TEST_CASE("geometry: [[body]] problems: each once, no false unknown key, none lost",
          "[unit][geometry]") {
  // A key of another shape: one message, not three (a "center" of three
  // shapes; the box itself is fine).
  const auto a = parse(
                     "[[body]]\nshape = \"box\"\nmin = [0.3, 0.3]\nmax = [0.5, 0.5]\n"
                     "center = [0.4, 0.4]\n",
                     2)
                     .error;
  CHECK(count_of(a, "a box has no 'center'") == 1);
  CHECK(count_of(a, "kflow: error:") == 0);  // (the one problem)
  CHECK_THAT(a, ContainsSubstring("test.toml:5: key 'body[0].center': a box has no 'center' (a "
                                  "box takes min, max, and shape, name"));

  // A bad shape: only the shape, with file, key, value and the choices; its
  // other keys are not unknown (a key of no shape still is).
  const auto b = parse(
                     "[[body]]\nshape = \"blob\"\ncenter = [0.4, 0.4]\nradius = 0.1\n"
                     "colour = 1\n",
                     2)
                     .error;
  CHECK_THAT(b, ContainsSubstring("test.toml:2: key 'body[0].shape': expected one of box, sphere, "
                                  "circle, cylinder, stl, obj, got \"blob\""));
  CHECK_THAT(b, ContainsSubstring("test.toml:5: key 'body[0].colour': unknown key"));
  CHECK(count_of(b, "'body[0].center'") == 0);
  CHECK(count_of(b, "'body[0].radius'") == 0);
  CHECK(count_of(b, "kflow: error:") == 1);  // (two problems)

  // Nor after a problem that stops a body early (a circle in 3D: its
  // centre and radius, its placement keys, are the body's own).
  const auto b3 = parse(
                      "[[body]]\nshape = \"circle\"\ncenter = [0.4, 0.4]\nradius = 0.1\n"
                      "translate = [0.1, 0.1, 0.1]\n",
                      3)
                      .error;
  CHECK_THAT(b3, ContainsSubstring("key 'body[0].shape': \"circle\" is a 2D shape"));
  CHECK(count_of(b3, "unknown key") == 0);

  // An unknown key of one body is reported when another body fails.
  const auto c = parse(
                     "[[body]]\nshape = \"circle\"\ncenter = [0.4, 0.4]\nradius = 0.1\n"
                     "raduis = 0.2\n\n[[body]]\nshape = \"box\"\nmin = [0.5, 0.5]\n"
                     "max = [0.3, 0.3]\n",
                     2)
                     .error;
  CHECK_THAT(c, ContainsSubstring("test.toml:5: key 'body[0].raduis': unknown key (did you mean "
                                  "'radius'?)"));
  CHECK_THAT(c, ContainsSubstring("test.toml:10: key 'body[1].max': expected max > min"));
  CHECK(count_of(c, "kflow: error:") == 1);  // (two problems)

  // A corner that failed to read is not compared with the other.
  const auto d =
      parse("[[body]]\nshape = \"box\"\nmin = [0.5, \"x\"]\nmax = [0.3, 0.3]\n", 2).error;
  CHECK_THAT(d, ContainsSubstring("key 'body[0].min': expected an array of 2 numbers"));
  CHECK(count_of(d, "expected max > min") == 0);
}

TEST_CASE("geometry: a body on a side the model keeps free is refused with the numbers",
          "[unit][geometry]") {
  kflow::BodyRules inflow;
  inflow.keep_off[0][0] = true;
  inflow.why = "an inflow";
  const std::string sphere =
      "[[body]]\nshape = \"sphere\"\ncenter = [0.05, 0.5, 0.5]\nradius = 0.1\n";
  CHECK_THAT(parse(sphere, 3, inflow).error,
             ContainsSubstring("test.toml:1: key 'body[0]': the body reaches the west side (x = "
                               "0), an inflow: its bounding box is x in [-0.05, 0.15]"));
  CHECK(parse(sphere, 3).error == "");
  // (the east side is free)
  CHECK(
      parse("[[body]]\nshape = \"box\"\nmin = [0.9, 0.2, 0.2]\nmax = [1.5, 0.4, 0.4]\n", 3, inflow)
          .error == "");
}

// An STL or OBJ `file` that is a FIFO (read for ever), a device (/dev/zero
// until std::bad_alloc) or a directory (a raw basic_filebuf::underflow
// exception) is named before it is opened, with the case file, line and key,
// as other body problems are.
TEST_CASE("geometry: a mesh file that is a FIFO, a device or a directory is named, never read",
          "[unit][geometry]") {
  kflow::test::TempDir tmp("mesh-path");
  const std::string name = tmp.str() + "/case.toml";
  std::filesystem::create_directories(tmp.path / "x.stl");
  std::filesystem::create_directories(tmp.path / "y.obj");
  kflow::test::Fifo fifo(tmp.str() + "/pipe.stl");
  // (/dev/null stands for /dev/zero, which the old reader read until memory ran out)
  const auto e = parse(R"([[body]]
shape = "stl"
file = "x.stl"

[[body]]
shape = "stl"
file = "pipe.stl"

[[body]]
shape = "stl"
file = "/dev/null"

[[body]]
shape = "obj"
file = "y.obj"
)",
                       3, {}, name)
                     .error;
  CHECK_THAT(e, ContainsSubstring("case.toml:3: key 'body[0].file': " + tmp.str() +
                                  "/x.stl: cannot read the STL file: it is a directory, not a "
                                  "file"));
  CHECK_THAT(e, ContainsSubstring("case.toml:7: key 'body[1].file': " + tmp.str() +
                                  "/pipe.stl: cannot read the STL file: it is a FIFO (named "
                                  "pipe), not a file"));
  CHECK(fifo.opened == 0);
  CHECK_THAT(e, ContainsSubstring("case.toml:11: key 'body[2].file': /dev/null: cannot read the "
                                  "STL file: it is a character device, not a file"));
  CHECK_THAT(e, ContainsSubstring("case.toml:15: key 'body[3].file': " + tmp.str() +
                                  "/y.obj: cannot read the OBJ file: it is a directory"));
}

TEST_CASE("geometry: a body that covers no cell, or bodies that cover every cell, are refused",
          "[unit][geometry]") {
  const auto nodes = kflow::cell_centres(grid(3), false);  // centres 0.025, 0.075, ...
  auto voxelise = [&](const std::string& text) -> std::string {
    const auto p = parse(text, 3);
    REQUIRE(p.error == "");
    try {
      kflow::body_geometry(Kokkos::DefaultHostExecutionSpace(), p.bodies, nodes,
                           geo::Directions({{1, 0, 0}, {-1, 0, 0}}));
    } catch (const kflow::Error& e) {
      return e.what();
    }
    return "";
  };
  // a sphere between cell centres (radius 1e-3, cells 0.05) and one inside
  // an earlier body: both named, once each, in one message
  const auto none = voxelise(R"([[body]]
shape = "sphere"
name = "dust"
center = [0.5, 0.5, 0.5]
radius = 1e-3

[[body]]
shape = "sphere"
name = "big"
center = [0.3, 0.3, 0.3]
radius = 0.2

[[body]]
shape = "sphere"
name = "inner"
center = [0.3, 0.3, 0.3]
radius = 0.1
)");
  CHECK_THAT(none, ContainsSubstring("[[body]] 'dust' covers no cell of the grid"));
  CHECK_THAT(none, ContainsSubstring("[[body]] 'inner' covers no cell of the grid"));
  CHECK(count_of(none, "covers no cell") == 2);
  CHECK(count_of(none, "'big'") == 0);
  // a box larger than the domain leaves no fluid
  CHECK_THAT(voxelise(R"([[body]]
shape = "box"
min = [-1, -1, -1]
max = [2, 2, 2]
)"),
             ContainsSubstring("the bodies cover every cell of the grid (8000 cells)"));
  // a body of some cells passes
  CHECK(voxelise(R"([[body]]
shape = "sphere"
center = [0.5, 0.5, 0.5]
radius = 0.2
)") == "");
}
