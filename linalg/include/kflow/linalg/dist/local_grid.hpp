#pragma once
// One rank's part of a decomposed global grid: a linalg::Grid for its block
// (its owned cells plus the ghost layers), where that block starts in the
// global grid, and the index ranges (in the block's stored, ghost-including
// indices) of its owned cells, of the owned layers it sends across each face
// and of the ghost layers it receives there.  Kernels that need the global
// spacing take it from the global grid: a block's length / cells may differ
// from it in the last bit.

#include <Kokkos_Macros.hpp>

#include <array>

#include "kflow/linalg/dist/decomposition.hpp"
#include "kflow/linalg/grid.hpp"

namespace kflow::linalg::dist {

// A box of stored indices, [begin, end) per axis (0..1 beyond dim).
struct IndexRange {
  std::array<int, 3> begin{0, 0, 0}, end{1, 1, 1};
  long size() const {
    return long(end[0] - begin[0]) * long(end[1] - begin[1]) * long(end[2] - begin[2]);
  }
};

struct LocalGrid {
  Grid global;
  Decomposition decomposition;
  Grid local;                   // this block, with global.ghost layers
  std::array<int, 3> offset{};  // global index of the block's first owned cell

  IndexRange owned() const {
    IndexRange r;
    for (int d = 0; d < local.dim; ++d)
      r.begin[d] = local.ghost, r.end[d] = local.ghost + local.cells[d];
    return r;
  }
  // The owned layers next to side `side` of axis d (what the neighbour there needs).
  IndexRange owned_face(int d, int side) const {
    IndexRange r = owned();
    const int g = local.ghost, n = local.cells[d];
    r.begin[d] = side ? g + n - g : g;
    r.end[d] = r.begin[d] + g;
    return r;
  }
  // The ghost layers beyond side `side` of axis d (what that neighbour sends).
  IndexRange ghost_face(int d, int side) const {
    IndexRange r = owned();
    const int g = local.ghost, n = local.cells[d];
    r.begin[d] = side ? g + n : 0;
    r.end[d] = r.begin[d] + g;
    return r;
  }
};

// C components per cell of a block (device-callable): v(cell, component)
// with cell the stored index i + ni (j + nj k), ghost layers included; what
// the halo exchange packs (lattice Boltzmann populations, moments).
template <class View>
struct ComponentsOnGrid {
  View v;
  int ni = 1, nj = 1;
  KOKKOS_INLINE_FUNCTION typename View::reference_type operator()(int i, int j, int k,
                                                                  int c) const {
    return v(i + ni * (j + nj * k), c);
  }
};
// The stored extents of `grid`'s block (ghosts included).
template <class View>
ComponentsOnGrid<View> components_on(const LocalGrid& grid, const View& v) {
  return {v, grid.local.extent(0), grid.local.dim > 1 ? grid.local.extent(1) : 1};
}

// The block of rank decomposition.rank of `global` (whose dimension and
// cells the decomposition takes: a default Decomposition is one block).
inline LocalGrid make_local_grid(const Grid& global, const Decomposition& decomposition) {
  LocalGrid l;
  l.global = global;
  l.decomposition = decomposition;
  auto& dec = l.decomposition;
  dec.dim = global.dim;
  dec.global_cells = global.cells;
  l.local = global;
  for (int d = 0; d < global.dim; ++d) {
    if (!dec.split(d)) continue;  // the whole axis: the global grid's own numbers
    l.offset[d] = dec.begin(d);
    l.local.cells[d] = dec.cells(d);
    l.local.origin[d] = global.origin[d] + l.offset[d] * global.spacing(d);
    l.local.length[d] = l.local.cells[d] * global.spacing(d);
  }
  return l;
}

}  // namespace kflow::linalg::dist
