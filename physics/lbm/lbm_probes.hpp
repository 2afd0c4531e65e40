#pragma once
// analysis.pressure_probes of physics/lbm: p(a) - p(b), physical units (p =
// c_s^2 (rho - rho0) (dx/dt)^2 per unit density), the density interpolated
// (bi- or trilinear) between the cell centres around the point.  A corner
// cell in a body takes the value extrapolated linearly from the two fluid
// cells beyond it along an axis, so that a point on a body's surface (DFG's
// front and rear points) reads the wall's pressure to second order.
//
// The densities of the 4^dim cells around each point come from the ranks
// that hold them (each cell is one block's): the interpolation then runs
// on the same numbers, in the same order, as on one rank.

#include <algorithm>
#include <cmath>
#include <vector>

#include "kflow/linalg/grid.hpp"

namespace kflow::lbm {

// The cells around the two points: i0 - 1 .. i0 + 2 per axis (global
// indices, clamped into the grid), i0 the centre below the point, t its
// fraction towards i0 + 1.
struct ProbeCells {
  static constexpr int side = 4;
  int dim = 2, cells = 16;  // per point: side^dim
  int n[3] = {1, 1, 1};     // the global grid's cells
  int i0[2][3] = {};
  double t[2][3] = {};

  // The global cell x of point p's cell k (x fastest over the 4^dim).
  void cell(int p, int k, int x[3]) const {
    x[0] = x[1] = x[2] = 0;
    for (int d = 0, r = k; d < dim; ++d, r /= side)
      x[d] = std::min(std::max(i0[p][d] - 1 + r % side, 0), n[d] - 1);
  }
};

// probes: [xa, ya(, za), xb, yb(, zb)] in domain units.
inline ProbeCells probe_cells(const std::vector<double>& probes, const linalg::Grid& grid,
                              double dx) {
  ProbeCells c;
  c.dim = grid.dim;
  c.cells = c.dim == 2 ? 16 : 64;
  for (int d = 0; d < c.dim; ++d) c.n[d] = grid.cells[std::size_t(d)];
  for (int p = 0; p < 2; ++p)
    for (int d = 0; d < c.dim; ++d) {
      const double x =
          (probes[std::size_t(p * c.dim + d)] - grid.origin[std::size_t(d)]) / dx - 0.5;
      c.i0[p][d] = std::min(std::max(int(std::floor(x)), 0), c.n[d] - 2);
      c.t[p][d] = std::min(std::max(x - c.i0[p][d], 0.0), 1.0);
    }
  return c;
}

// The density at point p from rho(k), the densities of its cells (< 0: a
// body's cell), rho0 = 1 where every corner is a body's.
template <class Rho>
double probe_density(const ProbeCells& c, int p, const Rho& rho) {
  const int side = ProbeCells::side, dim = c.dim;
  auto v = [&](const int a[3]) {
    return rho(a[0] + side * (a[1] + side * a[2]));
  };
  double r = 0, w = 0;
  for (int k = 0; k < (1 << dim); ++k) {
    int a[3] = {0, 0, 0};
    double wt = 1;
    for (int d = 0; d < dim; ++d) {
      const int bit = (k >> d) & 1;
      a[d] = 1 + bit;
      wt *= bit ? c.t[p][d] : 1 - c.t[p][d];
    }
    double val = v(a);
    for (int d = 0; d < dim && val < 0; ++d) {  // in a body: extrapolated
      int b[3] = {a[0], a[1], a[2]}, e[3] = {a[0], a[1], a[2]};
      b[d] = 3 - a[d];         // the other corner along d
      e[d] = 2 * b[d] - a[d];  // beyond it
      if (v(b) >= 0 && v(e) >= 0) val = 2 * v(b) - v(e);
    }
    if (val >= 0) r += wt * val, w += wt;
  }
  return w > 0 ? r / w : 1.0;
}

}  // namespace kflow::lbm
