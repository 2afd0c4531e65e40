// The [[body]] tables of a case (kflow/model/case_geometry.hpp): shapes and
// STL and OBJ meshes placed by translate, scale and rotate, a note with each
// body's bounding box, a block of a decomposed grid, bad OBJ files.  Every
// other problem (a misspelt shape, a key of another shape, bad values, a bad
// STL file, a body outside the domain or on a side kept free) reported
// together with file, line and key: test_case_geometry_problems.cpp.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "geometry/case_bodies.hpp"
#include "geometry/geometry_helpers.hpp"
#include "kflow/geometry/tessellate.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/config.hpp"
#include "unit/helpers.hpp"

namespace geo = kflow::geometry;
using Catch::Matchers::ContainsSubstring;

namespace {

using kflow::test::bodies::count_of;
using kflow::test::bodies::grid;
using kflow::test::bodies::parse;

// The triangles of `m` as an OBJ file: three vertices and a face each.
std::string obj_text(const geo::TriangleMesh& m) {
  std::string out;
  char line[160];
  for (std::size_t t = 0; t < m.triangles(); ++t) {
    for (int k = 0; k < 3; ++k) {
      const geo::Vec3& v = m.vertices[3 * t + std::size_t(k)];
      std::snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", v.x, v.y, v.z);
      out += line;
    }
    out += "f -3 -2 -1\n";
  }
  return out;
}

}  // namespace

TEST_CASE("geometry: [[body]] tables give placed shapes and meshes with bounding-box notes",
          "[unit][geometry]") {
  const auto p = parse(R"([[body]]
shape = "sphere"
name = "ball"
center = [0.5, 0.5, 0.5]
radius = 0.1

[[body]]
shape = "box"
min = [0.1, 0.1, 0.1]
max = [0.2, 0.3, 0.4]
rotate = { axis = [0, 0, 1], degrees = 90 }

[[body]]
shape = "cylinder"
center = [0.5, 0.25, 0.75]
radius = 0.05
axis = [1, 0, 0]
length = 0.5

[[body]]
shape = "stl"
file = "sphere-binary.stl"
scale = 0.1
translate = [0.7, 0.7, 0.7]
)",
                       3);
  REQUIRE(p.error == "");
  REQUIRE(p.bodies.size() == 4);
  REQUIRE(p.notes.size() == 4);
  for (int n = 0; n < 4; ++n) CHECK(p.bodies[std::size_t(n)].id == n);
  CHECK_THAT(p.notes[0], ContainsSubstring("body 0 (sphere 'ball'): bounding box x in [0.4, 0.6], "
                                           "y in [0.4, 0.6], z in [0.4, 0.6]"));
  // turned about its centre (0.15, 0.2): x and y extents swapped
  CHECK_THAT(p.notes[1],
             ContainsSubstring("x in [0.05, 0.25], y in [0.15, 0.25], z in [0.1, 0.4]"));
  CHECK_THAT(p.notes[2], ContainsSubstring("x in [0.25, 0.75], y in [0.2, 0.3], z in [0.7, 0.8]"));
  CHECK_THAT(p.notes[3], ContainsSubstring("320 triangles from"));
  CHECK_THAT(p.notes[3], ContainsSubstring("cases/geometry/sphere-binary.stl"));
  CHECK(p.bodies[3].is_mesh);
  const auto b = geo::bounds(p.bodies[3]);
  CHECK(b.lo.x > 0.599);
  CHECK(b.hi.x < 0.801);
  CHECK(b.hi.x > 0.79);

  // The model's call: cell centres of the grid, every body solid somewhere.
  const auto nodes = kflow::cell_centres(grid(3), false);
  CHECK(nodes.n[0] == 20);
  CHECK(nodes.origin[0] == 0.025);
  std::vector<std::array<int, 3>> axes = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                          {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  const auto g = kflow::body_geometry(Kokkos::DefaultHostExecutionSpace(), p.bodies, nodes,
                                      geo::Directions(axes), geo::LinkOptions{true});
  std::vector<int> seen(5, 0);
  for (std::size_t m = 0; m < g.flags.size(); ++m) ++seen[g.flags.data()[m]];
  for (int id = 1; id <= 4; ++id) CHECK(seen[std::size_t(id)] > 0);
  CHECK(g.links.count > 0);
  CHECK(g.links.unresolved == 0);
  CHECK(g.links.normal.extent(0) == std::size_t(g.links.count));
  // ghost layers: one more centre on each side
  auto gh = grid(3);
  CHECK(kflow::cell_centres(gh, true).n[0] == 22);
  CHECK(kflow::cell_centres(gh, true).origin[0] == -0.025);
}

TEST_CASE("geometry: 2D bodies: circle, box, rotation about z, an STL mesh sliced",
          "[unit][geometry]") {
  const auto p = parse(R"([[body]]
shape = "circle"
center = [0.3, 0.5]
radius = 0.1

[[body]]
shape = "box"
min = [0.6, 0.4]
max = [0.8, 0.6]
rotate = { degrees = 45 }

[[body]]
shape = "stl"
file = "sphere-ascii.stl"
scale = 0.1
translate = [0.5, 0.2]
)",
                       2);
  REQUIRE(p.error == "");
  REQUIRE(p.bodies.size() == 3);
  CHECK_THAT(p.notes[0], ContainsSubstring("x in [0.2, 0.4], y in [0.4, 0.6]"));
  CHECK_THAT(p.notes[1], ContainsSubstring("x in [0.558579, 0.841421]"));
  const auto nodes = kflow::cell_centres(grid(2), false);
  CHECK(nodes.n[2] == 1);
  const auto g = kflow::body_geometry(Kokkos::DefaultHostExecutionSpace(), p.bodies, nodes,
                                      geo::Directions({{1, 0, 0}, {1, 1, 0}}));
  std::vector<int> seen(4, 0);
  for (std::size_t m = 0; m < g.flags.size(); ++m) ++seen[g.flags.data()[m]];
  for (int id = 1; id <= 3; ++id) CHECK(seen[std::size_t(id)] > 0);

  // Keys of the other dimension.
  const auto e = parse(R"([[body]]
shape = "cylinder"
center = [0.3, 0.5]
radius = 0.1
[[body]]
shape = "box"
min = [0.6, 0.4]
max = [0.8, 0.6]
rotate = { axis = [1, 0, 0], degrees = 45 }
)",
                       2);
  CHECK_THAT(e.error, ContainsSubstring("test.toml:2: key 'body[0].shape': \"cylinder\" is a 3D "
                                        "shape; in 2D use \"circle\""));
  CHECK_THAT(e.error, ContainsSubstring("key 'body[1].rotate.axis': a 2D rotation is about z"));
}

TEST_CASE(
    "geometry: a block of a decomposed grid has the whole grid's flags and links, bit for bit",
    "[unit][geometry]") {
  // A shape and a mesh across the faces of 3x2x2 blocks with their ghost
  // layers (lbm on several ranks): every node of a block in the domain has
  // the whole grid's flag, and the blocks' links (from their own nodes) are
  // the whole grid's, each once, with the same q and body.
  const auto p = parse(R"([[body]]
shape = "sphere"
center = [0.37, 0.52, 0.48]
radius = 0.21

[[body]]
shape = "stl"
file = "sphere-binary.stl"
scale = 0.15
translate = [0.68, 0.3, 0.62]
)",
                       3);
  REQUIRE(p.error == "");
  std::vector<std::array<int, 3>> list;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z)
        if (std::abs(x) + std::abs(y) + std::abs(z) == 1 ||
            std::abs(x) + std::abs(y) + std::abs(z) == 2)
          list.push_back({x, y, z});
  const geo::Directions dirs(list);
  const Kokkos::DefaultHostExecutionSpace host;
  auto G = grid(3);
  const auto whole = geo::voxelise(host, p.bodies, kflow::cell_centres(G, false), dirs);
  const int Q = int(list.size());
  std::vector<long> at(std::size_t(20 * 20 * 20 * Q), -1);  // (node, dir) -> whole link
  for (long l = 0; l < whole.links.count; ++l)
    at[std::size_t(whole.links.node(l) * Q + whole.links.dir(l))] = l;
  G.ghost = 1;
  kflow::linalg::dist::Decomposition dec;
  dec.ranks = {3, 2, 2};
  long links = 0, flags_differ = 0, links_differ = 0;
  for (int r = 0; r < dec.size(); ++r) {
    dec.rank = r;
    const auto block = kflow::linalg::dist::make_local_grid(G, dec);
    geo::LinkOptions own;
    const auto nodes = kflow::block_centres(block, own);
    const auto g = geo::voxelise(host, p.bodies, nodes, dirs, own);
    auto global = [&](int m, int x[3]) {
      x[0] = m % nodes.n[0] + nodes.first[0];
      x[1] = m / nodes.n[0] % nodes.n[1] + nodes.first[1];
      x[2] = m / nodes.n[0] / nodes.n[1] + nodes.first[2];
      return x[0] >= 0 && x[0] < 20 && x[1] >= 0 && x[1] < 20 && x[2] >= 0 && x[2] < 20;
    };
    for (int m = 0; m < int(nodes.count()); ++m) {
      int x[3];
      if (global(m, x)) flags_differ += g.flags.data()[m] != whole.flags(x[0], x[1], x[2]);
    }
    for (long l = 0; l < g.links.count; ++l) {
      int x[3];
      REQUIRE(global(g.links.node(l), x));
      const long w = at[std::size_t((x[0] + 20 * (x[1] + 20 * x[2])) * Q + g.links.dir(l))];
      links_differ +=
          w < 0 || whole.links.q(w) != g.links.q(l) || whole.links.body(w) != g.links.body(l);
    }
    links += g.links.count;
  }
  CHECK(flags_differ == 0);
  CHECK(links_differ == 0);
  CHECK(links == whole.links.count);
  CHECK(whole.links.count > 500);
}

TEST_CASE(
    "geometry: [[body]] OBJ meshes: read beside the case file, bad ones with file, line and key",
    "[unit][geometry]") {
  // A case file and its meshes in a folder of their own.
  const auto dir = std::filesystem::path(kflow::test::scratch_dir()) / "kflow-test-case-obj";
  std::filesystem::create_directories(dir / "meshes");
  const std::string name = (dir / "case.toml").string();
  auto write = [&](const std::string& file, const std::string& text) {
    std::ofstream out(dir / file, std::ios::binary);
    out << text;
  };
  auto cube = geo::box_mesh({0, 0, 0}, {1, 1, 1}, {1, 1, 1});
  write("meshes/cube.obj", "# a unit cube\no cube\n" + obj_text(cube));
  write("bad.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n");
  cube.vertices.resize(3 * 10);  // (one square face missing)
  write("open.obj", obj_text(cube));

  const auto p = parse(R"([[body]]
shape = "obj"
name = "cube"
file = "meshes/cube.obj"
scale = 0.2
translate = [0.4, 0.4, 0.4]
)",
                       3, {}, name);
  REQUIRE(p.error == "");
  REQUIRE(p.bodies.size() == 1);
  CHECK(p.bodies[0].is_mesh);
  CHECK(p.bodies[0].mesh.triangles() == 12);
  CHECK_THAT(p.notes[0], ContainsSubstring("body 0 (obj 'cube'): bounding box x in [0.4, 0.6], "
                                           "y in [0.4, 0.6], z in [0.4, 0.6]; 12 triangles from " +
                                           (dir / "meshes/cube.obj").string()));
  const auto nodes = kflow::cell_centres(grid(3), false);
  const auto g = kflow::body_geometry(Kokkos::DefaultHostExecutionSpace(), p.bodies, nodes,
                                      geo::Directions({{1, 0, 0}, {-1, 0, 0}}));
  long solid = 0;
  for (std::size_t m = 0; m < g.flags.size(); ++m) solid += g.flags.data()[m] == 1;
  CHECK(solid == 4 * 4 * 4);  // (centres 0.425 ... 0.575)

  const auto e = parse(R"([[body]]
shape = "obj"
file = "bad.obj"

[[body]]
shape = "obj"
file = "open.obj"

[[body]]
shape = "obj"

[[body]]
shape = "obj"
file = "missing.obj"

[[body]]
shape = "box"
min = [0.1, 0.1, 0.1]
max = [0.2, 0.2, 0.2]
file = "meshes/cube.obj"
)",
                       3, {}, name)
                     .error;
  CHECK_THAT(e, ContainsSubstring("case.toml:3: key 'body[0].file': " + (dir / "bad.obj").string() +
                                  ":3: OBJ: vertex index 3 in '3' is out of range: 2 vertices (v) "
                                  "defined up to this line"));
  CHECK_THAT(e,
             ContainsSubstring("case.toml:7: key 'body[1].file': " + (dir / "open.obj").string() +
                               ": the mesh is open: 4 boundary edges"));
  CHECK_THAT(e, ContainsSubstring("key 'body[2].file': missing; expected the OBJ file "
                                  "(relative to the case file)"));
  CHECK_THAT(e, ContainsSubstring("key 'body[3].file': " + (dir / "missing.obj").string() +
                                  ": cannot read the OBJ file: No such file or directory"));
  CHECK_THAT(e, ContainsSubstring("case.toml:20: key 'body[4].file': a box has no 'file' (a box "
                                  "takes min, max,"));
  CHECK(count_of(e, "a box has no 'file'") == 1);  // (a key of stl and obj, once)
  std::filesystem::remove_all(dir);
}
