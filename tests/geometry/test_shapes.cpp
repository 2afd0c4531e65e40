// Analytic bodies on every backend: the solid flags and the boundary links
// (which links, q, normal) of a sphere, a box, cylinders and a 2D circle
// against exact values computed here in long double, placements (translate,
// scale, rotate) against the equivalent plain shapes, unions, bounding boxes.

#include <catch2/catch_approx.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "geometry/geometry_helpers.hpp"
#include "linalg/backends.hpp"

namespace geo = kflow::geometry;
using kflow::test::HostGeometry;
using kflow::test::HostLink;
using LD = long double;

namespace {

struct P {
  LD x, y, z;
};
P to_p(const geo::Vec3& v) {
  return {v.x, v.y, v.z};
}

// The exact flags and links of a body given by `inside` (strictly away from
// every node: checked by `margin`) and the exact fraction of a link.
struct Reference {
  std::function<bool(P)> inside;
  std::function<LD(P, P)> q;   // link a -> b, a outside, b inside
  std::function<P(P)> normal;  // outward unit normal at a surface point
  std::function<LD(P)> level;  // < 0 inside, > 0 outside (for the margin)
};

void check(const HostGeometry& g, const geo::Directions& dirs, const Reference& ref, double q_tol) {
  const auto& n = g.grid.n;
  std::vector<HostLink> want;
  LD margin = 1e300L;
  long solid = 0;
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i) {
        const P x = to_p(g.grid.node(i, j, k));
        margin = std::min(margin, std::fabs(ref.level(x)));
        const bool in = ref.inside(x);
        solid += in;
        INFO("node " << i << " " << j << " " << k);
        REQUIRE((g.flag(i, j, k) != 0) == in);
        if (in) continue;
        for (int d = 0; d < dirs.count; ++d) {
          const int a = i + dirs.c[d][0], b = j + dirs.c[d][1], c = k + dirs.c[d][2];
          if (a < 0 || b < 0 || c < 0 || a >= n[0] || b >= n[1] || c >= n[2]) continue;
          const P y = to_p(g.grid.node(a, b, c));
          if (ref.inside(y)) want.push_back({g.grid.index(i, j, k), d, 0, double(ref.q(x, y)), {}});
        }
      }
  REQUIRE(margin > 1e-9L);  // (the test's premise: no node on the surface)
  REQUIRE(solid > 0);
  REQUIRE(g.unresolved == 0);
  REQUIRE(g.links.size() == want.size());
  for (std::size_t l = 0; l < want.size(); ++l) {
    const auto& got = g.links[l];
    INFO("link " << l << " node " << got.node << " dir " << got.dir);
    REQUIRE(got.node == want[l].node);
    REQUIRE(got.dir == want[l].dir);
    CHECK(std::fabs(got.q - want[l].q) <= q_tol);
    // the normal at the wall point
    const int node = got.node, nx = g.grid.n[0], ny = g.grid.n[1];
    const P a = to_p(g.grid.node(node % nx, node / nx % ny, node / nx / ny));
    const int* c = dirs.c[got.dir];
    const P w{a.x + want[l].q * c[0] * g.grid.h[0], a.y + want[l].q * c[1] * g.grid.h[1],
              a.z + want[l].q * c[2] * g.grid.h[2]};
    const P nn = ref.normal(w);
    CHECK(std::fabs(got.normal.x - nn.x) + std::fabs(got.normal.y - nn.y) +
              std::fabs(got.normal.z - nn.z) <=
          1e-8);
  }
}

// The smaller root in [0, 1] of |a + s (b - a) - c|^2 = r^2 (a outside, b inside).
LD sphere_q(P a, P b, P c, LD r) {
  const P d{b.x - a.x, b.y - a.y, b.z - a.z}, o{a.x - c.x, a.y - c.y, a.z - c.z};
  const LD A = d.x * d.x + d.y * d.y + d.z * d.z, B = 2 * (d.x * o.x + d.y * o.y + d.z * o.z),
           C = o.x * o.x + o.y * o.y + o.z * o.z - r * r;
  return (-B - std::sqrt(B * B - 4 * A * C)) / (2 * A);
}

Reference sphere_ref(P c, LD r) {
  Reference ref;
  ref.level = [=](P x) {
    return (x.x - c.x) * (x.x - c.x) + (x.y - c.y) * (x.y - c.y) + (x.z - c.z) * (x.z - c.z) -
           r * r;
  };
  ref.inside = [=](P x) {
    return ref.level(x) < 0;
  };
  ref.q = [=](P a, P b) {
    return sphere_q(a, b, c, r);
  };
  ref.normal = [=](P w) {
    return P{(w.x - c.x) / r, (w.y - c.y) / r, (w.z - c.z) / r};
  };
  return ref;
}

// An axis-aligned box [lo, hi] (entry fraction of a link by slabs).
Reference box_ref(P lo, P hi) {
  Reference ref;
  ref.level = [=](P x) {
    const LD v[3] = {x.x, x.y, x.z}, l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    LD m = -1e300L;
    for (int d = 0; d < 3; ++d) m = std::max(m, std::max(l[d] - v[d], v[d] - h[d]));
    return m;
  };
  ref.inside = [=](P x) {
    return ref.level(x) < 0;
  };
  ref.q = [=](P a, P b) {
    const LD av[3] = {a.x, a.y, a.z}, bv[3] = {b.x, b.y, b.z}, l[3] = {lo.x, lo.y, lo.z},
             h[3] = {hi.x, hi.y, hi.z};
    LD t = 0;
    for (int d = 0; d < 3; ++d) {
      const LD dd = bv[d] - av[d];
      if (dd > 0 && av[d] < l[d]) t = std::max(t, (l[d] - av[d]) / dd);
      if (dd < 0 && av[d] > h[d]) t = std::max(t, (h[d] - av[d]) / dd);
    }
    return t;
  };
  ref.normal = [=](P w) {
    const LD v[3] = {w.x, w.y, w.z}, l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    LD best = 1e300L, n[3] = {0, 0, 0};
    int axis = 0;
    for (int d = 0; d < 3; ++d)
      for (int s = 0; s < 2; ++s) {
        const LD e = std::fabs(v[d] - (s ? h[d] : l[d]));
        if (e < best) best = e, axis = d, n[0] = n[1] = n[2] = 0, n[axis] = s ? 1 : -1;
      }
    return P{n[0], n[1], n[2]};
  };
  return ref;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("geometry: a sphere's flags, links, q and normals are exact",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const auto grid = kflow::test::cube_grid(21, 0.05);
  const geo::Vec3 c{0.5213, 0.4791, 0.5037};
  const double r = 0.3127;
  for (const auto& dirs :
       {kflow::test::lattice_directions<19>(), kflow::test::lattice_directions<27>()}) {
    const auto g = kflow::test::voxelise_on<TestType>(
        {kflow::test::shape_body(0, geo::sphere(c, r))}, grid, dirs);
    check(g, dirs, sphere_ref(to_p(c), r), 1e-12);
    for (const auto& l : g.links) REQUIRE(l.body == 0);
  }
}

TEMPLATE_LIST_TEST_CASE("geometry: a node on a shape's surface is solid whatever its rounding",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  // DFG 3D-1Z's cylinder (radius 0.05 through (0.5, 0.2)) on split3d's nodes
  // at h = 0.01, the coordinates computed as split3d's are (the first node at
  // half a spacing past the face's half spacing, h = 2.49 / 249): 12 nodes a
  // plane lie on the circle, within rounding.  Closed: every node with
  // (dx/h)^2 + (dy/h)^2 <= 25 is solid, the lattice points of a disc of radius
  // 5, 81 of them (Gauss's circle problem: N(5) = 81).  Without a margin the
  // last bits decided, and 76 came out solid.
  geo::NodeGrid grid;
  const double h = 2.5 / 250, nodes_origin = 0.5 * h, spacing = (249 * h) / 249;
  grid.n[0] = 249, grid.n[1] = 40, grid.n[2] = 2;
  for (int d = 0; d < 3; ++d) grid.h[d] = spacing, grid.origin[d] = nodes_origin + 0.5 * spacing;
  const auto g = kflow::test::voxelise_on<TestType>(
      {kflow::test::shape_body(0, geo::cylinder({0.5, 0.2, 0.0}, {0, 0, 1}, 0.05))}, grid,
      kflow::test::lattice_directions<19>());
  long solid = 0;
  for (int j = 0; j < grid.n[1]; ++j)
    for (int i = 0; i < grid.n[0]; ++i) solid += g.flag(i, j, 0) != 0;
  CHECK(solid == 81);
  // Every solid node beside a fluid one has its links to the surface, with
  // q in (0, 1] (a node on the circle: q = 1 up to rounding).
  for (const auto& l : g.links) {
    INFO("link from node " << l.node << ", direction " << l.dir << ": q = " << l.q);
    CHECK((l.q > 0 && l.q <= 1 + 1e-9));
  }
  CHECK(g.unresolved == 0);
}

TEMPLATE_LIST_TEST_CASE("geometry: a box's faces cut links at the known fractions",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  // h = 1/8, faces at 0.3 and 0.7 of a spacing from the nodes: every q is 0.3,
  // 0.7 or (diagonals) the larger entry fraction.
  const auto grid = kflow::test::cube_grid(9, 0.125);
  const geo::Vec3 lo{0.25 + 0.3 * 0.125, 0.25 + 0.7 * 0.125, 0.125 + 0.3 * 0.125};
  const geo::Vec3 hi{0.75 - 0.3 * 0.125, 0.625 + 0.3 * 0.125, 0.875 - 0.7 * 0.125};
  const auto dirs = kflow::test::lattice_directions<27>();
  const auto g = kflow::test::voxelise_on<TestType>({kflow::test::shape_body(3, geo::box(lo, hi))},
                                                    grid, dirs);
  check(g, dirs, box_ref(to_p(lo), to_p(hi)), 1e-12);
  int axis_links = 0;
  for (const auto& l : g.links) {
    REQUIRE(l.body == 3);
    const int* c = dirs.c[l.dir];
    if (std::abs(c[0]) + std::abs(c[1]) + std::abs(c[2]) == 1) {
      ++axis_links;
      CHECK((std::fabs(l.q - 0.3) < 1e-12 || std::fabs(l.q - 0.7) < 1e-12));
    }
  }
  CHECK(axis_links > 0);
  // The same box turned 90 degrees about z, about its centre, is the box with
  // x and y extents swapped about that centre.
  const geo::Vec3 m = 0.5 * (lo + hi), e = 0.5 * (hi - lo);
  const geo::Vec3 lo2{m.x - e.y, m.y - e.x, lo.z}, hi2{m.x + e.y, m.y + e.x, hi.z};
  const auto turned = geo::transformed(
      geo::box(lo, hi), geo::Transform::rotation({0, 0, 2}, 3.141592653589793 / 2, m));
  const auto g2 =
      kflow::test::voxelise_on<TestType>({kflow::test::shape_body(0, turned)}, grid, dirs);
  check(g2, dirs, box_ref(to_p(lo2), to_p(hi2)), 1e-12);
}

TEMPLATE_LIST_TEST_CASE(
    "geometry: cylinders (infinite, finite with caps, oblique) and the 2D circle",
    "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const auto grid = kflow::test::cube_grid(17, 1.0 / 16);
  const auto dirs = kflow::test::lattice_directions<19>();
  // Along z through the domain: the circle's quadratic in (x, y).
  {
    const P c{0.4871, 0.5129, 0};
    const LD r = 0.2731;
    Reference ref;
    ref.level = [=](P x) {
      return (x.x - c.x) * (x.x - c.x) + (x.y - c.y) * (x.y - c.y) - r * r;
    };
    ref.inside = [=](P x) {
      return ref.level(x) < 0;
    };
    ref.q = [=](P a, P b) {
      return sphere_q({a.x, a.y, 0}, {b.x, b.y, 0}, c, r);
    };
    ref.normal = [=](P w) {
      return P{(w.x - c.x) / r, (w.y - c.y) / r, 0};
    };
    const auto g = kflow::test::voxelise_on<TestType>(
        {kflow::test::shape_body(
            0, geo::cylinder({double(c.x), double(c.y), 0.3}, {0, 0, 1}, double(r)))},
        grid, dirs);
    check(g, dirs, ref, 1e-12);
    // the same as a 2D circle on one plane of nodes (D2Q9)
    auto plane = grid;
    plane.n[2] = 1;
    plane.origin[2] = 0.25;
    const auto dirs9 = kflow::test::lattice_directions<9>();
    const auto g2 = kflow::test::voxelise_on<TestType>(
        {kflow::test::shape_body(0, geo::circle(double(c.x), double(c.y), double(r)))}, plane,
        dirs9);
    check(g2, dirs9, ref, 1e-12);
  }
  // Along x, finite: the caps at x = 0.2 + 0.4 h and 0.8 - 0.25 h.
  {
    const LD h = 1.0L / 16, x0 = 0.2L + 0.4L * h, x1 = 0.8L - 0.25L * h;
    const P c{(x0 + x1) / 2, 0.5087, 0.4969};
    const LD r = 0.2213;
    Reference ref;
    ref.level = [=](P x) {
      return std::max((x.y - c.y) * (x.y - c.y) + (x.z - c.z) * (x.z - c.z) - r * r,
                      std::max(x0 - x.x, x.x - x1));
    };
    ref.inside = [=](P x) {
      return ref.level(x) < 0;
    };
    ref.q = [=](P a, P b) {
      LD t = 0;  // enter the slab, then the tube
      if (b.x > a.x && a.x < x0) t = (x0 - a.x) / (b.x - a.x);
      if (b.x < a.x && a.x > x1) t = (x1 - a.x) / (b.x - a.x);
      const P at{0, a.y + t * (b.y - a.y), a.z + t * (b.z - a.z)};
      if ((at.y - c.y) * (at.y - c.y) + (at.z - c.z) * (at.z - c.z) > r * r)
        t = sphere_q({0, a.y, a.z}, {0, b.y, b.z}, {0, c.y, c.z}, r);
      return t;
    };
    ref.normal = [=](P w) {
      const LD ry = w.y - c.y, rz = w.z - c.z, rr = std::sqrt(ry * ry + rz * rz);
      if (std::fabs(rr - r) < 1e-9L) return P{0, ry / rr, rz / rr};
      return P{w.x < c.x ? -1.0L : 1.0L, 0, 0};
    };
    const auto g = kflow::test::voxelise_on<TestType>(
        {kflow::test::shape_body(0, geo::cylinder({double(c.x), double(c.y), double(c.z)},
                                                  {-3, 0, 0}, double(r), double(x1 - x0)))},
        grid, dirs);
    check(g, dirs, ref, 1e-12);
  }
  // Oblique: along (1, 1, 1), infinite; flags from the distance to the axis.
  {
    const geo::Vec3 c{0.5, 0.5, 0.5}, a = geo::normalized({1, 1, 1});
    const double r = 0.1913;
    Reference ref;
    ref.level = [=](P x) {
      const LD dx = x.x - c.x, dy = x.y - c.y, dz = x.z - c.z;
      const LD s = dx * a.x + dy * a.y + dz * a.z;
      return dx * dx + dy * dy + dz * dz - s * s - LD(r) * r;
    };
    ref.inside = [=](P x) {
      return ref.level(x) < 0;
    };
    ref.q = [=](P p, P b) {  // bisection on the level along the link
      LD lo = 0, hi = 1;
      for (int it = 0; it < 200; ++it) {
        const LD m = (lo + hi) / 2;
        (ref.level(P{p.x + m * (b.x - p.x), p.y + m * (b.y - p.y), p.z + m * (b.z - p.z)}) > 0
             ? lo
             : hi) = m;
      }
      return lo;
    };
    ref.normal = [=](P w) {
      const LD dx = w.x - c.x, dy = w.y - c.y, dz = w.z - c.z;
      const LD s = dx * a.x + dy * a.y + dz * a.z;
      return P{(dx - s * a.x) / r, (dy - s * a.y) / r, (dz - s * a.z) / r};
    };
    const auto g = kflow::test::voxelise_on<TestType>(
        {kflow::test::shape_body(0, geo::cylinder(c, {2, 2, 2}, r))}, grid, dirs);
    check(g, dirs, ref, 1e-12);
  }
}

TEMPLATE_LIST_TEST_CASE("geometry: placements map shapes exactly; a union keeps each body's id",
                        "[unit][geometry]", kflow::test::ExecutionSpaces) {
  const auto grid = kflow::test::cube_grid(21, 0.05);
  const auto dirs = kflow::test::lattice_directions<19>();
  // A unit sphere scaled by 0.3127 about the origin, then moved: the sphere
  // of that radius there.
  const geo::Vec3 c{0.5213, 0.4791, 0.5037};
  const auto placed = geo::transformed(
      geo::sphere({0, 0, 0}, 1.0),
      geo::Transform::scaling({0.3127, 0.3127, 0.3127}).then(geo::Transform::translation(c)));
  const auto g =
      kflow::test::voxelise_on<TestType>({kflow::test::shape_body(0, placed)}, grid, dirs);
  check(g, dirs, sphere_ref(to_p(c), 0.3127), 1e-12);

  // Two overlapping spheres: a node in both belongs to the first (id 7); each
  // link's q is the nearer wall, and names the body of that wall.
  const geo::Vec3 c1{0.4013, 0.4987, 0.5021}, c2{0.6219, 0.5113, 0.4893};
  const double r1 = 0.2071, r2 = 0.1813;
  const auto u =
      kflow::test::voxelise_on<TestType>({kflow::test::shape_body(7, geo::sphere(c1, r1)),
                                          kflow::test::shape_body(2, geo::sphere(c2, r2))},
                                         grid, dirs);
  const auto s1 = sphere_ref(to_p(c1), r1), s2 = sphere_ref(to_p(c2), r2);
  Reference both;
  both.level = [&](P x) {
    return std::min(s1.level(x), s2.level(x));
  };
  both.inside = [&](P x) {
    return s1.inside(x) || s2.inside(x);
  };
  both.q = [&](P a, P b) {  // the first sphere the link enters (maybe not b's)
    LD t = 2;
    for (const auto& [cc, rr] :
         {std::make_pair(to_p(c1), LD(r1)), std::make_pair(to_p(c2), LD(r2))}) {
      const P d{b.x - a.x, b.y - a.y, b.z - a.z}, o{a.x - cc.x, a.y - cc.y, a.z - cc.z};
      const LD A = d.x * d.x + d.y * d.y + d.z * d.z, B = 2 * (d.x * o.x + d.y * o.y + d.z * o.z),
               C = o.x * o.x + o.y * o.y + o.z * o.z - rr * rr;
      if (B * B - 4 * A * C < 0) continue;
      const LD s0 = (-B - std::sqrt(B * B - 4 * A * C)) / (2 * A);
      if (s0 >= 0 && s0 <= 1) t = std::min(t, s0);
    }
    return t;
  };
  both.normal = [&](P w) {
    return std::fabs(s1.level(w)) < std::fabs(s2.level(w)) ? s1.normal(w) : s2.normal(w);
  };
  check(u, dirs, both, 1e-12);
  long in1 = 0, in2 = 0, overlap = 0;
  for (int k = 0; k < 21; ++k)
    for (int j = 0; j < 21; ++j)
      for (int i = 0; i < 21; ++i) {
        const P x = to_p(grid.node(i, j, k));
        const auto f = u.flag(i, j, k);
        if (s1.inside(x)) {
          REQUIRE(f == 8);
          ++in1;
          overlap += s2.inside(x);
        } else if (s2.inside(x)) {
          REQUIRE(f == 3);
          ++in2;
        }
      }
  CHECK(overlap > 0);
  CHECK(in1 > overlap);
  CHECK(in2 > 0);
  for (const auto& l : u.links) {
    const int node = l.node;
    const P a = to_p(grid.node(node % 21, node / 21 % 21, node / 441));
    const int* c3 = dirs.c[l.dir];
    const P w{a.x + l.q * c3[0] * 0.05L, a.y + l.q * c3[1] * 0.05L, a.z + l.q * c3[2] * 0.05L};
    REQUIRE(((l.body == 7 && std::fabs(s1.level(w)) < 1e-9L) ||
             (l.body == 2 && std::fabs(s2.level(w)) < 1e-9L)));
  }
}

TEST_CASE("geometry: bounding boxes of placed shapes are tight", "[unit][geometry]") {
  const double pi = 3.141592653589793;
  // a sphere scaled by 2 and moved
  auto b = geo::bounds(geo::transformed(
      geo::sphere({1, 2, 3}, 0.5),
      geo::Transform::scaling({2, 2, 2}, {1, 2, 3}).then(geo::Transform::translation({1, 0, 0}))));
  CHECK(b.lo.x == Catch::Approx(1.0));
  CHECK(b.hi.x == Catch::Approx(3.0));
  CHECK(b.lo.z == Catch::Approx(2.0));
  // a unit cube turned 45 degrees about z: sqrt(2) wide in x and y
  b = geo::bounds(geo::transformed(geo::box({0, 0, 0}, {1, 1, 1}),
                                   geo::Transform::rotation({0, 0, 1}, pi / 4, {0.5, 0.5, 0.5})));
  CHECK(b.hi.x - b.lo.x == Catch::Approx(std::sqrt(2.0)));
  CHECK(b.hi.y - b.lo.y == Catch::Approx(std::sqrt(2.0)));
  CHECK(b.hi.z - b.lo.z == Catch::Approx(1.0));
  // a finite cylinder along (1, 1, 0): length 2, radius 0.5
  b = geo::bounds(geo::cylinder({0, 0, 0}, {1, 1, 0}, 0.5, 2.0));
  CHECK(b.hi.x == Catch::Approx(1 / std::sqrt(2.0) + 0.5 / std::sqrt(2.0)));
  CHECK(b.hi.z == Catch::Approx(0.5));
  // an infinite one along z: unbounded along z only
  b = geo::bounds(geo::circle(0.5, 0.5, 0.25));
  CHECK(b.hi.x == Catch::Approx(0.75));
  CHECK(std::isinf(b.hi.z));
  CHECK(std::isinf(b.lo.z));
  // placement against a domain
  const geo::Box3 dom{{0, 0, 0}, {1, 1, 1}};
  const auto p = geo::placement(geo::bounds(geo::sphere({0.1, 0.5, 0.5}, 0.2)), dom, 3);
  CHECK(!p.outside);
  CHECK(p.touches[0][0]);
  CHECK(!p.touches[0][1]);
  CHECK(geo::placement(geo::bounds(geo::sphere({1.5, 0.5, 0.5}, 0.2)), dom, 3).outside);
}

TEST_CASE("geometry: an axis of any finite length is its direction", "[unit][geometry]") {
  // |a|^2 overflows past about 1e154 and underflows below 1e-162: the axis
  // is scaled by its largest component first.
  for (double len : {1e-200, 1e-160, 1.0, 1e160, 1e200, 1e308}) {
    INFO("length " << len);
    const auto c = geo::cylinder({0, 0, 0}, {len, 0, 0}, 0.5);
    CHECK(c.axis.x == 1.0);
    CHECK(c.axis.y == 0.0);
    const auto d = geo::cylinder({0, 0, 0}, {len, len, 0}, 0.5);
    CHECK(d.axis.x == Catch::Approx(1 / std::sqrt(2.0)));
    CHECK(d.axis.y == Catch::Approx(1 / std::sqrt(2.0)));
    const auto r = geo::Transform::rotation({0, 0, len}, 0.5);
    const auto q = geo::Transform::rotation({0, 0, 1}, 0.5);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) CHECK(r.to_domain.m[i][j] == q.to_domain.m[i][j]);
  }
  CHECK_THROWS(geo::cylinder({0, 0, 0}, {0, 0, 0}, 0.5));
  CHECK_THROWS(geo::cylinder({0, 0, 0}, {std::numeric_limits<double>::infinity(), 0, 0}, 0.5));
  CHECK_THROWS(geo::Transform::rotation({0, 0, 0}, 0.5));
}
