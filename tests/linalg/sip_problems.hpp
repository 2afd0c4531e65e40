#pragma once
// The 2D SIP test problems (tests/linalg/test_sip.cpp, tests/linsys/
// test_sip_paper.cpp): operators built on the host, the one-thread
// lexicographic reference iterates, and a solve on any execution space.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "kflow/linalg/sip.hpp"
#include "unit/linsys_helpers.hpp"

namespace kflow::test::sip {

namespace la = kflow::linalg;
using Host = Kokkos::DefaultHostExecutionSpace;
using F2 = la::Field<double, 2, Kokkos::HostSpace>;
using Op = la::Stencil5<double, Kokkos::HostSpace>;

inline F2 field(const la::Grid& g) {
  return F2("f", g.extent(0), g.extent(1));
}

// Variable-coefficient diffusion operator, zero Dirichlet walls folded in
// (boundary neighbours dropped, diagonal keeps its full value).
inline Op variable_op(const la::Grid& g) {
  F2 cp = field(g), cw = field(g), ce = field(g), cs = field(g), cn = field(g);
  const int nx = g.cells[0], ny = g.cells[1];
  auto k = [](double x, double y) {
    return 1.0 + 0.5 * std::sin(0.3 * x + 0.2 * y);
  };
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const double w = k(i - 0.5, j), e = k(i + 0.5, j), s = 2 * k(i, j - 0.5),
                   n = 2 * k(i, j + 0.5);
      cp(i, j) = -(w + e + s + n);
      cw(i, j) = i > 1 ? w : 0;
      ce(i, j) = i < nx ? e : 0;
      cs(i, j) = j > 1 ? s : 0;
      cn(i, j) = j < ny ? n : 0;
    }
  Op op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

// The Laplacian on the unit square, cell-centred, u = 0 on the walls through
// mirrored ghosts (u_ghost = -u_interior: the diagonal gains -1/h^2 per wall).
inline Op poisson_op(const la::Grid& g) {
  F2 cp = field(g), cw = field(g), ce = field(g), cs = field(g), cn = field(g);
  const int nx = g.cells[0], ny = g.cells[1];
  const double ax = 1 / (g.spacing(0) * g.spacing(0)), ay = 1 / (g.spacing(1) * g.spacing(1));
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      cw(i, j) = i > 1 ? ax : 0;
      ce(i, j) = i < nx ? ax : 0;
      cs(i, j) = j > 1 ? ay : 0;
      cn(i, j) = j < ny ? ay : 0;
      cp(i, j) = -2 * ax - 2 * ay - (i == 1 || i == nx ? ax : 0) - (j == 1 || j == ny ? ay : 0);
    }
  Op op;
  op.cp = cp, op.cw = cw, op.ce = ce, op.cs = cs, op.cn = cn;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  return op;
}

inline double max_diff(const la::Grid& g, const F2& x, const F2& y) {
  double e = 0;
  for (int j = 1; j <= g.cells[1]; ++j)
    for (int i = 1; i <= g.cells[0]; ++i) e = std::max(e, std::fabs(x(i, j) - y(i, j)));
  return e;
}

// The one-thread lexicographic sweep on the host: the reference iterates.
inline F2 host_reference(const Op& op, const F2& b, double alpha, const la::SolveControl& c) {
  F2 ref = field(op.grid);
  la::Sip<Host, Op>(Host(), op, la::SipOptions{alpha, la::SipOrdering::lexicographic})
      .solve(ref, b, c);
  return ref;
}

// The operator with obstacle cells (c.p == 0: identity rows, correction 0):
// every cell with (i + 2 j) % 7 == 3, their neighbours' couplings to them
// dropped (a Neumann wall, as a flow solver's pressure operator has).
inline Op with_obstacles(const Op& op) {
  const auto& g = op.grid;
  F2 c[5] = {field(g), field(g), field(g), field(g), field(g)};
  const int nx = g.cells[0], ny = g.cells[1];
  auto solid = [](int i, int j) {
    return (i + 2 * j) % 7 == 3;
  };
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const auto k = op.coeffs(i, j);
      const bool s = solid(i, j);
      c[1](i, j) = s || solid(i - 1, j) ? 0 : k.w;
      c[2](i, j) = s || solid(i + 1, j) ? 0 : k.e;
      c[3](i, j) = s || solid(i, j - 1) ? 0 : k.s;
      c[4](i, j) = s || solid(i, j + 1) ? 0 : k.n;
      c[0](i, j) = s ? 0 : k.p;
    }
  Op o = op;
  o.cp = c[0], o.cw = c[1], o.ce = c[2], o.cs = c[3], o.cn = c[4];
  return o;
}

// Solves with `solver` (made on Space for the operator in Space's memory)
// from x = 0; the result on the host.
template <class Space, class Make>
F2 solve_with(const Op& hop, const F2& b, Make make, const la::SolveControl& c,
              la::SolveStats* stats = nullptr, std::string* name = nullptr) {
  const auto op = op_to_space<Space>(hop);
  la::Field<double, 2, typename Space::memory_space> x("x", hop.grid.extent(0), hop.grid.extent(1));
  auto solver = make(op);
  const auto s = solver->solve(x, to_space<Space>(b), c);
  if (stats) *stats = s;
  if (name) *name = solver->name();
  return to_host(x);
}

}  // namespace kflow::test::sip
