#pragma once
// A 5-point matrix stored in DIA format, as in Baumann & Buran 2010 (after Bell &
// Garland): the N = nx * ny rows of the interior cells, row
// r = (i - 1) + (j - 1) nx for stored indices i = 1..nx, j = 1..ny, and one
// column of `data` per diagonal, lowest first: offsets -nx, -1, 0, +1, +nx
// (south, west, centre, east, north).  `data` is LayoutLeft, so a diagonal is
// contiguous and consecutive rows read consecutive entries (coalesced).
// Entries that would cross a row end or leave the grid are stored as 0.
//
// Dia5 is an operator like those of stencil.hpp (coeffs reads the row's five
// entries), so every solver takes it unchanged.  It is not the default:
// matrix-free operators move fewer bytes (no five values per row).  Non-periodic
// only: the wrap-around entries are not on these five diagonals.
//
// make_dia5(space, op) assembles it from any 5-point operator; spmv(space,
// dia, x, y) is y = A x as the thesis computes it (apply() in operator.hpp
// is the matrix-free counterpart).

#include <Kokkos_Core.hpp>

#include <climits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/stencil.hpp"

namespace kflow::linalg {

// Columns of Dia5::data.
namespace dia5 {
inline constexpr int south = 0, west = 1, centre = 2, east = 3, north = 4;
}

template <class Real, class MemSpace>
struct Dia5 : Neighbours2 {
  using real_type = Real;
  using memory_space = MemSpace;
  static constexpr int dim = 2;
  Kokkos::View<Real**, Kokkos::LayoutLeft, MemSpace> data;  // N x 5
  Grid grid;

  KOKKOS_INLINE_FUNCTION int rows() const { return nx * ny; }
  KOKKOS_INLINE_FUNCTION int row(int i, int j) const { return (i - 1) + (j - 1) * nx; }
  // Offset of diagonal d from the main one (the thesis's `offsets`).
  KOKKOS_INLINE_FUNCTION int offset(int d) const {
    return d == dia5::south    ? -nx
           : d == dia5::west   ? -1
           : d == dia5::centre ? 0
           : d == dia5::east   ? 1
                               : nx;
  }
  // Zero outside the interior (ghost cells are not part of the system).
  KOKKOS_INLINE_FUNCTION Coeffs5<Real> coeffs(int i, int j) const {
    if (i < 1 || i > nx || j < 1 || j > ny) return {Real(0), Real(0), Real(0), Real(0), Real(0)};
    const int r = row(i, j);
    return {data(r, dia5::centre), data(r, dia5::west), data(r, dia5::east), data(r, dia5::south),
            data(r, dia5::north)};
  }
};

namespace detail {
// One row of the DIA matrix from the operator; counts coefficients that
// couple to a cell outside the grid (DIA has no column for them).
template <class Op, class D>
struct Dia5Fill {
  Op op;
  D data;
  int nx, ny;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, long& outside, int& first) const {
    const auto c = op.coeffs(i, j);
    const int r = (i - 1) + (j - 1) * nx;
    data(r, dia5::south) = j > 1 ? c.s : 0;
    data(r, dia5::west) = i > 1 ? c.w : 0;
    data(r, dia5::centre) = c.p;
    data(r, dia5::east) = i < nx ? c.e : 0;
    data(r, dia5::north) = j < ny ? c.n : 0;
    const bool out = (j == 1 && c.s != 0) || (i == 1 && c.w != 0) || (i == nx && c.e != 0) ||
                     (j == ny && c.n != 0);
    if (out) {
      ++outside;
      first = r < first ? r : first;
    }
  }
};

// y = A x, one thread per row; diagonals summed lowest first (the thesis's order).
template <class D, class X, class Y>
struct Dia5Spmv {
  D a;
  X x;
  Y y;
  int nx;
  KOKKOS_INLINE_FUNCTION void operator()(int r) const {
    const int i = 1 + r % nx, j = 1 + r / nx;
    // Column r + offset is the stored cell (i +- 1, j) or (i, j +- 1); where
    // the entry is 0 (row ends, grid edges) that cell is a ghost.
    y(i, j) = a(r, dia5::south) * x(i, j - 1) + a(r, dia5::west) * x(i - 1, j) +
              a(r, dia5::centre) * x(i, j) + a(r, dia5::east) * x(i + 1, j) +
              a(r, dia5::north) * x(i, j + 1);
  }
};
}  // namespace detail

// The DIA form of a non-periodic 5-point operator `op` (readable on `space`),
// in space's memory.  Throws std::invalid_argument for a periodic operator,
// a grid without exactly one ghost layer, more than INT_MAX rows, or a
// non-zero coefficient to a cell outside the grid.
template <class ExecSpace, class Op>
Dia5<typename Op::real_type, typename ExecSpace::memory_space> make_dia5(const ExecSpace& space,
                                                                         const Op& op) {
  static_assert(Op::dim == 2, "make_dia5: a 5-point (2D) operator");
  using Real = typename Op::real_type;
  using D = Dia5<Real, typename ExecSpace::memory_space>;
  const Grid& g = op.grid;
  if (op.px || op.py)
    throw std::invalid_argument(
        "make_dia5: the operator is periodic in " + std::string(op.px ? "x" : "y") +
        "; Dia5 holds non-periodic operators only (the wrap-around entries are not on its five "
        "diagonals)");
  if (g.dim != 2 || g.ghost != 1)
    throw std::invalid_argument("make_dia5: expected a 2D grid with one ghost layer");
  const int nx = g.cells[0], ny = g.cells[1];
  if (nx != op.nx || ny != op.ny)
    throw std::invalid_argument("make_dia5: the operator's neighbours (set_neighbours) are for " +
                                std::to_string(op.nx) + "x" + std::to_string(op.ny) +
                                " cells, its grid has " + g.cells_text());
  if (nx < 1 || ny < 1 || long(nx) * long(ny) > long(INT_MAX))
    throw std::invalid_argument("make_dia5: " + g.cells_text() +
                                " cells: expected 1 to INT_MAX rows");
  D dia;
  set_neighbours(dia, g, false, false);
  dia.grid = g;
  dia.data = decltype(dia.data)(Kokkos::view_alloc(space, "kflow::linalg::Dia5::data"), nx * ny, 5);
  long outside = 0;
  int first = INT_MAX;
  Kokkos::parallel_reduce("kflow::linalg::make_dia5", interior_policy<2>(space, g),
                          detail::Dia5Fill<Op, decltype(dia.data)>{op, dia.data, nx, ny},
                          Kokkos::Sum<long>(outside), Kokkos::Min<int>(first));
  space.fence("kflow::linalg::make_dia5");
  if (outside > 0)
    throw std::invalid_argument(
        "make_dia5: " + std::to_string(outside) +
        " row(s) couple to a cell outside the grid (first: cell (" +
        std::to_string(1 + first % nx) + ", " + std::to_string(1 + first / nx) +
        ")); DIA has no column for a ghost value: fold it into b and set the coefficient to 0");
  return dia;
}

// y = A x on the interior cells: a flat kernel over the rows, one thread per
// row, data read coalesced.  Ghosts of y are left alone; x and y distinct.
template <class ExecSpace, class Real, class Mem, class X, class Y>
void spmv(const ExecSpace& space, const Dia5<Real, Mem>& dia, const X& x, const Y& y) {
  using D = Kokkos::View<const Real**, Kokkos::LayoutLeft, Mem>;
  Kokkos::parallel_for("kflow::linalg::spmv_dia5", RangePolicy<ExecSpace>(space, 0, dia.rows()),
                       detail::Dia5Spmv<D, X, Y>{dia.data, x, y, dia.nx});
}

}  // namespace kflow::linalg
