#pragma once
// The general sparse path: any of linalg's 5-point (2D) and 7-point (3D)
// operators assembled as a Kokkos Kernels CRS matrix (KokkosSparse::CrsMatrix),
// for KokkosSparse::spmv and whatever else Kokkos Kernels does with a general
// sparse matrix.  Needs Kokkos Kernels (CMake target kflow_kokkoskernels,
// KFLOW_HAVE_KOKKOSKERNELS); the rest of linalg does not.
//
// Rows and columns are the interior cells, row r = (i - g) + nx (j - g)
// [+ nx ny (k - g)] for stored indices i, j[, k] and g ghost layers (x fastest,
// as in dia.hpp).  Each row holds the operator's non-zero coefficients of that
// cell, columns ascending, at the neighbour the matrix-free operator reads
// (apply_at: wrapped in periodic directions).  A neighbour reached twice
// (periodic sides of 1 or 2 cells) is one entry with the coefficients summed.  Rows of cells
// outside the system (c.p == 0) hold what the operator has there: masks and
// obstacles give empty rows.  So spmv(A, gather(x)) is gather(apply(op, x))
// up to the order of the sums (the test checks it exactly with integer data).
//
// A coefficient that couples to a ghost cell has no column: make_crs throws
// std::invalid_argument (as make_dia5 does); Dirichlet values belong in b.
//
// gather_rows / scatter_rows move a field's interior to / from the 1-D
// vector of the rows; crs_diagonal gives each row's membership of the
// system and inverse diagonal; crs_with_unit_rows fills the empty rows.

#include <KokkosSparse_CrsMatrix.hpp>
#include <Kokkos_Core.hpp>

#include <climits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/linalg/stencil7.hpp"

namespace kflow::linalg {

// CRS matrix on ExecSpace's memory: int column indices and row offsets
// (make_crs checks that the entries fit).
template <class Real, class ExecSpace>
using CrsMatrix =
    KokkosSparse::CrsMatrix<Real, int, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>,
                            void, int>;

namespace detail {

// One row of the assembled matrix: at most 7 entries, columns ascending and
// distinct, zero coefficients dropped.
template <class Real>
struct CrsRow {
  int n = 0;
  int col[7];
  Real val[7];
  bool outside = false;  // a non-zero coefficient to a ghost cell

  KOKKOS_INLINE_FUNCTION void add(int c, Real v) {
    if (v == Real(0)) return;
    int p = 0;
    while (p < n && col[p] < c) ++p;
    if (p < n && col[p] == c) {
      val[p] += v;
      return;
    }
    for (int q = n; q > p; --q) {
      col[q] = col[q - 1];
      val[q] = val[q - 1];
    }
    col[p] = c;
    val[p] = v;
    ++n;
  }
};

// The row of every interior cell of `op`, from its row index.
template <class Op>
struct CrsRows {
  using Real = typename Op::real_type;
  Op op;
  int g, nx, ny, nz;

  // Column of stored cell (i, j, k), or -1 outside the interior.
  KOKKOS_INLINE_FUNCTION int column(int i, int j, int k) const {
    if (i < g || i >= g + nx || j < g || j >= g + ny || k < g || k >= g + nz) return -1;
    return (i - g) + nx * ((j - g) + ny * (k - g));
  }
  KOKKOS_INLINE_FUNCTION void add(CrsRow<Real>& row, int i, int j, int k, Real v) const {
    const int c = column(i, j, k);
    if (c >= 0)
      row.add(c, v);
    else if (v != Real(0))
      row.outside = true;
  }
  KOKKOS_INLINE_FUNCTION CrsRow<Real> operator()(int r) const {
    const int i = g + r % nx, j = g + (r / nx) % ny;
    CrsRow<Real> row;
    if constexpr (Op::dim == 2) {
      const auto c = op.coeffs(i, j);
      add(row, i, j, g, c.p);
      add(row, op.west(i), j, g, c.w);
      add(row, op.east(i), j, g, c.e);
      add(row, i, op.south(j), g, c.s);
      add(row, i, op.north(j), g, c.n);
    } else {
      const int k = g + r / (nx * ny);
      const auto c = op.coeffs(i, j, k);
      add(row, i, j, k, c.p);
      add(row, op.west(i), j, k, c.w);
      add(row, op.east(i), j, k, c.e);
      add(row, i, op.south(j), k, c.s);
      add(row, i, op.north(j), k, c.n);
      add(row, i, j, op.bottom(k), c.b);
      add(row, i, j, op.top(k), c.t);
    }
    return row;
  }
};

}  // namespace detail

// Number of rows (interior cells) of an operator on `g`.
inline long crs_rows(const Grid& g) {
  long n = 1;
  for (int d = 0; d < g.dim; ++d) n *= g.cells[d];
  return n;
}

// The CRS form of the 5- or 7-point operator `op` (readable on `space`), in
// space's memory.  Throws std::invalid_argument for a non-zero coefficient
// to a ghost cell, or more than INT_MAX / 7 rows.
template <class ExecSpace, class Op>
CrsMatrix<typename Op::real_type, ExecSpace> make_crs(const ExecSpace& space, const Op& op) {
  static_assert(Op::dim == 2 || Op::dim == 3, "make_crs: a 5-point (2D) or 7-point (3D) operator");
  using Real = typename Op::real_type;
  using M = CrsMatrix<Real, ExecSpace>;
  const Grid& g = op.grid;
  if (g.dim != Op::dim || g.ghost < 1)
    throw std::invalid_argument("make_crs: expected a " + std::to_string(Op::dim) +
                                "D grid with ghost layers, got " + g.cells_text());
  if constexpr (Op::dim == 2) {
    if (g.cells[0] != op.nx || g.cells[1] != op.ny)
      throw std::invalid_argument("make_crs: the operator's neighbours (set_neighbours) are for " +
                                  std::to_string(op.nx) + "x" + std::to_string(op.ny) +
                                  " cells, its grid has " + g.cells_text());
  } else {
    if ((op.px || op.py || op.pz) &&
        (g.cells[0] != op.nx || g.cells[1] != op.ny || g.cells[2] != op.nz))
      throw std::invalid_argument("make_crs: the operator's neighbours (set_neighbours) are for " +
                                  std::to_string(op.nx) + "x" + std::to_string(op.ny) + "x" +
                                  std::to_string(op.nz) + " cells, its grid has " + g.cells_text());
  }
  const long nl = crs_rows(g);
  if (nl < 1 || nl > long(INT_MAX / 7))
    throw std::invalid_argument("make_crs: " + g.cells_text() +
                                " cells: expected 1 to INT_MAX / 7 rows (int offsets)");
  const int n = int(nl);
  const detail::CrsRows<Op> rows{op, g.ghost, g.cells[0], g.cells[1],
                                 Op::dim == 3 ? g.cells[2] : 1};

  // Couplings to ghost cells: the first such row, or n.
  int first = n;
  Kokkos::parallel_reduce(
      "kflow::linalg::make_crs::check", RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int r, int& f) {
        if (rows(r).outside && r < f) f = r;
      },
      Kokkos::Min<int>(first));
  space.fence("kflow::linalg::make_crs::check");
  if (first < n) {
    const int nx = g.cells[0], ny = g.cells[1];
    std::string cell = std::to_string(first % nx + 1) + ", " + std::to_string(first / nx % ny + 1);
    if (Op::dim == 3) cell += ", " + std::to_string(first / (nx * ny) + 1);
    throw std::invalid_argument(
        "make_crs: the row of cell (" + cell +
        ") (1-based interior index) couples to a ghost cell; CRS has no column for a ghost "
        "value: fold it into b and set the coefficient to 0");
  }

  // Row offsets (a scan of the row lengths), then the entries.
  typename M::row_map_type::non_const_type row_map(
      Kokkos::view_alloc(space, "kflow::linalg::CrsMatrix::row_map"), n + 1);
  int nnz = 0;
  Kokkos::parallel_scan(
      "kflow::linalg::make_crs::row_map", RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int r, int& offset, bool final) {
        const int len = rows(r).n;
        if (final) {
          row_map(r) = offset;
          if (r == n - 1) row_map(n) = offset + len;
        }
        offset += len;
      },
      nnz);
  typename M::index_type::non_const_type cols(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::linalg::CrsMatrix::entries"),
      nnz);
  typename M::values_type::non_const_type vals(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::linalg::CrsMatrix::values"),
      nnz);
  Kokkos::parallel_for(
      "kflow::linalg::make_crs::entries", RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int r) {
        const auto row = rows(r);
        const int o = row_map(r);
        for (int q = 0; q < row.n; ++q) {
          cols(o + q) = row.col[q];
          vals(o + q) = row.val[q];
        }
      });
  space.fence("kflow::linalg::make_crs");
  return M("kflow::linalg::CrsMatrix", n, n, nnz, vals, row_map, cols);
}

// A copy of A whose empty rows (cells outside the system) hold a unit
// diagonal: what an incomplete factorization or a Gauss-Seidel sweep needs
// to stay defined there.  Built on the host (set-up only).
template <class Crs>
Crs crs_with_unit_rows(const Crs& A) {
  using Real = typename Crs::value_type;
  const int n = A.numRows();
  auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  auto ce = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  auto va = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  int empty = 0;
  for (int r = 0; r < n; ++r) empty += rm(r + 1) == rm(r);
  const int nnz = int(rm(n)) + empty;
  typename Crs::row_map_type::non_const_type row_map("kflow::linalg::crs_unit_rows::row_map",
                                                     n + 1);
  typename Crs::index_type::non_const_type cols("kflow::linalg::crs_unit_rows::entries", nnz);
  typename Crs::values_type::non_const_type vals("kflow::linalg::crs_unit_rows::values", nnz);
  auto hrm = Kokkos::create_mirror_view(row_map);
  auto hce = Kokkos::create_mirror_view(cols);
  auto hva = Kokkos::create_mirror_view(vals);
  int at = 0;
  for (int r = 0; r < n; ++r) {
    hrm(r) = at;
    if (rm(r + 1) == rm(r)) {
      hce(at) = r, hva(at) = Real(1), ++at;
    } else {
      for (int k = rm(r); k < rm(r + 1); ++k) hce(at) = ce(k), hva(at) = va(k), ++at;
    }
  }
  hrm(n) = at;
  Kokkos::deep_copy(row_map, hrm);
  Kokkos::deep_copy(cols, hce);
  Kokkos::deep_copy(vals, hva);
  return Crs("kflow::linalg::CrsMatrix (unit rows)", n, n, nnz, vals, row_map, cols);
}

namespace detail {
// Field interior <-> row vector, one row per thread.
template <class F, class V, bool to_vector>
struct CrsCopy {
  F f;
  V v;
  int g, nx, ny;
  KOKKOS_INLINE_FUNCTION void operator()(int r) const {
    const int i = g + r % nx, j = g + (r / nx) % ny;
    if constexpr (F::rank == 2) {
      if constexpr (to_vector)
        v(r) = f(i, j);
      else
        f(i, j) = v(r);
    } else {
      const int k = g + r / (nx * ny);
      if constexpr (to_vector)
        v(r) = f(i, j, k);
      else
        f(i, j, k) = v(r);
    }
  }
};
}  // namespace detail

// v(r) = f at the interior cell of row r (v: crs_rows(g) entries).
template <class ExecSpace, class F, class V>
void gather_rows(const ExecSpace& space, const Grid& g, const F& f, const V& v) {
  Kokkos::parallel_for("kflow::linalg::gather_rows",
                       RangePolicy<ExecSpace>(space, 0, int(crs_rows(g))),
                       detail::CrsCopy<F, V, true>{f, v, g.ghost, g.cells[0], g.cells[1]});
}

// f at the interior cell of row r = v(r); ghosts of f are left alone.
template <class ExecSpace, class V, class F>
void scatter_rows(const ExecSpace& space, const Grid& g, const V& v, const F& f) {
  Kokkos::parallel_for("kflow::linalg::scatter_rows",
                       RangePolicy<ExecSpace>(space, 0, int(crs_rows(g))),
                       detail::CrsCopy<F, V, false>{f, v, g.ghost, g.cells[0], g.cells[1]});
}

namespace detail {
// Per row: 1 in the system (c.p != 0) or 0, and 1 / (scale c.p) (0 outside).
template <class Op, class V>
struct CrsDiagonal {
  Op op;
  V in, dinv;
  typename V::value_type scale;
  int g, nx, ny;
  KOKKOS_INLINE_FUNCTION void operator()(int r) const {
    using Real = typename V::value_type;
    const int i = g + r % nx, j = g + (r / nx) % ny;
    Real p;
    if constexpr (Op::dim == 2)
      p = op.coeffs(i, j).p;
    else
      p = op.coeffs(i, j, g + r / (nx * ny)).p;
    in(r) = p != Real(0) ? Real(1) : Real(0);
    dinv(r) = p != Real(0) ? Real(1) / (scale * p) : Real(0);
  }
};
}  // namespace detail

// The rows' membership of the system (in: 1 or 0) and the inverse diagonal
// of scale * A (dinv: 0 outside the system), for the Krylov solvers on the
// CRS form (Jacobi, masking b).
template <class ExecSpace, class Op, class V>
void crs_diagonal(const ExecSpace& space, const Op& op, const V& in, const V& dinv,
                  typename V::value_type scale) {
  const Grid& g = op.grid;
  Kokkos::parallel_for(
      "kflow::linalg::crs_diagonal", RangePolicy<ExecSpace>(space, 0, int(crs_rows(g))),
      detail::CrsDiagonal<Op, V>{op, in, dinv, scale, g.ghost, g.cells[0], g.cells[1]});
}

}  // namespace kflow::linalg
