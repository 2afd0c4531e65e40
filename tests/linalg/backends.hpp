#pragma once
// The execution spaces compiled into this Kokkos, as a Catch2 type list:
// linalg tests are TEMPLATE_LIST_TEST_CASE over it, so a CUDA build runs
// every linalg test on the GPU as well as on the host backends.

#include <Kokkos_Core.hpp>

#include <tuple>

namespace kflow::test {

using ExecutionSpaces = std::tuple<
#ifdef KOKKOS_ENABLE_SERIAL
    Kokkos::Serial
#endif
#if defined(KOKKOS_ENABLE_SERIAL) && defined(KOKKOS_ENABLE_OPENMP)
    ,
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    Kokkos::OpenMP
#endif
#if (defined(KOKKOS_ENABLE_SERIAL) || defined(KOKKOS_ENABLE_OPENMP)) && defined(KOKKOS_ENABLE_CUDA)
    ,
#endif
#ifdef KOKKOS_ENABLE_CUDA
    Kokkos::Cuda
#endif
    >;

}  // namespace kflow::test
