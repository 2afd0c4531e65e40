#pragma once
// Shared helpers of the 2D linear-solver tests (red-black SOR, CG, SIP): host
// fields on a grid, random fields, manufactured right-hand sides b = A x and
// the error against a known solution.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/linalg/stencil7.hpp"

namespace kflow::test {

using HostField2 = linalg::Field<double, 2, Kokkos::DefaultHostExecutionSpace::memory_space>;

// nx x ny cells on [0, 1] x [0, ny / nx].
inline linalg::Grid grid2(int nx, int ny) {
  linalg::Grid g;
  g.dim = 2;
  g.cells = {nx, ny, 1};
  g.length = {1.0, double(ny) / nx, 1.0};
  return g;
}

// The 5-point mask (linalg::mask_bits) of the cells (1..nx, 1..ny) where
// in(i, j) holds: self, and a bit per neighbour that is in the system too
// (in may wrap a periodic index).
template <class In>
Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> mask_of(const linalg::Grid& g,
                                                                            const In& in) {
  namespace mb = linalg::mask_bits;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> mask("mask", g.extent(0),
                                                                           g.extent(1));
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i)
      if (in(i, j))
        mask(i, j) = mb::self | (in(i - 1, j) ? mb::west : 0) | (in(i + 1, j) ? mb::east : 0) |
                     (in(i, j - 1) ? mb::south : 0) | (in(i, j + 1) ? mb::north : 0);
  return mask;
}

// Uniform random values in [-1, 1] on the interior (ghosts 0).
inline HostField2 random_field(const linalg::Grid& g, unsigned seed) {
  HostField2 x("x", g.extent(0), g.extent(1));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i) x(i, j) = u(gen);
  return x;
}

// b = A x at every cell of the system (0 at cells outside it, c.p == 0).
template <class Op>
HostField2 rhs_of(const Op& op, const HostField2& x) {
  HostField2 b("b", x.extent(0), x.extent(1));
  for (int j = 1; j <= op.grid.cells[1]; ++j)
    for (int i = 1; i <= op.grid.cells[0]; ++i)
      b(i, j) = op.coeffs(i, j).p != 0 ? linalg::apply_at(op, x, i, j) : 0;
  return b;
}

// max |x - y - mean(x - y)| (or without the mean) over cells in the system.
template <class Op>
double error(const Op& op, const HostField2& x, const HostField2& y, bool up_to_constant) {
  double mean = 0;
  int n = 0;
  for (int j = 1; j <= op.grid.cells[1]; ++j)
    for (int i = 1; i <= op.grid.cells[0]; ++i)
      if (op.coeffs(i, j).p != 0) mean += x(i, j) - y(i, j), ++n;
  mean = up_to_constant ? mean / n : 0;
  double e = 0;
  for (int j = 1; j <= op.grid.cells[1]; ++j)
    for (int i = 1; i <= op.grid.cells[0]; ++i)
      if (op.coeffs(i, j).p != 0) e = std::max(e, std::fabs(x(i, j) - y(i, j) - mean));
  return e;
}

// The same field in Space's memory (a copy; the host field itself on host spaces).
template <class Space, class V>
auto to_space(const V& h) {
  return Kokkos::create_mirror_view_and_copy(typename Space::memory_space(), h);
}

// A host field's copy of any field.
template <class F>
auto to_host(const F& f) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
}

// A 5-point operator built on the host, copied to Space's memory.
template <class Space, class Real>
auto op_to_space(const linalg::Stencil5<Real, Kokkos::HostSpace>& h) {
  using M = typename Space::memory_space;
  linalg::Stencil5<Real, M> op;
  static_cast<linalg::Neighbours2&>(op) = h;
  op.grid = h.grid;
  op.cp = to_space<Space>(h.cp), op.cw = to_space<Space>(h.cw), op.ce = to_space<Space>(h.ce);
  op.cs = to_space<Space>(h.cs), op.cn = to_space<Space>(h.cn);
  return op;
}
template <class Space, class Real>
auto op_to_space(const linalg::Laplace5<Real, Kokkos::HostSpace>& h) {
  using M = typename Space::memory_space;
  linalg::Laplace5<Real, M> op;
  static_cast<linalg::Neighbours2&>(op) = h;
  op.grid = h.grid;
  op.cx = h.cx, op.cy = h.cy;
  op.mask = Kokkos::create_mirror_view_and_copy(M(), h.mask);
  return op;
}

template <class Space, class Real>
auto op_to_space(const linalg::Stencil7<Real, Kokkos::HostSpace>& h) {
  linalg::Stencil7<Real, typename Space::memory_space> op;
  op.grid = h.grid;
  static_cast<linalg::Neighbours3&>(op) = h;
  op.cp = to_space<Space>(h.cp), op.cw = to_space<Space>(h.cw), op.ce = to_space<Space>(h.ce);
  op.cs = to_space<Space>(h.cs), op.cn = to_space<Space>(h.cn), op.cb = to_space<Space>(h.cb);
  op.ct = to_space<Space>(h.ct);
  return op;
}

}  // namespace kflow::test
