#pragma once
// The halo exchanges of physics/lbm on several ranks (docs/distributed.md):
// each rank holds a block with one ghost layer; the populations that cross
// a block face are its halo (linalg::dist::Halo, edges and corners included
// for the diagonal directions).  Two-grid: before each step the ghosts
// receive the neighbours' populations pointing into the block.  In place:
// before a stream step the ghosts receive the neighbours' slots that the
// step reads (the directions pointing out of the block), and after it the
// same slots, which the step wrote for the neighbours' cells, go back to
// them.  The velocities (the vorticity's differences) and the bodies' solid
// flags have halos of their own.  A build without MPI runs one block, and
// has no exchange to make.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <vector>

#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/model/parallel.hpp"
#ifdef KFLOW_HAVE_MPI
#include "kflow/linalg/dist/halo.hpp"
#endif

namespace kflow::lbm {

#ifdef KFLOW_HAVE_MPI
template <class ExecSpace, class T, int D>
using Halo = linalg::dist::Halo<ExecSpace, T, D>;
// The directions whose populations cross into the ghost layer beyond side
// `side` of axis d: pointing into the block (two-grid), or out of it (in
// place: the slots a stream step reads there and writes there).
template <class L>
std::vector<int> crossing(int d, int side, bool inward) {
  std::vector<int> r;
  const int dir = (side == 0) == inward ? 1 : -1;
  for (int i = 0; i < L::Q; ++i)
    if (L::c(i, d) == dir) r.push_back(i);
  return r;
}
template <class ExecSpace, class T, int D>
std::unique_ptr<Halo<ExecSpace, T, D>> make_halo(const ExecSpace& space,
                                                 const linalg::dist::LocalGrid& g,
                                                 const linalg::dist::HaloPattern& p) {
  return std::make_unique<Halo<ExecSpace, T, D>>(
      space, g, parallel::transport(linalg::dist::nccl_space<ExecSpace>), p);
}

// The populations' halo of lattice L: its Q components, the directions
// crossing each face (inward: two-grid; outward: in place).
template <class ExecSpace, class T, class L>
std::unique_ptr<Halo<ExecSpace, T, L::D>> population_halo(const ExecSpace& space,
                                                          const linalg::dist::LocalGrid& g,
                                                          bool inward) {
  linalg::dist::HaloPattern p;
  p.components = L::Q;
  p.across = [inward](int d, int side) {
    return crossing<L>(d, side, inward);
  };
  p.edges_and_corners = true;  // the diagonal directions
  return make_halo<ExecSpace, T, L::D>(space, g, p);
}

// The velocities' halo (components 1 to 3 of the moments, which are
// density and velocity), for the vorticity's central differences.
template <class ExecSpace, int D>
std::unique_ptr<Halo<ExecSpace, double, D>> moments_halo(const ExecSpace& space,
                                                         const linalg::dist::LocalGrid& g) {
  linalg::dist::HaloPattern m;
  m.components = 4;
  m.across = [](int, int) {
    return std::vector<int>{1, 2, 3};
  };
  return make_halo<ExecSpace, double, D>(space, g, m);
}

// The bodies' solid flags (a byte per stored cell) into the ghosts: beyond a
// periodic side, the wrapped cells' flags.
template <class ExecSpace, int D>
void exchange_flags(const ExecSpace& space, const linalg::dist::LocalGrid& g, unsigned char* solid,
                    std::size_t stored) {
  linalg::dist::HaloPattern p;
  p.edges_and_corners = true;
  Kokkos::View<unsigned char**, Kokkos::LayoutLeft, typename ExecSpace::memory_space,
               Kokkos::MemoryUnmanaged>
      flags(solid, stored, 1);
  make_halo<ExecSpace, unsigned char, D>(space, g, p)
      ->exchange(linalg::dist::components_on(g, flags));
}
#else
template <class ExecSpace, class T, int D>
struct Halo {
  template <class A>
  void exchange(const A&) {}
  template <class A, class K>
  void reverse(const A&, const K&) {}
  double seconds() const { return 0; }
};
#endif

}  // namespace kflow::lbm
