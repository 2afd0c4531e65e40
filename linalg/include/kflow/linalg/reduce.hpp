#pragma once
// Reductions over the interior of a grid field on any execution space:
// max-norm, 2-norm (sqrt of the sum of squares), sum, and the max-norm of a
// difference.  The result is the only value that comes back to the host.

#include <Kokkos_Core.hpp>

#include <cmath>

#include "kflow/linalg/field.hpp"

namespace kflow::linalg {

namespace detail {
// Applies `op(value, acc)` to every interior value of a 2D or 3D field.
template <class ExecSpace, class View, class Op, class Reducer>
void reduce_interior(const ExecSpace& space, const char* label, const Grid& grid, const View& v,
                     Op op, Reducer reducer) {
  if constexpr (View::rank == 2) {
    Kokkos::parallel_reduce(
        label, interior_policy<2>(space, grid),
        KOKKOS_LAMBDA(int i, int j, typename Reducer::value_type& acc) { op(v(i, j), acc); },
        reducer);
  } else {
    Kokkos::parallel_reduce(
        label, interior_policy<3>(space, grid),
        KOKKOS_LAMBDA(int i, int j, int k, typename Reducer::value_type& acc) {
          op(v(i, j, k), acc);
        },
        reducer);
  }
}
}  // namespace detail

template <class ExecSpace, class View>
double max_norm(const ExecSpace& space, const Grid& grid, const View& v) {
  double r = 0;
  detail::reduce_interior(
      space, "kflow::linalg::max_norm", grid, v,
      KOKKOS_LAMBDA(double x, double& acc) {
        const double a = Kokkos::fabs(x);
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
