#pragma once
// STREAM-like kernels that measure the memory bandwidth an execution space
// reaches: BabelStream's five (Deakin, Price, Martineau & McIntosh-Smith,
// "GPU-STREAM v2.0", 2016): copy c = a, mul b = s c, add c = a + b, triad
// a = b + s c, dot sum a b.  The best of them is the ceiling every kflow
// benchmark divides by.  Each work item handles `per` elements, n / per
// apart: on GPUs several independent loads in flight per thread, every warp
// access still coalesced (one 4-byte element per thread reached half the
// bandwidth in float).  n must be a multiple of `per`.

#include <Kokkos_Core.hpp>

namespace kflow::linalg {

namespace detail {
template <class ExecSpace, class Body>
void stream_for(const ExecSpace& space, const char* label, long n, int per, const Body& body) {
  const long m = n / per;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, m),
      KOKKOS_LAMBDA(long i) {
        for (int k = 0; k < per; ++k) body(i + k * m);
      });
}
}  // namespace detail

// BabelStream's initial values a = 0.1, b = 0.2, c = 0, written by the
// space's threads in the kernels' pattern (first touch places the pages).
template <class ExecSpace, class Real, class Mem>
void stream_init(const ExecSpace& space, const Kokkos::View<Real*, Mem>& a,
                 const Kokkos::View<Real*, Mem>& b, const Kokkos::View<Real*, Mem>& c,
                 int per = 1) {
  detail::stream_for(
      space, "kflow::linalg::stream::init", long(a.extent(0)), per, KOKKOS_LAMBDA(long i) {
        a(i) = Real(0.1);
        b(i) = Real(0.2);
        c(i) = Real(0);
      });
}

// c(i) = a(i)
template <class ExecSpace, class Real, class Mem>
void copy(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
          const Kokkos::View<Real*, Mem>& c, int per = 1) {
  detail::stream_for(
      space, "kflow::linalg::stream::copy", long(a.extent(0)), per,
      KOKKOS_LAMBDA(long i) { c(i) = a(i); });
}

// b(i) = s c(i)
template <class ExecSpace, class Real, class Mem>
void mul(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& c,
         const Kokkos::View<Real*, Mem>& b, Real s, int per = 1) {
  detail::stream_for(
      space, "kflow::linalg::stream::mul", long(c.extent(0)), per,
      KOKKOS_LAMBDA(long i) { b(i) = s * c(i); });
}

// c(i) = a(i) + b(i)
template <class ExecSpace, class Real, class Mem>
void add(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
         const Kokkos::View<const Real*, Mem>& b, const Kokkos::View<Real*, Mem>& c, int per = 1) {
  detail::stream_for(
      space, "kflow::linalg::stream::add", long(a.extent(0)), per,
      KOKKOS_LAMBDA(long i) { c(i) = a(i) + b(i); });
}

// a(i) = b(i) + s c(i)
template <class ExecSpace, class Real, class Mem>
void triad(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& b,
           const Kokkos::View<const Real*, Mem>& c, const Kokkos::View<Real*, Mem>& a, Real s,
           int per = 1) {
  detail::stream_for(
      space, "kflow::linalg::stream::triad", long(b.extent(0)), per,
      KOKKOS_LAMBDA(long i) { a(i) = b(i) + s * c(i); });
}

// sum_i a(i) b(i), accumulated in double.
template <class ExecSpace, class Real, class Mem>
double dot(const ExecSpace& space, const Kokkos::View<const Real*, Mem>& a,
           const Kokkos::View<const Real*, Mem>& b, int per = 1) {
  const long m = long(a.extent(0)) / per;
  double r = 0;
  Kokkos::parallel_reduce(
      "kflow::linalg::stream::dot",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long>>(space, 0, m),
      KOKKOS_LAMBDA(long i, double& acc) {
        for (int k = 0; k < per; ++k) acc += double(a(i + k * m)) * double(b(i + k * m));
      },
      r);
  space.fence("kflow::linalg::stream::dot");
  return r;
}

}  // namespace kflow::linalg
