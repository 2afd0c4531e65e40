#pragma once
// Boundary links: for each fluid node x and each direction c whose neighbour
// x + c is solid, the fraction q in (0, 1] of the link x -> x + c at which it
// first meets a body's surface (exact ray-shape intersection for shapes,
// ray-triangle for meshes through a bin grid of triangles), the body it
// meets and, when asked for, the unit outward normal there.  Stored sparsely
// (one entry per boundary link), sorted by node (i fastest) and by direction
// within a node: the same list on every backend and every run.
//
// Neighbours outside the grid make no link (the grid's sides are the
// model's).  q is clamped into [min_q, 1]: a fluid node exactly on the
// surface (a mesh's face where the body ends) has q = min_q.  A link whose
// segment finds no surface (rounding at a graze that the flags decided the
// other way) gets q = 1/2, the wall of simple bounce-back, and is counted in
// `unresolved`; the tests expect none.  A solid node that lies on a shape's
// surface within the flags' margin (node_grid.hpp, surface_margin) and that
// a segment grazes has its wall at the node: q = 1.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/geometry/detail/mesh_bins.hpp"
#include "kflow/geometry/detail/node_range.hpp"
#include "kflow/geometry/directions.hpp"
#include "kflow/geometry/flags.hpp"
#include "kflow/geometry/node_grid.hpp"
#include "kflow/geometry/scene.hpp"
#include "kflow/geometry/shape.hpp"

namespace kflow::geometry {

inline constexpr double min_q = 1e-6;

template <class MemSpace>
struct BoundaryLinks {
  Kokkos::View<int*, MemSpace> node;           // grid.index(i, j, k) of the fluid node
  Kokkos::View<std::uint8_t*, MemSpace> dir;   // index into the Directions
  Kokkos::View<std::uint8_t*, MemSpace> body;  // id of the body met
  Kokkos::View<double*, MemSpace> q;           // in [min_q, 1]
  Kokkos::View<double* [3], MemSpace> normal;  // unit, outward; empty unless asked for
  std::int64_t count = 0;
  std::int64_t unresolved = 0;
};

struct LinkOptions {
  bool normals = false;  // store the wall normal of every link
  // Links only from the nodes in [from, to) per axis: a block's own nodes
  // where the grid holds its neighbours' too (their flags decide the links
  // into them, their own links are the neighbours').  Default: every node.
  int from[3] = {0, 0, 0};
  int to[3] = {std::numeric_limits<int>::max(), std::numeric_limits<int>::max(),
               std::numeric_limits<int>::max()};
};

namespace detail {

// The boundary links of node (i, j, k): a bit per direction.
template <class Flags>
struct LinkMask {
  Flags flags;
  Directions dirs;
  int n[3];
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(int i, int j, int k) const {
    std::uint64_t m = 0;
    if (flags(i, j, k) != 0) return m;
    for (int q = 0; q < dirs.count; ++q) {
      const int a = i + dirs.c[q][0], b = j + dirs.c[q][1], c = k + dirs.c[q][2];
      if (a < 0 || b < 0 || c < 0 || a >= n[0] || b >= n[1] || c >= n[2]) continue;
      if (flags(a, b, c) != 0) m |= std::uint64_t(1) << q;
    }
    return m;
  }
};

KOKKOS_INLINE_FUNCTION int popcount(std::uint64_t m) {
  int c = 0;
  for (; m; m &= m - 1) ++c;
  return c;
}

// The segment of link l: from its node to the neighbour.
template <class MemSpace>
struct LinkSegment {
  Kokkos::View<int*, MemSpace> node;
  Kokkos::View<std::uint8_t*, MemSpace> dir;
  NodeGrid g;
  Directions dirs;
  KOKKOS_INLINE_FUNCTION void operator()(int l, Vec3& a, Vec3& b) const {
    const int n = node(l), i = n % g.n[0], j = (n / g.n[0]) % g.n[1], k = n / g.n[0] / g.n[1];
    const int* c = dirs.c[dir(l)];
    a = g.node(i, j, k);
    b = g.node(i + c[0], j + c[1], k + c[2]);
  }
};

}  // namespace detail

template <class ExecSpace>
BoundaryLinks<typename ExecSpace::memory_space> boundary_links(
    const ExecSpace& space, const Scene<typename ExecSpace::memory_space>& scene,
    const NodeGrid& grid, const SolidFlags<typename ExecSpace::memory_space>& flags,
    const Directions& dirs, const LinkOptions& opt = {}) {
  using Mem = typename ExecSpace::memory_space;
  grid.check();
  if (int(flags.extent(0)) != grid.n[0] || int(flags.extent(1)) != grid.n[1] ||
      int(flags.extent(2)) != grid.n[2])
    throw std::invalid_argument("geometry: boundary_links: the flags are not the grid's");
  BoundaryLinks<Mem> links;
  // The rows that can hold a link: the bodies' boxes widened by the reach.
  Box3 all;
  for (const auto& b : scene.bodies) {
    all.add(b.bounds.lo);
    all.add(b.bounds.hi);
  }
  for (int d = 0; d < 3; ++d)
    all.lo[d] -= dirs.reach * grid.h[d], all.hi[d] += dirs.reach * grid.h[d];
  detail::NodeRange r = detail::node_range(grid, all);
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = r.lo[d] > opt.from[d] ? r.lo[d] : opt.from[d];
    r.hi[d] = r.hi[d] < opt.to[d] - 1 ? r.hi[d] : opt.to[d] - 1;
  }
  if (r.empty() || dirs.count == 0) return links;
  const int i0 = r.lo[0], i1 = r.hi[0] + 1, j0 = r.lo[1], nj = r.hi[1] - r.lo[1] + 1, k0 = r.lo[2];
  const int rows = nj * (r.hi[2] - r.lo[2] + 1);
  const detail::LinkMask<SolidFlags<Mem>> mask{flags, dirs, {grid.n[0], grid.n[1], grid.n[2]}};
  using Team = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  Kokkos::View<std::int64_t*, Mem> row("kflow::geometry::links::rows", rows + 1);
  Kokkos::parallel_for(
      "kflow::geometry::links::count", Kokkos::TeamPolicy<ExecSpace>(space, rows, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Team& team) {
        const int w = team.league_rank(), j = j0 + w % nj, k = k0 + w / nj;
        int sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, i0, i1),
            [&](int i, int& c) { c += detail::popcount(mask(i, j, k)); }, sum);
        Kokkos::single(Kokkos::PerTeam(team), [&] { row(w) = sum; });
      });
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "kflow::geometry::links::offsets", Kokkos::RangePolicy<ExecSpace>(space, 0, rows + 1),
      KOKKOS_LAMBDA(int w, std::int64_t& sum, bool final) {
        const std::int64_t n = row(w);
        if (final) row(w) = sum;
        sum += n;
      },
      total);
  if (total >= std::numeric_limits<int>::max())
    throw std::invalid_argument("geometry: " + std::to_string(total) +
                                " boundary links: more than kernels index with an int");
  links.count = total;
  auto alloc = [&](const char* label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label));
  };
  links.node = Kokkos::View<int*, Mem>(alloc("kflow::geometry::links::node"), total);
  links.dir = Kokkos::View<std::uint8_t*, Mem>(alloc("kflow::geometry::links::dir"), total);
  links.body = Kokkos::View<std::uint8_t*, Mem>(alloc("kflow::geometry::links::body"), total);
  links.q = Kokkos::View<double*, Mem>(alloc("kflow::geometry::links::q"), total);
  if (opt.normals)
    links.normal = Kokkos::View<double* [3], Mem>(alloc("kflow::geometry::links::normal"), total);
  const auto node = links.node;
  const auto dir = links.dir;
  const auto body = links.body;
  const auto q = links.q;
  const auto normal = links.normal;
  const NodeGrid g = grid;
  const Directions ds = dirs;
  constexpr double none = Kokkos::Experimental::infinity_v<double>;
  Kokkos::parallel_for(
      "kflow::geometry::links::fill", Kokkos::TeamPolicy<ExecSpace>(space, rows, Kokkos::AUTO),
      KOKKOS_LAMBDA(const Team& team) {
        const int w = team.league_rank(), j = j0 + w % nj, k = k0 + w / nj;
        const std::int64_t base = row(w);
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, i0, i1),
                              [&](int i, int& before, bool final) {
                                const std::uint64_t m = mask(i, j, k);
                                if (final && m) {
                                  int l = int(base) + before;
                                  for (int d = 0; d < ds.count; ++d) {
                                    if (!(m >> d & 1)) continue;
                                    node(l) = g.index(i, j, k);
                                    dir(l) = std::uint8_t(d);
                                    const int* c = ds.c[d];
                                    body(l) = std::uint8_t(flags(i + c[0], j + c[1], k + c[2]) - 1);
                                    q(l) = none;
                                    ++l;
                                  }
                                }
                                before += detail::popcount(m);
                              });
      });
  const detail::LinkSegment<Mem> segment{node, dir, g, ds};
  const bool with_normals = opt.normals;
  // Each body: keep the nearest wall (ties: the earlier body).
  for (const auto& b : scene.bodies) {
    const Box3 bb = b.bounds;
    const std::uint8_t id = std::uint8_t(b.id);
    if (!b.is_mesh) {
      const Shape shape = b.shape;
      const double margin = surface_margin(g);
      Kokkos::parallel_for(
          "kflow::geometry::links::shape", Kokkos::RangePolicy<ExecSpace>(space, 0, int(total)),
          KOKKOS_LAMBDA(int l) {
            Vec3 a, e;
            segment(l, a, e);
            Box3 sb;
            sb.add(a), sb.add(e);
            if (!sb.overlaps(bb)) return;
            double t;
            Vec3 n;
            if (!first_hit(shape, a, e, 1e-9, t, n)) {
              // A solid node on the surface (within the flags' margin) that
              // the segment grazes: the wall at the node, q = 1.
              if (!inside(shape, e, margin) || !(1.0 < q(l))) return;
              t = 1.0, n = normalized(a - e);
            } else if (!(t < q(l))) {
              return;
            }
            q(l) = t, body(l) = id;
            if (with_normals)
              for (int d = 0; d < 3; ++d) normal(l, d) = n[d];
          });
      continue;
    }
    Box3 region = intersection(bb, all);
    if (region.empty()) continue;
    const auto tris = b.triangles;
    const auto bins = detail::bin_triangles(space, tris, region,
                                            Kokkos::fmin(g.h[0], Kokkos::fmin(g.h[1], g.h[2])));
    Kokkos::parallel_for(
        "kflow::geometry::links::mesh", Kokkos::RangePolicy<ExecSpace>(space, 0, int(total)),
        KOKKOS_LAMBDA(int l) {
          Vec3 a, e;
          segment(l, a, e);
          Box3 sb;
          sb.add(a), sb.add(e);
          if (!sb.overlaps(region)) return;
          const Vec3 d = e - a;
          int lo[3], hi[3];
          for (int x = 0; x < 3; ++x) bins.span(x, sb.lo[x], sb.hi[x], lo[x], hi[x]);
          double best = none;
          int best_t = -1;
          Vec3 best_n;
          for (int bk = lo[2]; bk <= hi[2]; ++bk)
            for (int bj = lo[1]; bj <= hi[1]; ++bj)
              for (int bi = lo[0]; bi <= hi[0]; ++bi) {
                if (!bins.crosses(bi, bj, bk, a, d)) continue;  // (a corner of the box)
                const int c = bins.bin(bi, bj, bk);
                for (int p = bins.begin(c); p < bins.end(c); ++p) {
                  const int t = bins.tri(p);
                  const Vec3 v0{tris(t, 0, 0), tris(t, 0, 1), tris(t, 0, 2)};
                  const Vec3 v1{tris(t, 1, 0), tris(t, 1, 1), tris(t, 1, 2)};
                  const Vec3 v2{tris(t, 2, 0), tris(t, 2, 1), tris(t, 2, 2)};
                  double s;
                  Vec3 n;
                  if (!detail::segment_triangle(a, d, v0, v1, v2, s, n)) continue;
                  if (s < -1e-9 || s > 1 + 1e-9) continue;
                  if (s < best || (s == best && t < best_t)) best = s, best_t = t, best_n = n;
                }
              }
          if (!(best < q(l))) return;
          q(l) = best, body(l) = id;
          if (with_normals) {
            const Vec3 n = normalized(dot(best_n, d) > 0 ? -best_n : best_n);
            for (int x = 0; x < 3; ++x) normal(l, x) = n[x];
          }
        });
  }
  std::int64_t unresolved = 0;
  Kokkos::parallel_reduce(
      "kflow::geometry::links::finish", Kokkos::RangePolicy<ExecSpace>(space, 0, int(total)),
      KOKKOS_LAMBDA(int l, std::int64_t& n_unresolved) {
        if (q(l) == none) {
          ++n_unresolved;
          q(l) = 0.5;
          if (with_normals) {
            const int* c = ds.c[dir(l)];
            const Vec3 n = normalized(Vec3{-double(c[0]), -double(c[1]), -double(c[2])});
            for (int x = 0; x < 3; ++x) normal(l, x) = n[x];
          }
        } else {
          q(l) = Kokkos::fmin(1.0, Kokkos::fmax(min_q, q(l)));
        }
      },
      unresolved);
  links.unresolved = unresolved;
  return links;
}

}  // namespace kflow::geometry
