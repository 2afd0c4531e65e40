// The surface of a placed body (kflow/geometry/surface.hpp), the body.stl a
// run writes: closed and wound outwards, its vertices on the analytic
// surface, facets within a tenth of a cell of it (checked through the
// enclosed volume), infinite shapes cut at the domain, and an STL round trip.

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "kflow/geometry/mesh.hpp"
#include "kflow/geometry/stl.hpp"
#include "kflow/geometry/surface.hpp"

namespace geo = kflow::geometry;

namespace {

double volume(const geo::TriangleMesh& m) {  // > 0: wound counter-clockwise seen from outside
  double v = 0;
  for (std::size_t t = 0; t < m.triangles(); ++t) {
    const geo::Vec3* p = &m.vertices[3 * t];
    v += geo::dot(p[0], geo::cross(p[1], p[2])) / 6;
  }
  return v;
}

geo::Body shape_body(const geo::Shape& s, const std::string& name = "b") {
  geo::Body b;
  b.name = name;
  b.shape = s;
  return b;
}

geo::Box3 make_box(geo::Vec3 lo, geo::Vec3 hi) {
  geo::Box3 b;
  b.lo = lo, b.hi = hi;
  return b;
}

}  // namespace

TEST_CASE("geometry surface: a sphere's facets lie within a tenth of a cell", "[unit]") {
  const geo::Box3 domain = make_box({0, 0, 0}, {2, 2, 2});
  const geo::Vec3 c{0.9, 1.1, 1.0};
  for (const double h : {0.1, 0.02, 0.005}) {
    const double r = 0.4;
    const auto m = geo::surface_mesh(shape_body(geo::sphere(c, r)), domain, 3, h);
    INFO("h = " << h << ": " << m.triangles() << " triangles");
    REQUIRE_NOTHROW(geo::check_mesh(m));
    double worst = 0;
    for (const auto& v : m.vertices) worst = std::max(worst, std::fabs(geo::norm(v - c) - r));
    CHECK(worst <= 1e-12);
    // Facets inside the sphere: the volume missing is at most the area times
    // the largest facet depth, a tenth of h.
    const double exact = 4.0 / 3.0 * M_PI * r * r * r, v = volume(m);
    CHECK(v > 0);
    CHECK(v <= exact);
    CHECK(exact - v <= 4 * M_PI * r * r * 0.1 * h);
  }
}

TEST_CASE("geometry surface: cylinders, finite, rotated and cut at the domain", "[unit]") {
  const geo::Box3 domain = make_box({0, 0, 0}, {2.5, 0.41, 0.41});
  const double h = 0.01, r = 0.05;
  SECTION("a finite cylinder, turned") {
    const geo::Vec3 c{1.0, 0.2, 0.2}, axis{0, 1, 1};
    const auto s = geo::cylinder(c, axis, r, 0.3);
    const auto m = geo::surface_mesh(shape_body(s), domain, 3, h);
    REQUIRE_NOTHROW(geo::check_mesh(m));
    const geo::Vec3 a = geo::normalized(axis);
    for (const auto& v : m.vertices) {
      const double along = geo::dot(v - c, a), across = geo::norm(v - c - along * a);
      CHECK(std::fabs(along) <= 0.15 + 1e-12);
      CHECK((across <= 1e-12 || std::fabs(across - r) <= 1e-12));  // rims, or a cap's centre
    }
    const double exact = M_PI * r * r * 0.3;
    CHECK(volume(m) <= exact);
    CHECK(exact - volume(m) <= 2 * M_PI * r * 0.3 * 0.1 * h);
  }
  SECTION("a cylinder through the domain (DFG 3D-1Z) ends at the domain's faces") {
    const auto s = geo::cylinder({0.5, 0.2, 0.205}, {0, 0, 1}, r);
    const auto m = geo::surface_mesh(shape_body(s), domain, 3, h);
    REQUIRE_NOTHROW(geo::check_mesh(m));
    const auto b = geo::bounds(m);
    CHECK(b.lo.z == Catch::Approx(0.0).margin(1e-12));
    CHECK(b.hi.z == Catch::Approx(0.41).margin(1e-12));
    CHECK(b.lo.x >= 0.45 - 1e-12);
    CHECK(b.hi.x <= 0.55 + 1e-12);
  }
  SECTION("a 2D circle is a slab one cell thick across the plane") {
    const geo::Box3 plane = make_box({0, 0, 0}, {2.2, 0.41, 0});
    const auto m = geo::surface_mesh(shape_body(geo::circle(0.2, 0.2, r)), plane, 2, h);
    REQUIRE_NOTHROW(geo::check_mesh(m));
    const auto b = geo::bounds(m);
    CHECK(b.lo.z == Catch::Approx(-0.5 * h));
    CHECK(b.hi.z == Catch::Approx(0.5 * h));
    CHECK(b.lo.x == Catch::Approx(0.15).margin(1e-12));
    CHECK(b.hi.x == Catch::Approx(0.25).margin(1e-12));
  }
}

TEST_CASE("geometry surface: boxes, meshes and several bodies; the STL round trip", "[unit]") {
  const geo::Box3 domain = make_box({0, 0, 0}, {1, 1, 1});
  const double h = 0.05;
  // A box turned by 30 degrees about z: its corners moved, its volume kept.
  const auto turned =
      geo::transformed(geo::box({0.4, 0.4, 0.3}, {0.6, 0.5, 0.7}),
                       geo::Transform::rotation({0, 0, 1}, M_PI / 6, {0.5, 0.45, 0}));
  const auto box = geo::surface_mesh(shape_body(turned, "box"), domain, 3, h);
  REQUIRE_NOTHROW(geo::check_mesh(box));
  CHECK(volume(box) == Catch::Approx(0.2 * 0.1 * 0.4).epsilon(1e-12));
  for (const auto& v : box.vertices) {  // the corners, in the box's own frame
    const geo::Vec3 p = turned.xf.body_point(v);
    for (int d = 0; d < 3; ++d)
      CHECK((std::fabs(p[d] - turned.lo[d]) <= 1e-12 || std::fabs(p[d] - turned.hi[d]) <= 1e-12));
  }
  CHECK(box.source == "box");
  // A mesh body comes back as placed.
  geo::Body mesh_body;
  mesh_body.is_mesh = true;
  mesh_body.mesh = geo::sphere_mesh({0.3, 0.3, 0.3}, 0.1, 2);
  const auto same = geo::surface_mesh(mesh_body, domain, 3, h);
  CHECK(same.vertices.size() == mesh_body.mesh.vertices.size());
  // Several bodies: one mesh, their triangles one after another.
  const auto all =
      geo::surface_mesh(std::vector<geo::Body>{shape_body(turned), mesh_body}, domain, 3, h);
  CHECK(all.triangles() == box.triangles() + same.triangles());
  // body.stl: binary STL, read back to float32 rounding.
  const auto back = geo::parse_stl(geo::stl_binary(all), "body.stl");
  REQUIRE(back.triangles() == all.triangles());
  double worst = 0;
  for (std::size_t k = 0; k < all.vertices.size(); ++k)
    worst = std::max(worst, geo::norm(back.vertices[k] - all.vertices[k]));
  CHECK(worst <= 1e-7);
}
