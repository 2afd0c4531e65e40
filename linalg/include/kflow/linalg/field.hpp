#pragma once
// Grid fields and the iteration policies over them.
//
// Fields are Kokkos::View<Real**, LayoutLeft> (2D) or <Real***, LayoutLeft>
// (3D), indexed (i, j[, k]) with i fastest in memory and the ghost layers
// included in the extents.  Policies iterate with Iterate::Left in both
// directions so that consecutive GPU threads touch consecutive i.

#include <Kokkos_Core.hpp>

#include <string>

#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/space.hpp"

namespace kflow::linalg {

template <class Real, int Dim>
struct FieldData;
template <class Real>
struct FieldData<Real, 2> {
  using type = Real**;
};
template <class Real>
struct FieldData<Real, 3> {
  using type = Real***;
};

template <class Real, int Dim, class MemSpace>
using Field = Kokkos::View<typename FieldData<Real, Dim>::type, Kokkos::LayoutLeft, MemSpace>;
template <class Real, class MemSpace>
using Field2 = Field<Real, 2, MemSpace>;
template <class Real, class MemSpace>
using Field3 = Field<Real, 3, MemSpace>;

template <class ExecSpace>
using RangePolicy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, LightWeight>;

template <class ExecSpace, int Dim>
using GridPolicy =
    Kokkos::MDRangePolicy<ExecSpace,
                          Kokkos::Rank<Dim, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                          Kokkos::IndexType<int>, LightWeight>;

// A field on `grid` (ghost layers included), zero-initialised.
template <class Real, int Dim, class ExecSpace>
Field<Real, Dim, typename ExecSpace::memory_space> make_field(const ExecSpace& space,
                                                              const std::string& label,
                                                              const Grid& grid) {
  using F = Field<Real, Dim, typename ExecSpace::memory_space>;
  if constexpr (Dim == 2)
    return F(Kokkos::view_alloc(space, label), grid.extent(0), grid.extent(1));
  else
    return F(Kokkos::view_alloc(space, label), grid.extent(0), grid.extent(1), grid.extent(2));
}

// Tile of the MDRange on GPUs: long in i (coalesced), short in j and k
// ({64, 4}, {32, 2, 2}: the best measured on an H200).  CPU
// backends keep Kokkos' default tiling.

// Policy over the interior cells of `grid`, in stored (ghost-including) indices.
template <int Dim, class ExecSpace>
GridPolicy<ExecSpace, Dim> interior_policy(const ExecSpace& space, const Grid& grid) {
  const int g = grid.ghost;
  if constexpr (Dim == 2) {
    if constexpr (on_gpu<ExecSpace>)
      return GridPolicy<ExecSpace, 2>(space, {g, g}, {g + grid.cells[0], g + grid.cells[1]},
                                      {64, 4});
    else
      return GridPolicy<ExecSpace, 2>(space, {g, g}, {g + grid.cells[0], g + grid.cells[1]});
  } else {
    if constexpr (on_gpu<ExecSpace>)
      return GridPolicy<ExecSpace, 3>(
          space, {g, g, g}, {g + grid.cells[0], g + grid.cells[1], g + grid.cells[2]}, {32, 2, 2});
    else
      return GridPolicy<ExecSpace, 3>(space, {g, g, g},
                                      {g + grid.cells[0], g + grid.cells[1], g + grid.cells[2]});
  }
}

// parallel_for of f(i, j, k) over the box lo <= (i, j, k) < hi: an MDRange
// on GPUs (the tile of interior_policy); on CPUs one task per line (j, k)
// looping over i, which vectorises and costs several times less per cell
// than Kokkos' host MDRange (measured on multigrid's transfers, 3D
// diffusion and split3d's assembly).
template <class ExecSpace, class F>
void box_for(const ExecSpace& space, const char* label, const int (&lo)[3], const int (&hi)[3],
             const F& f) {
  if constexpr (on_gpu<ExecSpace>) {
    Kokkos::parallel_for(
        label,
        GridPolicy<ExecSpace, 3>(space, {lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, {32, 2, 2}),
        f);
  } else {
    const int i0 = lo[0], i1 = hi[0], j0 = lo[1], k0 = lo[2];
    const int ny = hi[1] > lo[1] ? hi[1] - lo[1] : 0, nz = hi[2] > lo[2] ? hi[2] - lo[2] : 0;
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace>(space, 0, ny * nz), KOKKOS_LAMBDA(int line) {
          const int j = j0 + line % ny, k = k0 + line / ny;
          for (int i = i0; i < i1; ++i) f(i, j, k);
        });
  }
}

// The same over the interior of `grid` (stored indices), 2D or 3D.
template <int Dim, class ExecSpace, class F>
void interior_for(const ExecSpace& space, const char* label, const Grid& grid, const F& f) {
  const int g = grid.ghost, nx = grid.cells[0], ny = grid.cells[1];
  if constexpr (on_gpu<ExecSpace>) {
    Kokkos::parallel_for(label, interior_policy<Dim>(space, grid), f);
  } else if constexpr (Dim == 2) {
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace>(space, g, g + ny), KOKKOS_LAMBDA(int j) {
          for (int i = g; i < g + nx; ++i) f(i, j);
        });
  } else {
    const int lo[3] = {g, g, g}, hi[3] = {g + nx, g + ny, g + grid.cells[2]};
    box_for(space, label, lo, hi, f);
  }
}

// Policy over every stored cell (ghosts included).
template <int Dim, class ExecSpace>
GridPolicy<ExecSpace, Dim> full_policy(const ExecSpace& space, const Grid& grid) {
  if constexpr (Dim == 2)
    return GridPolicy<ExecSpace, 2>(space, {0, 0}, {grid.extent(0), grid.extent(1)});
  else
    return GridPolicy<ExecSpace, 3>(space, {0, 0, 0},
                                    {grid.extent(0), grid.extent(1), grid.extent(2)});
}

}  // namespace kflow::linalg
