#pragma once
// Solid flags of a closed triangle mesh by ray parity along x.
//
// Each column (j, k) of nodes casts one ray along +x through (y_j, z_k).
// Each triangle visits only the columns its (y, z) projection's bounding box
// covers (so a ray meets only its own triangles) and decides whether it
// covers the column's point with exact orientations and a symbolic
// perturbation of the point (predicates.hpp): a ray through a shared edge or
// vertex is counted in exactly one triangle, a triangle seen edge-on in
// none, so the crossings of a closed mesh are exact for the displaced ray
// and even in number on every column.  The crossings of a column, sorted,
// make its inside intervals: node i is solid when an odd number of
// crossings lie at or before x_i (a node exactly on the surface is taken as
// displaced by +eps along x too: solid on a face where the body begins along
// +x, y, z; fluid where it ends).
//
// Kernels: count crossings per column (atomics), scan, fill, sort each
// column, then flag the nodes of the mesh's box.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/geometry/detail/node_range.hpp"
#include "kflow/geometry/detail/predicates.hpp"
#include "kflow/geometry/node_grid.hpp"
#include "kflow/geometry/scene.hpp"

namespace kflow::geometry::detail {

// A triangle projected on (y, z), counter-clockwise there, with its x.
struct ProjectedTriangle {
  double u[3], v[3], x[3];
  bool valid = false;  // false when edge-on (zero projected area)

  KOKKOS_INLINE_FUNCTION bool covers(double pu, double pv) const {
    return edge_side(u[0], v[0], u[1], v[1], pu, pv) > 0 &&
           edge_side(u[1], v[1], u[2], v[2], pu, pv) > 0 &&
           edge_side(u[2], v[2], u[0], v[0], pu, pv) > 0;
  }
  // The x of the plane over (pu, pv) (a covered point), exact on planes x = const.
  KOKKOS_INLINE_FUNCTION double x_at(double pu, double pv) const {
    auto w = [&](int a, int b) {
      const double o = (u[b] - u[a]) * (pv - v[a]) - (v[b] - v[a]) * (pu - u[a]);
      return o > 0 ? o : 0.0;
    };
    const double w0 = w(1, 2), w1 = w(2, 0), w2 = w(0, 1), s = w0 + w1 + w2;
    double r = x[0];
    if (s > 0) r += (w1 * (x[1] - x[0]) + w2 * (x[2] - x[0])) / s;
    const double lo = Kokkos::fmin(x[0], Kokkos::fmin(x[1], x[2]));
    const double hi = Kokkos::fmax(x[0], Kokkos::fmax(x[1], x[2]));
    return Kokkos::fmin(hi, Kokkos::fmax(lo, r));
  }
};

template <class View>
KOKKOS_INLINE_FUNCTION ProjectedTriangle project(const View& tri, int t) {
  ProjectedTriangle p;
  for (int k = 0; k < 3; ++k) p.u[k] = tri(t, k, 1), p.v[k] = tri(t, k, 2), p.x[k] = tri(t, k, 0);
  const int o = orient2d_sign(p.u[0], p.v[0], p.u[1], p.v[1], p.u[2], p.v[2]);
  if (o == 0) return p;
  if (o < 0) {  // make it counter-clockwise
    double s = p.u[1];
    p.u[1] = p.u[2], p.u[2] = s;
    s = p.v[1], p.v[1] = p.v[2], p.v[2] = s;
    s = p.x[1], p.x[1] = p.x[2], p.x[2] = s;
  }
  p.valid = true;
  return p;
}

// The columns of [c0, c1] (inclusive) whose node coordinate origin + c h
// lies in [lo, hi], with a margin of 1e-9 of a spacing; false when none.
KOKKOS_INLINE_FUNCTION bool column_span(double lo, double hi, double origin, double h, int c0,
                                        int c1, int& a, int& b) {
  const double fa = Kokkos::ceil((lo - origin) / h - 1e-9);
  const double fb = Kokkos::floor((hi - origin) / h + 1e-9);
  if (!(fa <= c1) || !(fb >= c0)) return false;
  a = int(Kokkos::fmax(double(c0), fa));
  b = int(Kokkos::fmin(double(c1), fb));
  return a <= b;
}

// Calls f(column, y, z, projected triangle) for every column that
// triangle t covers.
template <class Tri>
struct ColumnVisitor {
  Tri tri;
  double oy, oz, hy, hz;
  int j0, j1, k0, k1, nj;

  template <class F>
  KOKKOS_INLINE_FUNCTION void operator()(int t, const F& f) const {
    const ProjectedTriangle p = project(tri, t);
    if (!p.valid) return;
    int ja, jb, ka, kb;
    if (!column_span(Kokkos::fmin(p.u[0], Kokkos::fmin(p.u[1], p.u[2])),
                     Kokkos::fmax(p.u[0], Kokkos::fmax(p.u[1], p.u[2])), oy, hy, j0, j1, ja, jb) ||
        !column_span(Kokkos::fmin(p.v[0], Kokkos::fmin(p.v[1], p.v[2])),
                     Kokkos::fmax(p.v[0], Kokkos::fmax(p.v[1], p.v[2])), oz, hz, k0, k1, ka, kb))
      return;
    for (int k = ka; k <= kb; ++k) {
      const double z = oz + k * hz;
      for (int j = ja; j <= jb; ++j) {
        const double y = oy + j * hy;
        if (p.covers(y, z)) f((j - j0) + nj * (k - k0), y, z, p);
      }
    }
  }
};

struct ColumnStats {
  std::int64_t crossings = 0, odd_columns = 0;
};

// Sets flags(i, j, k) = value where it is 0 and the node is inside the mesh
// `tri` (nodes in `range` only: the mesh's box).
template <class ExecSpace, class Flags>
ColumnStats mesh_flags(const ExecSpace& space,
                       const TriangleView<typename ExecSpace::memory_space>& tri, const NodeGrid& g,
                       const NodeRange& range, std::uint8_t value, const Flags& flags) {
  using Mem = typename ExecSpace::memory_space;
  ColumnStats stats;
  if (range.empty()) return stats;
  const int j0 = range.lo[1], j1 = range.hi[1], k0 = range.lo[2], k1 = range.hi[2];
  const int nj = j1 - j0 + 1, nk = k1 - k0 + 1;
  const std::int64_t ncol = std::int64_t(nj) * nk;
  if (ncol >= std::numeric_limits<int>::max())
    throw std::invalid_argument("geometry: too many node columns for int indices");
  const int nt = int(tri.extent(0));
  const double oy = g.origin[1], oz = g.origin[2], hy = g.h[1], hz = g.h[2];
  Kokkos::View<int*, Mem> count("kflow::geometry::mesh_flags::count", ncol + 1);

  // (the columns numbered as in the larger grid: their coordinates are its)
  const int cj0 = j0 + g.first[1], cj1 = j1 + g.first[1];
  const int ck0 = k0 + g.first[2], ck1 = k1 + g.first[2];
  const ColumnVisitor<TriangleView<Mem>> visit{tri, oy, oz, hy, hz, cj0, cj1, ck0, ck1, nj};
  Kokkos::parallel_for(
      "kflow::geometry::mesh_flags::count", Kokkos::RangePolicy<ExecSpace>(space, 0, nt),
      KOKKOS_LAMBDA(int t) {
        visit(t, [&](int c, double, double, const ProjectedTriangle&) {
          Kokkos::atomic_inc(&count(c));
        });
      });
  // count -> offsets (exclusive), in place; the last entry is the total
  int total = 0;
  Kokkos::parallel_scan(
      "kflow::geometry::mesh_flags::offsets",
      Kokkos::RangePolicy<ExecSpace>(space, 0, int(ncol) + 1),
      KOKKOS_LAMBDA(int c, int& sum, bool final) {
        const int n = count(c);
        if (final) count(c) = sum;
        sum += n;
      },
      total);
  stats.crossings = total;
  Kokkos::View<double*, Mem> xs(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::geometry::mesh_flags::x"),
      total);
  Kokkos::View<int*, Mem> fill("kflow::geometry::mesh_flags::fill", ncol);
  Kokkos::parallel_for(
      "kflow::geometry::mesh_flags::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, nt),
      KOKKOS_LAMBDA(int t) {
        visit(t, [&](int c, double y, double z, const ProjectedTriangle& p) {
          xs(count(c) + Kokkos::atomic_fetch_add(&fill(c), 1)) = p.x_at(y, z);
        });
      });
  // Sort each column's crossings (a few each: insertion sort); count odd columns.
  std::int64_t odd = 0;
  Kokkos::parallel_reduce(
      "kflow::geometry::mesh_flags::sort", Kokkos::RangePolicy<ExecSpace>(space, 0, int(ncol)),
      KOKKOS_LAMBDA(int c, std::int64_t& n_odd) {
        const int b = count(c), e = count(c + 1);
        for (int a = b + 1; a < e; ++a) {
          const double v = xs(a);
          int s = a;
          for (; s > b && xs(s - 1) > v; --s) xs(s) = xs(s - 1);
          xs(s) = v;
        }
        n_odd += (e - b) & 1;
      },
      odd);
  stats.odd_columns = odd;
  // Flags: the parity of the crossings at or before each node.
  const double ox = g.origin[0], hx = g.h[0];
  const int fx = g.first[0];
  using Policy =
      Kokkos::MDRangePolicy<ExecSpace,
                            Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
  Kokkos::parallel_for(
      "kflow::geometry::mesh_flags::parity",
      Policy(space, {range.lo[0], j0, k0}, {range.hi[0] + 1, j1 + 1, k1 + 1}),
      KOKKOS_LAMBDA(int i, int j, int k) {
        const int c = (j - j0) + nj * (k - k0);
        const double x = ox + (fx + i) * hx;
        int lo = count(c), hi = count(c + 1);  // the first crossing > x
        const int b = lo;
        while (lo < hi) {
          const int mid = lo + (hi - lo) / 2;
          if (xs(mid) <= x)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (((lo - b) & 1) && flags(i, j, k) == 0) flags(i, j, k) = value;
      });
  return stats;
}

}  // namespace kflow::geometry::detail
