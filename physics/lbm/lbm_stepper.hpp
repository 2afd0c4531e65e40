#pragma once
// The lattice step of a Model<ExecSpace, P, Q>, declared only: its kernels
// (lbm_launch.hpp with lbm_step.hpp, lbm_pairs.hpp and lbm_collide.hpp) are
// compiled in translation units of their own, lbm_step_<backend>_
// <precision>_<Q>.cpp (CMakeLists.txt), so that an edit of a kernel header
// recompiles the kernels and not the rest of the model (docs/getting-started.md).

#include <Kokkos_Core.hpp>

#include "lbm_geometry.hpp"
#include "lbm_modes.hpp"
#include "lbm_storage.hpp"

namespace kflow::lbm::kernels {

template <class ExecSpace, class P, int Q>
struct Stepper {
  using L = Lattice<Q>;
  using Real = typename Precision<P>::real;
  using Mem = typename ExecSpace::memory_space;
  using Pops = Populations<L, Real, typename Precision<P>::stored, Mem>;
  // One lattice step of every cell in `mode` (kernels::step).
  static void step(const ExecSpace& space, Mode mode, const Pops& src, const Pops& dst,
                   const Geometry<Real>& g, const Offsets<Q>& off);
  // GPUs, 16-bit storage with bodies: the pairs of cells with one solid
  // cell, into `list` (kernels::mixed_pairs).
  static void mixed_pairs(const ExecSpace& space, Geometry<Real>& g, Kokkos::View<int*, Mem>& list);
};

}  // namespace kflow::lbm::kernels
