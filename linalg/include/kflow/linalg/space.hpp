#pragma once
// Execution-space traits shared by every linalg algorithm: one definition of
// "runs on a GPU" (the space cannot reach host memory), used to choose GPU
// tilings and kernels at compile time.

#include <Kokkos_Core.hpp>

namespace kflow::linalg {

template <class ExecSpace>
inline constexpr bool on_gpu =
    !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

// Kernels are launched "light weight" (CUDA: the functor travels as a kernel
// argument).  Kokkos' default puts functors of 512 bytes or more (policy
// included, so most MDRange kernels) into constant memory, and such a launch
// waits for the previous one to finish: the host could not queue kernels
// ahead, nor run two on two instances side by side.
using LightWeight = Kokkos::Experimental::WorkItemProperty::HintLightWeight_t;

// A second instance for work that may run beside `space`'s: on GPUs a stream
// of its own (its kernels overlap those of `space`), on CPUs `space` itself
// (partitioning the threads would only split them).
template <class ExecSpace>
ExecSpace side_instance(const ExecSpace& space) {
  if constexpr (on_gpu<ExecSpace>)
    return Kokkos::Experimental::partition_space(space, 1)[0];
  else
    return space;
}

}  // namespace kflow::linalg
