#pragma once
// Exchange of a 3D field's first two axes: dst(j, i, k) = src(i, j, k).
//
// Lines along the fastest axis are the uncoalesced ones for a GPU solver that
// gives each thread a line; transposed, they run along the second axis and
// consecutive threads read consecutive memory (split3d's X direction).  On
// GPUs a team moves a square tile (32 or 64 wide) through scratch memory so that reads and
// writes are both coalesced; on CPUs a work item transposes a plane.

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/space.hpp"

namespace kflow::linalg {

namespace detail {

template <class View>
struct TransposeTiles {
  using Real = typename View::non_const_value_type;
  // a team of 256 threads, tile x rows; 64-wide tiles below 8 bytes keep
  // as many bytes in flight
  static constexpr int tile = sizeof(Real) >= 8 ? 32 : 64, rows = 256 / tile;
  View src, dst;
  int tiles0, tiles1;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    Real* s = static_cast<Real*>(m.team_scratch(0).get_shmem(sizeof(Real) * tile * (tile + 1)));
    const int t = m.league_rank(), ti = t % tiles0, tj = (t / tiles0) % tiles1,
              k = t / (tiles0 * tiles1);
    const int x = m.team_rank() % tile, y = m.team_rank() / tile;
    const int e0 = int(src.extent(0)), e1 = int(src.extent(1));
    for (int r = y; r < tile; r += rows) {  // read along i
      const int i = ti * tile + x, j = tj * tile + r;
      if (i < e0 && j < e1) s[r * (tile + 1) + x] = src(i, j, k);
    }
    m.team_barrier();
    for (int r = y; r < tile; r += rows) {  // write along j
      const int j = tj * tile + x, i = ti * tile + r;
      if (i < e0 && j < e1) dst(j, i, k) = s[x * (tile + 1) + r];
    }
  }
};

}  // namespace detail

// View: a rank-3 LayoutLeft View (a Field3, or bytes such as an obstacle mask).
template <class ExecSpace, class View>
void transpose_xy(const ExecSpace& space, const View& src, const View& dst) {
  static_assert(View::rank == 3 && std::is_same_v<typename View::array_layout, Kokkos::LayoutLeft>,
                "linalg::transpose_xy: a rank-3 LayoutLeft View");
  using Real = typename View::non_const_value_type;
  const int e0 = int(src.extent(0)), e1 = int(src.extent(1)), e2 = int(src.extent(2));
  if (int(dst.extent(0)) != e1 || int(dst.extent(1)) != e0 || int(dst.extent(2)) != e2)
    throw std::invalid_argument(
        "linalg::transpose_xy: dst's extents (" + std::to_string(dst.extent(0)) + ", " +
        std::to_string(dst.extent(1)) + ", " + std::to_string(dst.extent(2)) +
        ") are not src's with " + "the first two exchanged");
  if constexpr (on_gpu<ExecSpace>) {
    using T = detail::TransposeTiles<View>;
    const int t0 = (e0 + T::tile - 1) / T::tile, t1 = (e1 + T::tile - 1) / T::tile;
    Kokkos::TeamPolicy<ExecSpace, Kokkos::IndexType<int>> policy(space, t0 * t1 * e2,
                                                                 T::tile * T::rows);
    policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(Real) * T::tile * (T::tile + 1)));
    Kokkos::parallel_for("kflow::linalg::transpose_xy", policy, T{src, dst, t0, t1});
  } else {
    // A work item transposes one plane k: dst's rows are written whole and
    // in order, src is read down its columns (each cache line of src used
    // by consecutive i: a column's lines stay in cache).
    Kokkos::parallel_for("kflow::linalg::transpose_xy",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, e2), [=](int k) {
                           for (int i = 0; i < e0; ++i)
                             for (int j = 0; j < e1; ++j) dst(j, i, k) = src(i, j, k);
                         });
  }
}

}  // namespace kflow::linalg
