#pragma once
// The link directions of a model's stencil: integer vectors c (the link from
// node x goes to the node x + c).  Any list will do, in the model's own order
// (boundary links name a direction by its index in the list); lbm passes its
// velocity sets (D2Q9, D3Q19, D3Q27: physics/lbm/lbm_lattice.hpp).  The zero
// vector (a rest particle) has no link and is skipped.  Small and passed to
// kernels by value.

#include <Kokkos_Core.hpp>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace kflow::geometry {

struct Directions {
  static constexpr int max_count = 64;
  int count = 0;
  int c[max_count][3] = {};
  int reach = 0;  // the largest |component|: how far a link reaches

  Directions() = default;
  explicit Directions(const std::vector<std::array<int, 3>>& list) {
    if (list.size() > std::size_t(max_count))
      throw std::invalid_argument("geometry: more than " + std::to_string(max_count) +
                                  " link directions");
    count = int(list.size());
    for (int q = 0; q < count; ++q)
      for (int d = 0; d < 3; ++d) {
        c[q][d] = list[std::size_t(q)][std::size_t(d)];
        reach = Kokkos::max(reach, Kokkos::abs(c[q][d]));
      }
  }
  KOKKOS_INLINE_FUNCTION bool zero(int q) const { return !c[q][0] && !c[q][1] && !c[q][2]; }
};

}  // namespace kflow::geometry
