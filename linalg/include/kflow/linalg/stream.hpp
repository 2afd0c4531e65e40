#pragma once
// STREAM-like kernels that measure the memory bandwidth an execution space
// reaches: the reference every kflow benchmark divides by.

#include <Kokkos_Core.hpp>

namespace kflow::linalg {

// b(i) = a(i)
template <class ExecSpace, class Real, class Mem>
void copy(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
          const Kokkos::View<Real*, Mem>& b) {
  Kokkos::parallel_for(
      "kflow::linalg::copy",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, a.extent(0)),
      KOKKOS_LAMBDA(long i) { b(i) = a(i); });
}

// sum_i a(i) b(i), accumulated in double.
template <class ExecSpace, class Real, class Mem>
double dot(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
           const Kokkos::View<const Real*, Mem>& b) {
  double r = 0;
  Kokkos::parallel_reduce(
      "kflow::linalg::dot",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, a.extent(0)),
      KOKKOS_LAMBDA(long i, double& acc) { acc += double(a(i)) * double(b(i)); }, r);
  space.fence("kflow::linalg::dot");
  return r;
}

}  // namespace kflow::linalg
