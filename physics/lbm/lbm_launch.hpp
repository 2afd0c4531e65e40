#pragma once
// The launches of the lbm step (StepKernel, PairKernel): GPUs a thread per
// cell (or per pair of cells in 16 bits), CPUs a task per line along x.

#include <Kokkos_Core.hpp>

#include <string>

#include "kflow/linalg/space.hpp"
#include "lbm_pairs.hpp"
#include "lbm_step.hpp"
#include "lbm_stepper.hpp"

namespace kflow::lbm::kernels {

// A step kernel over the lattice by cells, a thread per cell (the GPUs'
// launch; on host spaces for its test only).  Interior and edge cells in two
// launches: a warp holding an edge cell ran both paths.
template <class ExecSpace, class Kernel>
void launch_cells(const ExecSpace& space, const char* label, const Kernel& kernel) {
  const int nx = kernel.g.n[0], ny = kernel.g.n[1], nz = kernel.g.n[2];
  if (nx >= 3 && ny >= 3 && (Kernel::dim == 2 || nz >= 3)) {
    const int interior = nx * (ny - 2) * (Kernel::dim == 3 ? nz - 2 : 1);  // whole lines
    bool pairs = false;  // 16-bit storage: the interior two cells a thread
    if constexpr (sizeof(typename Kernel::view::stored_type) == 2) {
      // (at most 80 registers: 6 blocks of 128 a multiprocessor)
      auto try_pairs = [&](auto pair) {
        if (pairs || !decltype(pair)::applies(kernel)) return;
        Kokkos::parallel_for(
            label,
            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, Kokkos::LaunchBounds<128, 6>>(
                space, 0, pair.count()),
            pair);
        pairs = true;
      };
      try_pairs(PairKernel<Kernel, false>{kernel});
      try_pairs(PairKernel<Kernel, true>{kernel});
      if (pairs && kernel.g.solid && kernel.g.mixed_count > 0)
        Kokkos::parallel_for(
            std::string(label) + "_mixed",
            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, kernel.g.mixed_count),
            MixedCells<Kernel>{kernel});
    }
    if (!pairs)
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, Interior>(space, 0, interior),
          kernel);
    Kokkos::parallel_for(std::string(label) + "_edges",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, Edges>(
                             space, 0, kernel.edge_cells()),
                         kernel);
  } else
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, nx * ny * nz),
        kernel);
}

// A step kernel over the lattice: GPUs by cells (launch_cells), CPUs a task
// per line along x (StepKernel::line); by_cells: the GPUs' launch on a host
// space (its test: the CPU build compiles it nowhere else).
template <bool by_cells, class ExecSpace, class Kernel>
void launch_step(const ExecSpace& space, const char* label, const Kernel& kernel) {
  if constexpr (linalg::on_gpu<ExecSpace> || by_cells) {
    launch_cells(space, label, kernel);
  } else {
    const int ny = kernel.g.n[1], nz = kernel.g.n[2];
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, ny * nz),
        KOKKOS_LAMBDA(int l) { kernel.line(l % ny, l / ny); });
  }
}

// One lattice step of every cell in `mode` (lbm_step.hpp).
template <class L, bool by_cells = false, class Real, class ExecSpace, class View>
void step(const ExecSpace& space, Mode mode, const View& src, const View& dst,
          const Geometry<Real>& g, const Offsets<L::Q>& off) {
  auto make = [&](auto kernel) {
    kernel.src = src;
    kernel.dst = dst;
    kernel.g = g;
    kernel.offs = off;
    return kernel;
  };
  if (mode == Mode::two_grid)
    launch_step<by_cells>(space, "kflow::lbm::stream_collide_two_grid",
                          make(StepKernel<L, Real, View, Mode::two_grid>{}));
  else if (mode == Mode::aa_stream)
    launch_step<by_cells>(space, "kflow::lbm::stream_collide_aa_stream",
                          make(StepKernel<L, Real, View, Mode::aa_stream>{}));
  else
    launch_step<by_cells>(space, "kflow::lbm::stream_collide_aa_local",
                          make(StepKernel<L, Real, View, Mode::aa_local>{}));
}

// The Stepper's definitions (lbm_stepper.hpp), which the units
// lbm_step_*.cpp instantiate.
template <class ExecSpace, class P, int Q>
void Stepper<ExecSpace, P, Q>::step(const ExecSpace& space, Mode mode, const Pops& src,
                                    const Pops& dst, const Geometry<Real>& g,
                                    const Offsets<Q>& off) {
  kernels::step<L>(space, mode, src, dst, g, off);
}
template <class ExecSpace, class P, int Q>
void Stepper<ExecSpace, P, Q>::mixed_pairs(const ExecSpace& space, Geometry<Real>& g,
                                           Kokkos::View<int*, Mem>& list) {
  lbm::mixed_pairs(space, g, list);
}

}  // namespace kflow::lbm::kernels
