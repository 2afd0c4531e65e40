// The general sparse path (linalg/crs.hpp, Kokkos Kernels): every 5- and
// 7-point operator kind assembled as a KokkosSparse::CrsMatrix, and
// KokkosSparse::spmv on it against the matrix-free product (operator.hpp's
// apply) on the same x.
//
// Exactly: coefficients and x are small integers (|c| <= 16, |x| <= 1024),
// so every product and partial sum is an integer below 2^17, exact in float
// and double whatever order Kokkos Kernels sums a row in; any wrong entry,
// column or row offset changes y.  Operators: Laplace5 with a random mask
// (obstacles, Neumann walls), Uniform5 with Dirichlet and Neumann sides and
// periodic in x (also on 1 and 2 cells, where the periodic neighbours
// coincide and the entries merge), Stencil5 with variable coefficients,
// periodic in y, and Stencil7 with variable coefficients and obstacle cells.
// Also: the structure (row lengths = the non-zero coefficients, columns
// strictly ascending), gather/scatter of the rows, real-valued data to
// rounding, and the rejection of a coupling to a ghost cell.  On every
// execution space compiled in, float and double.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "kflow/linalg/crs.hpp"
#include "kflow/linalg/operator.hpp"
#include "linalg/backends.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Host = Kokkos::HostSpace;

namespace {

using kflow::test::op_to_space;
using kflow::test::to_host;
using kflow::test::to_space;

// Uniform5 holds no data: the same operator on every space.
template <class Space, class Real>
la::Uniform5<Real> op_to_space(const la::Uniform5<Real>& h) {
  return h;
}

la::Grid grid(int nx, int ny, int nz = 0) {
  la::Grid g;
  g.dim = nz > 0 ? 3 : 2;
  g.cells = {nx, ny, nz > 0 ? nz : 1};
  return g;
}

template <class Real, int Dim>
la::Field<Real, Dim, Host> hfield(const la::Grid& g) {
  if constexpr (Dim == 2)
    return la::Field<Real, 2, Host>("f", g.extent(0), g.extent(1));
  else
    return la::Field<Real, 3, Host>("f", g.extent(0), g.extent(1), g.extent(2));
}

// Integer coefficient in [lo, hi].
struct Ints {
  std::mt19937 gen;
  explicit Ints(unsigned seed) : gen(seed) {}
  int operator()(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
};

// Laplace5 (cx = 3, cy = 5) with a random mask: about one cell in six an
// obstacle, each neighbour bit set when that neighbour is a fluid cell
// (wrapping in x when periodic), so walls and obstacles are Neumann sides.
template <class Real>
la::Laplace5<Real, Host> laplace(const la::Grid& g, bool px, unsigned seed) {
  Ints r(seed);
  const int nx = g.cells[0], ny = g.cells[1];
  Kokkos::View<bool**, Kokkos::LayoutLeft, Host> fluid("fluid", nx + 2, ny + 2);
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) fluid(i, j) = r(0, 5) != 0;
  la::Laplace5<Real, Host> op;
  la::set_neighbours(op, g, px, false);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Host> mask("mask", nx + 2, ny + 2);
  namespace mb = la::mask_bits;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      if (!fluid(i, j)) continue;
      std::uint8_t m = mb::self;
      if (fluid(op.west(i), j)) m |= mb::west;
      if (fluid(op.east(i), j)) m |= mb::east;
      if (fluid(i, op.south(j))) m |= mb::south;
      if (fluid(i, op.north(j))) m |= mb::north;
      mask(i, j) = m;
    }
  op.mask = mask;
  op.cx = 3, op.cy = 5;
  op.grid = g;
  return op;
}

// Stencil5 with integer coefficients, 0 towards ghost cells (periodic in y:
// the south/north coefficients stay on the wrapped sides); `leak`: but 1
// from cell (4, ny) to the ghost north of it.
template <class Real>
la::Stencil5<Real, Host> stencil5(const la::Grid& g, bool py, unsigned seed, bool leak = false) {
  Ints r(seed);
  auto cp = hfield<Real, 2>(g), cw = hfield<Real, 2>(g), ce = hfield<Real, 2>(g),
       cs = hfield<Real, 2>(g), cn = hfield<Real, 2>(g);
  const int nx = g.cells[0], ny = g.cells[1];
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      cp(i, j) = Real(r(-16, -8));
      cw(i, j) = i > 1 ? Real(r(-2, 3)) : Real(0);
      ce(i, j) = i < nx ? Real(r(-2, 3)) : Real(0);
      cs(i, j) = (py || j > 1) ? Real(r(-2, 3)) : Real(0);
      cn(i, j) = (py || j < ny) ? Real(r(-2, 3)) : Real(0);
    }
  if (leak) cn(4, ny) = 1;
  la::Stencil5<Real, Host> op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, py);
  return op;
}

// Stencil7 with integer coefficients, 0 towards ghost cells, and obstacle
// cells (every coefficient 0) about one in eight; `leak`: but -1 from cell
// (2, 3, 1) to the ghost below it.
template <class Real>
la::Stencil7<Real, Host> stencil7(const la::Grid& g, unsigned seed, bool leak = false,
                                  bool periodic = false) {
  Ints r(seed);
  auto cp = hfield<Real, 3>(g), cw = hfield<Real, 3>(g), ce = hfield<Real, 3>(g),
       cs = hfield<Real, 3>(g), cn = hfield<Real, 3>(g), cb = hfield<Real, 3>(g),
       ct = hfield<Real, 3>(g);
  const int nx = g.cells[0], ny = g.cells[1], nz = g.cells[2];
  for (int k = 1; k <= nz; ++k)
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) {
        if (r(0, 7) == 0) continue;
        cp(i, j, k) = Real(r(-16, -10));
        cw(i, j, k) = i > 1 || periodic ? Real(r(-2, 2)) : Real(0);
        ce(i, j, k) = i < nx || periodic ? Real(r(-2, 2)) : Real(0);
        cs(i, j, k) = j > 1 || periodic ? Real(r(-2, 2)) : Real(0);
        cn(i, j, k) = j < ny || periodic ? Real(r(-2, 2)) : Real(0);
        cb(i, j, k) = k > 1 || periodic ? Real(r(-2, 2)) : Real(0);
        ct(i, j, k) = k < nz || periodic ? Real(r(-2, 2)) : Real(0);
      }
  if (leak) cp(2, 3, 1) = -9, cb(2, 3, 1) = -1;
  la::Stencil7<Real, Host> op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn, op.cb = cb, op.ct = ct;
  op.grid = g;
  if (periodic) la::set_neighbours(op, g, true, true, true);
  return op;
}

// x: integers in [-1024, 1024] (or reals in [-1, 1]) everywhere, ghosts
// included (a ghost value must never reach y: its coefficients are 0).
template <class Real, int Dim>
la::Field<Real, Dim, Host> random_x(const la::Grid& g, unsigned seed, bool integers) {
  auto x = hfield<Real, Dim>(g);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> ui(-1024, 1024);
  std::uniform_real_distribution<double> ur(-1, 1);
  Real* p = x.data();
  for (std::size_t q = 0; q < x.span(); ++q) p[q] = integers ? Real(ui(gen)) : Real(ur(gen));
  return x;
}

// Non-zero coefficients of the row of interior cell (i, j[, k]) (host
// operator), counting a neighbour reached twice once.
template <class Op>
int row_length(const Op& op, int i, int j, int k) {
  int cols[7], n = 0;
  auto add = [&](int c, double v) {
    if (v == 0) return;
    for (int q = 0; q < n; ++q)
      if (cols[q] == c) return;
    cols[n++] = c;
  };
  const int nx = op.grid.cells[0], ny = op.grid.cells[1];
  auto col = [&](int a, int b, int c) {
    return (a - 1) + nx * ((b - 1) + ny * (c - 1));
  };
  if constexpr (Op::dim == 2) {
    const auto c = op.coeffs(i, j);
    add(col(i, j, 1), c.p), add(col(op.west(i), j, 1), c.w), add(col(op.east(i), j, 1), c.e);
    add(col(i, op.south(j), 1), c.s), add(col(i, op.north(j), 1), c.n);
  } else {
    const auto c = op.coeffs(i, j, k);
    add(col(i, j, k), c.p), add(col(op.west(i), j, k), c.w), add(col(op.east(i), j, k), c.e);
    add(col(i, op.south(j), k), c.s), add(col(i, op.north(j), k), c.n);
    add(col(i, j, op.bottom(k)), c.b), add(col(i, j, op.top(k)), c.t);
  }
  return n;
}

// Assembles the host operator `hop` on Space, checks the structure, and
// returns max |spmv(A, x) - apply(op, x)| over the rows, and max |apply(op, x)|.
template <class Space, class HostOp>
std::pair<double, double> crs_vs_matrix_free(const HostOp& hop, bool integers, unsigned seed) {
  using Real = typename HostOp::real_type;
  constexpr int Dim = HostOp::dim;
  const la::Grid& g = hop.grid;
  Space space;
  const auto op = op_to_space<Space>(hop);
  const auto A = la::make_crs(space, op);
  const int n = int(la::crs_rows(g));
  REQUIRE(A.numRows() == n);
  REQUIRE(A.numCols() == n);

  // Structure: row lengths and ascending columns.
  const auto rm = to_host(A.graph.row_map);
  const auto ci = to_host(A.graph.entries);
  const int nx = g.cells[0], ny = g.cells[1];
  int bad_len = 0, bad_order = 0;
  for (int r = 0; r < n; ++r) {
    const int i = 1 + r % nx, j = 1 + r / nx % ny, k = 1 + r / (nx * ny);
    bad_len += (rm(r + 1) - rm(r)) != row_length(hop, i, j, k);
    for (int q = rm(r) + 1; q < rm(r + 1); ++q) bad_order += ci(q) <= ci(q - 1);
  }
  CHECK(bad_len == 0);
  CHECK(bad_order == 0);
  CHECK(rm(n) == A.nnz());

  const auto hx = random_x<Real, Dim>(g, seed, integers);
  const auto x = to_space<Space>(hx);
  auto y = la::make_field<Real, Dim>(space, "y", g);
  la::apply(space, op, x, y);
  using V = Kokkos::View<Real*, Kokkos::Device<Space, typename Space::memory_space>>;
  V xv("xv", n), ym("ym", n), yc("yc", n);
  la::gather_rows(space, g, x, xv);
  la::gather_rows(space, g, y, ym);
  KokkosSparse::spmv(space, "N", Real(1), A, xv, Real(0), yc);
  space.fence();

  // scatter(gather(x)) restores the interior of x.
  auto x2 = la::make_field<Real, Dim>(space, "x2", g);
  la::scatter_rows(space, g, xv, x2);
  space.fence();
  const auto hx2 = to_host(x2);
  double scatter_diff = 0;
  for (int r = 0; r < n; ++r) {
    const int i = 1 + r % nx, j = 1 + r / nx % ny, k = 1 + r / (nx * ny);
    if constexpr (Dim == 2)
      scatter_diff = std::max(scatter_diff, std::fabs(double(hx2(i, j)) - double(hx(i, j))));
    else
      scatter_diff = std::max(scatter_diff, std::fabs(double(hx2(i, j, k)) - double(hx(i, j, k))));
  }
  CHECK(scatter_diff == 0);

  const auto hc = to_host(yc), hm = to_host(ym);
  double diff = 0, ymax = 0;
  for (int r = 0; r < n; ++r) {
    diff = std::max(diff, std::fabs(double(hc(r)) - double(hm(r))));
    ymax = std::max(ymax, std::fabs(double(hm(r))));
  }
  return {diff, ymax};
}

template <class Space, class Real>
void check_all_operators() {
  auto exact = [](const auto& hop, unsigned seed) {
    const auto [diff, ymax] = crs_vs_matrix_free<Space>(hop, true, seed);
    CHECK(ymax > 0);  // not a trivially zero product
    CHECK(diff == 0);
  };
  SECTION("Laplace5, random mask (obstacles, Neumann walls)") {
    exact(laplace<Real>(grid(23, 17), false, 1), 11);
    exact(laplace<Real>(grid(16, 9), true, 2), 12);  // periodic in x
  }
  SECTION("Uniform5: Dirichlet and Neumann sides; periodic in x, also on 1 and 2 cells") {
    for (int nx : {19, 2, 1})
      for (bool px : {false, true}) {
        la::Uniform5<Real> op;
        op.c = {Real(-12), Real(1), Real(2), Real(3), Real(4)};
        op.neumann[0] = true, op.neumann[3] = true;  // west, north
        op.grid = grid(nx, 13);
        la::set_neighbours(op, op.grid, px, false);
        exact(op, 13 + unsigned(nx));
      }
  }
  SECTION("Stencil5, variable coefficients; periodic in y, also on 2 cells") {
    exact(stencil5<Real>(grid(21, 14), false, 3), 14);
    exact(stencil5<Real>(grid(12, 15), true, 4), 15);
    exact(stencil5<Real>(grid(7, 2), true, 5), 16);
  }
  SECTION("Stencil7, variable coefficients, obstacle cells") {
    exact(stencil7<Real>(grid(11, 9, 7), 6), 17);
    exact(stencil7<Real>(grid(1, 5, 3), 7), 18);
  }
  SECTION("Stencil7, periodic in x, y and z (wrapped), also on 1 and 2 cells") {
    exact(stencil7<Real>(grid(9, 6, 5), 20, false, true), 21);
    exact(stencil7<Real>(grid(2, 1, 4), 22, false, true), 23);
  }
  SECTION("real-valued x: equal to rounding") {
    const auto [diff, ymax] =
        crs_vs_matrix_free<Space>(stencil7<Real>(grid(10, 8, 6), 8), false, 19);
    // |x| <= 1 and sum |c| <= 16 + 6 * 2 = 28 per row: each summation order
    // is within 7 roundings of 28 of the exact row, the two within twice that.
    CHECK(diff <= 2 * 7 * 28 * double(std::numeric_limits<Real>::epsilon()));
    CHECK(ymax > 0);
  }
}

}  // namespace

TEMPLATE_LIST_TEST_CASE(
    "linalg crs: KokkosSparse::spmv on the assembled operator equals the matrix-free product",
    "[unit][linalg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  SECTION("double") {
    check_all_operators<TestType, double>();
  }
  SECTION("float") {
    check_all_operators<TestType, float>();
  }
}

TEMPLATE_LIST_TEST_CASE("linalg crs: a coefficient to a ghost cell is rejected",
                        "[unit][linalg][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  TestType space;
  const auto hop = stencil5<double>(grid(6, 5), false, 9, true);
  const auto op = op_to_space<TestType>(hop);
  try {
    la::make_crs(space, op);
    FAIL("make_crs accepted a coupling to a ghost cell");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("cell (4, 5)") != std::string::npos);
  }
  const auto h7 = stencil7<double>(grid(4, 3, 5), 10, true);
  const auto op7 = op_to_space<TestType>(h7);
  CHECK_THROWS_AS(la::make_crs(space, op7), std::invalid_argument);
}
