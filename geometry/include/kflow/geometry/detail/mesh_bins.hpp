#pragma once
// A uniform grid of bins over a box, each listing the triangles whose
// bounding box (widened by 1e-6 of a bin) overlaps it: a segment then tests
// only the triangles of the bins its own bounding box overlaps.  Bins are
// about half a node spacing (smaller bins test fewer triangles per link),
// fewer where the memory cap (16 M bins) or 8 bins per triangle bind.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "kflow/geometry/scene.hpp"
#include "kflow/geometry/vec.hpp"

namespace kflow::geometry::detail {

template <class MemSpace>
struct TriangleBins {
  Vec3 lo;         // the region's low corner
  double size[3];  // bin edges
  int nb[3] = {0, 0, 0};
  Kokkos::View<int*, MemSpace> offset;  // bin c: tri(begin(c) .. end(c) - 1)
  Kokkos::View<int*, MemSpace> tri;

  KOKKOS_INLINE_FUNCTION int begin(int c) const { return offset(c + 1); }
  KOKKOS_INLINE_FUNCTION int end(int c) const { return offset(c + 2); }

  // The bins [a, b] (inclusive, clamped) that cover [x0, x1] along axis d.
  KOKKOS_INLINE_FUNCTION void span(int d, double x0, double x1, int& a, int& b) const {
    const double fa = Kokkos::floor((x0 - lo[d]) / size[d] - 1e-6);
    const double fb = Kokkos::floor((x1 - lo[d]) / size[d] + 1e-6);
    a = int(Kokkos::fmax(0.0, Kokkos::fmin(double(nb[d] - 1), fa)));
    b = int(Kokkos::fmax(0.0, Kokkos::fmin(double(nb[d] - 1), fb)));
  }
  KOKKOS_INLINE_FUNCTION int bin(int i, int j, int k) const { return i + nb[0] * (j + nb[1] * k); }
  // Whether the segment a + t d (0 <= t <= 1) meets bin (i, j, k), widened
  // as the triangles' boxes are (slabs; a segment in a bin's face meets it).
  KOKKOS_INLINE_FUNCTION bool crosses(int i, int j, int k, const Vec3& a, const Vec3& d) const {
    const int b[3] = {i, j, k};
    double t0 = 0, t1 = 1;
    for (int x = 0; x < 3; ++x) {
      const double w = 2e-6 * size[x];
      const double l = lo[x] + b[x] * size[x] - w, h = lo[x] + (b[x] + 1) * size[x] + w;
      if (d[x] == 0) {
        if (a[x] < l || a[x] > h) return false;
        continue;
      }
      double ta = (l - a[x]) / d[x], tb = (h - a[x]) / d[x];
      if (ta > tb) {
        const double s = ta;
        ta = tb, tb = s;
      }
      t0 = Kokkos::fmax(t0, ta), t1 = Kokkos::fmin(t1, tb);
    }
    return t0 <= t1;
  }
};

// The bins [lo, hi] (inclusive) that triangle t overlaps; false when its box
// misses the region.
template <class MemSpace>
struct TriangleSpan {
  TriangleView<MemSpace> tris;
  TriangleBins<MemSpace> bins;
  Box3 region;

  KOKKOS_INLINE_FUNCTION bool operator()(int t, int lo[3], int hi[3]) const {
    Box3 tb, rr = region;
    for (int v = 0; v < 3; ++v) tb.add({tris(t, v, 0), tris(t, v, 1), tris(t, v, 2)});
    for (int d = 0; d < 3; ++d) rr.lo[d] -= 1e-6 * bins.size[d], rr.hi[d] += 1e-6 * bins.size[d];
    if (!tb.overlaps(rr)) return false;
    for (int d = 0; d < 3; ++d) bins.span(d, tb.lo[d], tb.hi[d], lo[d], hi[d]);
    return true;
  }
};

// The number of bins of edge s over extents e.
inline double bin_count(const double e[3], double s) {
  double n = 1;
  for (int d = 0; d < 3; ++d) n *= std::fmax(1.0, std::ceil(e[d] / s));
  return n;
}

template <class ExecSpace>
TriangleBins<typename ExecSpace::memory_space> bin_triangles(
    const ExecSpace& space, const TriangleView<typename ExecSpace::memory_space>& tris,
    const Box3& region, double spacing) {
  using Mem = typename ExecSpace::memory_space;
  TriangleBins<Mem> bins;
  const int nt = int(tris.extent(0));
  double e[3];
  for (int d = 0; d < 3; ++d) e[d] = std::fmax(0.0, region.hi[d] - region.lo[d]);
  const double target = std::fmin(double(1 << 24), 8.0 * nt + 64);
  double s = 0.5 * spacing;
  if (bin_count(e, s) > target) {  // the smallest s in [s, max e] within the target
    double a = s, b = std::fmax(s, std::fmax(e[0], std::fmax(e[1], e[2])));
    for (int it = 0; it < 100 && b > a * (1 + 1e-12); ++it) {
      const double m = std::sqrt(a * b);
      (bin_count(e, m) > target ? a : b) = m;
    }
    s = b;
  }
  bins.lo = region.lo;
  for (int d = 0; d < 3; ++d) {
    bins.nb[d] = int(std::fmax(1.0, std::ceil(e[d] / s)));
    bins.size[d] = e[d] > 0 ? e[d] / bins.nb[d] : s;
  }
  const int nbins = bins.nb[0] * bins.nb[1] * bins.nb[2];
  // Counted at c + 2, scanned (offset(c + 2) = the start of bin c), then
  // filled through offset(c + 2) as the cursor: it ends as bin c's end, and
  // offset(c + 1) as its start.  No second array.
  bins.offset = Kokkos::View<int*, Mem>("kflow::geometry::bins::offset", nbins + 2);
  const auto offset = bins.offset;
  const TriangleBins<Mem> b = bins;  // (by value into kernels)
  const TriangleSpan<Mem> span_of{tris, b, region};
  Kokkos::parallel_for(
      "kflow::geometry::bins::count", Kokkos::RangePolicy<ExecSpace>(space, 0, nt),
      KOKKOS_LAMBDA(int t) {
        int lo[3], hi[3];
        if (!span_of(t, lo, hi)) return;
        for (int k = lo[2]; k <= hi[2]; ++k)
          for (int j = lo[1]; j <= hi[1]; ++j)
            for (int i = lo[0]; i <= hi[0]; ++i) Kokkos::atomic_inc(&offset(b.bin(i, j, k) + 2));
      });
  std::int64_t total = 0;
  Kokkos::parallel_scan(
      "kflow::geometry::bins::offsets", Kokkos::RangePolicy<ExecSpace>(space, 0, nbins + 2),
      KOKKOS_LAMBDA(int c, std::int64_t& sum, bool final) {
        const int n = offset(c);
        if (final) offset(c) = int(sum);
        sum += n;
      },
      total);
  if (total >= std::numeric_limits<int>::max())
    throw std::invalid_argument("geometry: too many (triangle, bin) pairs for int indices");
  bins.tri = Kokkos::View<int*, Mem>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::geometry::bins::tri"), total);
  const auto list = bins.tri;
  Kokkos::parallel_for(
      "kflow::geometry::bins::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, nt),
      KOKKOS_LAMBDA(int t) {
        int lo[3], hi[3];
        if (!span_of(t, lo, hi)) return;
        for (int k = lo[2]; k <= hi[2]; ++k)
          for (int j = lo[1]; j <= hi[1]; ++j)
            for (int i = lo[0]; i <= hi[0]; ++i) {
              list(Kokkos::atomic_fetch_add(&offset(b.bin(i, j, k) + 2), 1)) = t;
            }
      });
  return bins;
}

// The segment a + t d (0 <= t <= 1) against triangle (v0, v1, v2)
// (Moller-Trumbore, barycentric coordinates accepted 1e-9 beyond the edges:
// a segment through a shared edge finds both triangles).  t and the
// (unnormalised) triangle normal e1 x e2.
KOKKOS_INLINE_FUNCTION bool segment_triangle(const Vec3& a, const Vec3& d, const Vec3& v0,
                                             const Vec3& v1, const Vec3& v2, double& t, Vec3& n) {
  constexpr double tol = 1e-9;
  const Vec3 e1 = v1 - v0, e2 = v2 - v0, p = cross(d, e2);
  const double det = dot(e1, p);
  if (!(Kokkos::fabs(det) > 1e-14 * norm(e1) * norm(e2) * norm(d))) return false;  // parallel
  const double inv = 1.0 / det;
  const Vec3 s = a - v0;
  const double u = dot(s, p) * inv;
  if (u < -tol || u > 1 + tol) return false;
  const Vec3 q = cross(s, e1);
  const double v = dot(d, q) * inv;
  if (v < -tol || u + v > 1 + tol) return false;
  t = dot(e2, q) * inv;
  n = cross(e1, e2);
  return true;
}

}  // namespace kflow::geometry::detail
