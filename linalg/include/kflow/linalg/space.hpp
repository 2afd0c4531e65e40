#pragma once
// Execution-space traits shared by every linalg algorithm: one definition of
// "runs on a GPU" (the space cannot reach host memory), used to choose GPU
// tilings and kernels at compile time.

#include <Kokkos_Core.hpp>

namespace kflow::linalg {

template <class ExecSpace>
inline constexpr bool on_gpu =
    !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

}  // namespace kflow::linalg
