#pragma once
// Reductions over the interior of a grid field on any execution space:
// max-norm, 2-norm (sqrt of the sum of squares), sum, and the max-norm of a
// difference.  The result is the only value that comes back to the host.

#include <Kokkos_Core.hpp>

#include <cmath>
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
// f(i, j[, k], acc...) called from one flat index, i fastest.
template <class F, class... V>
struct FlatIndex2 {
  F f;
  int nx, i0, j0;
  KOKKOS_INLINE_FUNCTION void operator()(int n, V&... acc) const {
    f(i0 + n % nx, j0 + n / nx, acc...);
  }
};
template <class F, class... V>
struct FlatIndex3 {
  F f;
  int nx, ny, i0;
  KOKKOS_INLINE_FUNCTION void operator()(int n, V&... acc) const {
    const int r = n / nx;
    f(i0 + n % nx, i0 + r % ny, i0 + r / ny, acc...);
  }
};
}  // namespace detail

// parallel_reduce of f(i, j[, k], acc...) over the points of `grid`: the
// interior, or every stored point (ghosts = true).  On GPUs the points are
// one flat index range, i fastest (coalesced, as many blocks as needed):
// Kokkos' MDRange reductions launch few blocks (docs/performance.md).
// Host backends keep the MDRange (no integer division per point).
// Results through reducers (Kokkos::Max<double>(x), a View, ...).
template <int Dim, class ExecSpace, class F, class... Reducers>
void grid_reduce(const ExecSpace& space, const std::string& label, const Grid& grid, bool ghosts,
                 const F& f, const Reducers&... reducers) {
  static_assert(Dim == 2 || Dim == 3);
  if constexpr (on_gpu<ExecSpace>) {
    const int g = ghosts ? 0 : grid.ghost;
    const int nx = ghosts ? grid.extent(0) : grid.cells[0];
    const int ny = ghosts ? grid.extent(1) : grid.cells[1];
    if constexpr (Dim == 2) {
      Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 0, nx * ny),
                              detail::FlatIndex2<F, typename Reducers::value_type...>{f, nx, g, g},
                              reducers...);
    } else {
      const int nz = ghosts ? grid.extent(2) : grid.cells[2];
      Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 0, nx * ny * nz),
                              detail::FlatIndex3<F, typename Reducers::value_type...>{f, nx, ny, g},
                              reducers...);
    }
  } else {
    Kokkos::parallel_reduce(
        label, ghosts ? full_policy<Dim>(space, grid) : interior_policy<Dim>(space, grid), f,
        reducers...);
  }
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
