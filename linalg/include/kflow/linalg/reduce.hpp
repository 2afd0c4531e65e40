#pragma once
// Reductions over the interior of a grid field on any execution space:
// max-norm, 2-norm (sqrt of the sum of squares), sum, and the max-norm of a
// difference.  The result is the only value that comes back to the host.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/field.hpp"

namespace kflow::linalg {

// A max-norm must not lose a NaN (Max reductions drop it: NaN > a is
// false), or a diverged solve would look converged: count it as +inf.
template <class T>
KOKKOS_INLINE_FUNCTION T nan_as_inf(T v) {
  return Kokkos::isnan(v) ? Kokkos::Experimental::infinity_v<T> : v;
}

namespace detail {
// f(i, j[, k], acc...) over the flat index range [0, total), i fastest, by a
// fixed number of threads: thread w takes the points w, w + stride, ...  The
// index is carried from point to point (no division after the first).
template <class F, class... V>
struct StridedIndex2 {
  F f;
  int nx, i0, j0, total, stride;
  KOKKOS_INLINE_FUNCTION void operator()(int w, V&... acc) const {
    const int si = stride % nx, sj = stride / nx;
    int i = w % nx, j = w / nx;
    for (int n = w; n < total; n += stride) {
      f(i0 + i, j0 + j, acc...);
      i += si;
      j += sj;
      if (i >= nx) {
        i -= nx;
        ++j;
      }
    }
  }
};
template <class F, class... V>
struct StridedIndex3 {
  F f;
  int nx, ny, i0, j0, k0, total, stride;
  KOKKOS_INLINE_FUNCTION void operator()(int w, V&... acc) const {
    const int si = stride % nx, sr = stride / nx;
    const int sj = sr % ny, sk = sr / ny;
    int i = w % nx, j = (w / nx) % ny, k = (w / nx) / ny;
    for (int n = w; n < total; n += stride) {
      f(i0 + i, j0 + j, k0 + k, acc...);
      i += si;
      j += sj;
      k += sk;
      if (i >= nx) {
        i -= nx;
        ++j;
      }
      if (j >= ny) {
        j -= ny;
        ++k;
      }
    }
  }
};

// f(i, j, k, acc...) row by row on host backends: work item r is the row
// (j, k) = (j0 + r % ny, k0 + r / ny), swept along i in a plain loop.
template <class F, class... V>
struct Rows3 {
  F f;
  int i0, i1, j0, ny, k0;
  KOKKOS_INLINE_FUNCTION void operator()(int r, V&... acc) const {
    const int j = j0 + r % ny, k = k0 + r / ny;
    for (int i = i0; i < i1; ++i) f(i, j, k, acc...);
  }
};

// The number of threads of a GPU reduction: `blocks` blocks of 256 threads
// a multiprocessor (concurrency() is 2048 threads a multiprocessor), all
// resident at once when the kernel's registers allow that many.  Kokkos
// sizes a range reduction's grid for 2048 threads a multiprocessor, which
// leaves a partial second wave when registers allow fewer.
template <class ExecSpace>
int reduce_threads(const ExecSpace& space, long total, int blocks) {
  const long t = std::max(1L, long(space.concurrency()) * blocks / 8);
  return int(std::min(t, total));
}
}  // namespace detail

// parallel_reduce of f(i, j, k, acc...) over the box lo <= (i, j, k) < hi.
// On GPUs the points are one flat index range, i fastest (coalesced), swept
// by a fixed number of threads: `blocks` blocks of 256 a multiprocessor (4
// unless a kernel's registers allow fewer).  Kokkos'
// MDRange reductions launch few blocks, its range reductions a partial
// second wave.  Host backends take whole rows along i per work item (Rows3:
// a plain inner loop; Kokkos' host MDRange tiles cost more than the work of
// split3d's update).  Results through reducers
// (Kokkos::Max<double>(x), a View, ...).
template <class ExecSpace, class F, class... Reducers>
void box_reduce_blocks(int blocks, const ExecSpace& space, const std::string& label,
                       const int (&lo)[3], const int (&hi)[3], const F& f,
                       const Reducers&... reducers) {
  if constexpr (on_gpu<ExecSpace>) {
    const int nx = std::max(0, hi[0] - lo[0]), ny = std::max(0, hi[1] - lo[1]);
    const int nz = std::max(0, hi[2] - lo[2]);
    const long total = long(nx) * ny * nz;
    const int threads = detail::reduce_threads(space, std::max(1L, total), blocks);
    if (total + threads > std::numeric_limits<int>::max())
      throw std::invalid_argument(label + ": " + std::to_string(total) +
                                  " points are more than one GPU reduction indexes");
    Kokkos::parallel_reduce(
        label, RangePolicy<ExecSpace>(space, 0, threads),
        detail::StridedIndex3<F, typename Reducers::value_type...>{
            f, std::max(nx, 1), std::max(ny, 1), lo[0], lo[1], lo[2], int(total), threads},
        reducers...);
  } else {
    (void)blocks;
    const int ny = std::max(0, hi[1] - lo[1]), nz = std::max(0, hi[2] - lo[2]);
    Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 0, ny * nz),
                            detail::Rows3<F, typename Reducers::value_type...>{
                                f, lo[0], hi[0], lo[1], std::max(ny, 1), lo[2]},
                            reducers...);
  }
}

template <class ExecSpace, class F, class... Reducers>
void box_reduce(const ExecSpace& space, const std::string& label, const int (&lo)[3],
                const int (&hi)[3], const F& f, const Reducers&... reducers) {
  box_reduce_blocks(4, space, label, lo, hi, f, reducers...);
}

// The same over the points of `grid`: the interior, or every stored point
// (ghosts = true).  2D grids sweep (i, j) in the same way.
template <int Dim, class ExecSpace, class F, class... Reducers>
void grid_reduce_blocks(int blocks, const ExecSpace& space, const std::string& label,
                        const Grid& grid, bool ghosts, const F& f, const Reducers&... reducers) {
  static_assert(Dim == 2 || Dim == 3);
  if constexpr (Dim == 3 && on_gpu<ExecSpace>) {
    const int g = ghosts ? 0 : grid.ghost;
    int lo[3], hi[3];
    for (int d = 0; d < 3; ++d) lo[d] = g, hi[d] = g + (ghosts ? grid.extent(d) : grid.cells[d]);
    box_reduce_blocks(blocks, space, label, lo, hi, f, reducers...);
  } else if constexpr (on_gpu<ExecSpace>) {
    const int g = ghosts ? 0 : grid.ghost;
    const int nx = ghosts ? grid.extent(0) : grid.cells[0];
    const int ny = ghosts ? grid.extent(1) : grid.cells[1];
    const long total = long(nx) * ny;
    const int threads = detail::reduce_threads(space, total, blocks);
    if (total + threads > std::numeric_limits<int>::max())
      throw std::invalid_argument(label + ": " + std::to_string(total) +
                                  " points are more than one GPU reduction indexes");
    Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 0, threads),
                            detail::StridedIndex2<F, typename Reducers::value_type...>{
                                f, nx, g, g, int(total), threads},
                            reducers...);
  } else {
    (void)blocks;
    Kokkos::parallel_reduce(
        label, ghosts ? full_policy<Dim>(space, grid) : interior_policy<Dim>(space, grid), f,
        reducers...);
  }
}

template <int Dim, class ExecSpace, class F, class... Reducers>
void grid_reduce(const ExecSpace& space, const std::string& label, const Grid& grid, bool ghosts,
                 const F& f, const Reducers&... reducers) {
  grid_reduce_blocks<Dim>(4, space, label, grid, ghosts, f, reducers...);
}

namespace detail {
// Applies `op(value, acc)` to every interior value of a 2D or 3D field.
template <class ExecSpace, class View, class Op, class Reducer>
void reduce_interior(const ExecSpace& space, const char* label, const Grid& grid, const View& v,
                     Op op, Reducer reducer) {
  if constexpr (View::rank == 2) {
    grid_reduce<2>(
        space, label, grid, false,
        KOKKOS_LAMBDA(int i, int j, typename Reducer::value_type& acc) { op(v(i, j), acc); },
        reducer);
  } else {
    grid_reduce<3>(
        space, label, grid, false,
        KOKKOS_LAMBDA(int i, int j, int k, typename Reducer::value_type& acc) {
          op(v(i, j, k), acc);
        },
        reducer);
  }
}
}  // namespace detail

// max |v| over the interior; NaN counts as +inf.
template <class ExecSpace, class View>
double max_norm(const ExecSpace& space, const Grid& grid, const View& v) {
  double r = 0;
  detail::reduce_interior(
      space, "kflow::linalg::max_norm", grid, v,
      KOKKOS_LAMBDA(double x, double& acc) {
        const double a = nan_as_inf(Kokkos::fabs(x));
        acc = a > acc ? a : acc;
      },
      Kokkos::Max<double>(r));
  space.fence("kflow::linalg::max_norm");
  return r;
}

template <class ExecSpace, class View>
double sum(const ExecSpace& space, const Grid& grid, const View& v) {
  double r = 0;
  detail::reduce_interior(
      space, "kflow::linalg::sum", grid, v, KOKKOS_LAMBDA(double x, double& acc) { acc += x; },
      Kokkos::Sum<double>(r));
  space.fence("kflow::linalg::sum");
  return r;
}

template <class ExecSpace, class View>
double norm2(const ExecSpace& space, const Grid& grid, const View& v) {
  double r = 0;
  detail::reduce_interior(
      space, "kflow::linalg::norm2", grid, v,
      KOKKOS_LAMBDA(double x, double& acc) { acc += x * x; }, Kokkos::Sum<double>(r));
  space.fence("kflow::linalg::norm2");
  return std::sqrt(r);
}

}  // namespace kflow::linalg
