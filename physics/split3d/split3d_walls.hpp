#pragma once
// physics/split3d: the interpolated walls' device data (numerics.body_walls =
// "interpolated", split3d_kernels.hpp's Cut): from the set-up's link
// fractions (Setup::cut_lo, cut_hi, per axis in the model's frame), each
// direction's sweep mask in its frame (X's with x and y exchanged) with
// cut_node on the fluid nodes a wall cuts along that direction, the link
// fractions in the same frame, and in the model's frame for the
// projection's right-hand side.

#include <Kokkos_Core.hpp>

#include <cstddef>

#include "split3d.hpp"
#include "split3d_kernels.hpp"

namespace kflow::split3d {

template <class Mem>
struct CutWalls {
  Mask<Mem> sweep_mask[3];  // empty: staircase walls
  Cut<Mem> sweep[3], model[3];
};

// e: the nodes along each axis, boundary nodes included (Params::e).
template <class ExecSpace>
CutWalls<typename ExecSpace::memory_space> cut_walls(const ExecSpace& space, const Setup& s,
                                                     const int (&e)[3]) {
  using Mem = typename ExecSpace::memory_space;
  CutWalls<Mem> w;
  const std::size_t n = s.solid.size();
  auto floats = [&](const char* label) {
    return Kokkos::View<float*, Mem>(label, n);
  };
  for (int d = 0; d < 3; ++d) {
    const bool xy = d == 0;  // X's frame: x and y exchanged
    const int f0 = xy ? e[1] : e[0], f1 = xy ? e[0] : e[1];
    w.sweep_mask[d] =
        Mask<Mem>(Kokkos::view_alloc(space, "kflow::split3d::sweep_mask"), f0, f1, e[2]);
    w.sweep[d].lo = floats("kflow::split3d::cut_lo");
    w.sweep[d].hi = floats("kflow::split3d::cut_hi");
    auto hm = Kokkos::create_mirror_view(Kokkos::HostSpace(), w.sweep_mask[d]);
    auto hl = Kokkos::create_mirror_view(Kokkos::HostSpace(), w.sweep[d].lo);
    auto hh = Kokkos::create_mirror_view(Kokkos::HostSpace(), w.sweep[d].hi);
    for (int k = 0; k < e[2]; ++k)
      for (int j = 0; j < e[1]; ++j)
        for (int i = 0; i < e[0]; ++i) {
          const std::size_t m = std::size_t(i) + std::size_t(e[0]) * (j + std::size_t(e[1]) * k);
          const std::size_t t =
              xy ? std::size_t(j) + std::size_t(f0) * (i + std::size_t(f1) * k) : m;
          const float lo = s.cut_lo[d][m], hi = s.cut_hi[d][m];
          hm.data()[t] = (unsigned char)(s.solid[m] | (lo < 1 || hi < 1 ? cut_node : 0));
          hl(t) = lo, hh(t) = hi;
        }
    Kokkos::deep_copy(space, w.sweep_mask[d], hm);
    Kokkos::deep_copy(space, w.sweep[d].lo, hl);
    Kokkos::deep_copy(space, w.sweep[d].hi, hh);
    if (!xy) {
      w.model[d] = w.sweep[d];
    } else {
      w.model[d].lo = floats("kflow::split3d::cut_lo_x");
      w.model[d].hi = floats("kflow::split3d::cut_hi_x");
      auto ml = Kokkos::create_mirror_view(Kokkos::HostSpace(), w.model[d].lo);
      auto mh = Kokkos::create_mirror_view(Kokkos::HostSpace(), w.model[d].hi);
      for (std::size_t m = 0; m < n; ++m) ml(m) = s.cut_lo[d][m], mh(m) = s.cut_hi[d][m];
      Kokkos::deep_copy(space, w.model[d].lo, ml);
      Kokkos::deep_copy(space, w.model[d].hi, mh);
    }
  }
  return w;
}

}  // namespace kflow::split3d
