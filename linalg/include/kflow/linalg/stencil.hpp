#pragma once
// 5-point operators on the cells of a 2D grid (one ghost layer), with
// variable coefficients:
//
//   (A x)_P = c.p x_P + c.w x_W + c.e x_E + c.s x_S + c.n x_N
//
// Convention: the stored numbers are the
// matrix entries themselves (for the Laplacian c.p < 0 < c.w ...), and the
// system is A x = b.  A cell with c.p == 0 is not part of the system
// (an obstacle cell): solvers leave its value alone.  Neighbours that are not
// part of the system have a zero coefficient, which is how homogeneous
// Neumann conditions are folded into the operator (Griebel's epsilon
// coefficients); the ghost values of x are never read by a solver.
//
// An operator is a small copyable struct, usable on the device, with
//   KOKKOS_FUNCTION Coeffs5<Real> coeffs(int i, int j) const;   // stored indices
//   KOKKOS_FUNCTION int west(int i) const, east(i), south(j), north(j);
// (the neighbour indices wrap around in periodic directions), `dim` = 2 and
// the host members `grid`, px, py.  operator.hpp has what works on any of them.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"

namespace kflow::linalg {

template <class Real>
struct Coeffs5 {
  Real p, w, e, s, n;
};

// Neighbour indices on an interior of n cells (stored indices 1..n), with
// wrap-around when periodic.
struct Neighbours2 {
  int nx = 1, ny = 1;
  bool px = false, py = false;
  KOKKOS_INLINE_FUNCTION int west(int i) const { return (px && i == 1) ? nx : i - 1; }
  KOKKOS_INLINE_FUNCTION int east(int i) const { return (px && i == nx) ? 1 : i + 1; }
  KOKKOS_INLINE_FUNCTION int south(int j) const { return (py && j == 1) ? ny : j - 1; }
  KOKKOS_INLINE_FUNCTION int north(int j) const { return (py && j == ny) ? 1 : j + 1; }
};

// Bits of a Laplace5 mask byte.
namespace mask_bits {
inline constexpr std::uint8_t west = 1, east = 2, south = 4, north = 8, self = 16;
}

// The constant-coefficient Laplacian (1/dx^2, 1/dy^2) restricted to the cells
// whose mask has the `self` bit; the other four bits say which neighbours
// take part.  One byte per cell instead of five coefficients: the pressure
// equation of a flag-field flow solver.
template <class Real, class MemSpace>
struct Laplace5 : Neighbours2 {
  using real_type = Real;
  static constexpr int dim = 2;
  Kokkos::View<const std::uint8_t**, Kokkos::LayoutLeft, MemSpace> mask;
  Real cx = 1, cy = 1;
  Grid grid;

  KOKKOS_INLINE_FUNCTION Coeffs5<Real> coeffs(int i, int j) const {
    const std::uint8_t m = mask(i, j);
    if (!(m & mask_bits::self)) return {Real(0), Real(0), Real(0), Real(0), Real(0)};
    const Real w = (m & mask_bits::west) ? cx : Real(0);
    const Real e = (m & mask_bits::east) ? cx : Real(0);
    const Real s = (m & mask_bits::south) ? cy : Real(0);
    const Real n = (m & mask_bits::north) ? cy : Real(0);
    return {-(w + e + s + n), w, e, s, n};
  }
};

// Five stored coefficient fields (general variable coefficients).
template <class Real, class MemSpace>
struct Stencil5 : Neighbours2 {
  using real_type = Real;
  static constexpr int dim = 2;
  Field<const Real, 2, MemSpace> cp, cw, ce, cs, cn;
  Grid grid;

  KOKKOS_INLINE_FUNCTION Coeffs5<Real> coeffs(int i, int j) const {
    return {cp(i, j), cw(i, j), ce(i, j), cs(i, j), cn(i, j)};
  }
};

// Constant coefficients on every cell of a rectangle (stream function and
// implicit diffusion on a uniform grid: p = -2/dx^2 - 2/dy^2, or 1 + dt k
// (2/dx^2 + 2/dy^2), ...).  Across a non-periodic side the neighbour is
// either a known (Dirichlet) value, coefficient 0 here and its term in b, or
// a copy of the cell itself (first-order zero normal gradient: `neumann`,
// the coefficient moves onto the diagonal).  Symmetric either way; cells
// outside the rectangle (the ghost ring) are not part of the system.
template <class Real>
struct Uniform5 : Neighbours2 {
  using real_type = Real;
  static constexpr int dim = 2;
  Coeffs5<Real> c{};
  bool neumann[4] = {false, false, false, false};  // west, east, south, north
  Grid grid;

  KOKKOS_INLINE_FUNCTION Coeffs5<Real> coeffs(int i, int j) const {
    if (i < 1 || i > nx || j < 1 || j > ny) return {Real(0), Real(0), Real(0), Real(0), Real(0)};
    Coeffs5<Real> r = c;
    if (!px && i == 1) r.p += neumann[0] ? r.w : Real(0), r.w = 0;
    if (!px && i == nx) r.p += neumann[1] ? r.e : Real(0), r.e = 0;
    if (!py && j == 1) r.p += neumann[2] ? r.s : Real(0), r.s = 0;
    if (!py && j == ny) r.p += neumann[3] ? r.n : Real(0), r.n = 0;
    return r;
  }
};

// Sets the neighbour indexing of an operator on `g`.
inline void set_neighbours(Neighbours2& n, const Grid& g, bool periodic_x, bool periodic_y) {
  n.nx = g.cells[0];
  n.ny = g.cells[1];
  n.px = periodic_x;
  n.py = periodic_y;
}

// (A x)_P at one cell.
template <class Op, class X>
KOKKOS_INLINE_FUNCTION auto apply_at(const Op& op, const X& x, int i, int j) {
  const auto c = op.coeffs(i, j);
  return c.p * x(i, j) + c.w * x(op.west(i), j) + c.e * x(op.east(i), j) + c.s * x(i, op.south(j)) +
         c.n * x(i, op.north(j));
}

}  // namespace kflow::linalg
