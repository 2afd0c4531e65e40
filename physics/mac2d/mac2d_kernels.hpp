#pragma once
// The device kernels of physics/mac2d (Griebel et al. 1998): boundary values
// on the sides, F and G (blend or TVD convection), the pressure equation's
// right-hand side, the velocity correction, the time-step limit, the
// initial state and the Taylor-Green error (the bodies': mac2d_bodies.hpp).

#include <Kokkos_Core.hpp>

#include <cmath>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/reduce.hpp"
#include "limiter.hpp"
#include "mac2d.hpp"

namespace kflow::mac2d {

// Boundary parameters in a form the device can read.
template <class Real>
struct SideParams {
  int type[4];         // Bc per side
  Real tangential[4];  // moving wall / inflow tangential velocity
};

namespace kernels {

namespace mb = linalg::mask_bits;
inline constexpr double pi = 3.14159265358979323846;

// West and east sides, rows j = 1..jmax (Griebel et al. 1998, sec. 3.1.2).
// In a periodic direction the west kernel copies both ghost columns.
template <class ExecSpace, class F2, class In>
void side_bc_x(const ExecSpace& space, const linalg::Grid& g,
               const SideParams<typename F2::value_type>& sp, const F2& u, const F2& v,
               const In& inflow) {
  const int nx = g.cells[0], ny = g.cells[1];
  Kokkos::parallel_for(
      "kflow::mac2d::boundary_x", linalg::RangePolicy<ExecSpace>(space, 1, ny + 1),
      KOKKOS_LAMBDA(int j) {
        switch (Bc(sp.type[0])) {
          case Bc::no_slip:
            u(0, j) = 0, v(0, j) = -v(1, j);
            break;
          case Bc::free_slip:
            u(0, j) = 0, v(0, j) = v(1, j);
            break;
          case Bc::moving_wall:
            u(0, j) = 0, v(0, j) = 2 * sp.tangential[0] - v(1, j);
            break;
          case Bc::inflow:
            u(0, j) = inflow(j, 0), v(0, j) = 2 * sp.tangential[0] - v(1, j);
            break;
          case Bc::outflow:
            u(0, j) = u(1, j), v(0, j) = v(1, j);
            break;
          case Bc::periodic:
            u(0, j) = u(nx, j), v(0, j) = v(nx, j);
            u(nx + 1, j) = u(1, j), v(nx + 1, j) = v(1, j);
            break;
        }
        switch (Bc(sp.type[1])) {
          case Bc::no_slip:
            u(nx, j) = 0, v(nx + 1, j) = -v(nx, j);
            break;
          case Bc::free_slip:
            u(nx, j) = 0, v(nx + 1, j) = v(nx, j);
            break;
          case Bc::moving_wall:
            u(nx, j) = 0, v(nx + 1, j) = 2 * sp.tangential[1] - v(nx, j);
            break;
          case Bc::inflow:
            u(nx, j) = -inflow(j, 1), v(nx + 1, j) = 2 * sp.tangential[1] - v(nx, j);
            break;
          case Bc::outflow:
            u(nx, j) = u(nx - 1, j), v(nx + 1, j) = v(nx, j);
            break;
          case Bc::periodic:
            break;
        }
      });
}

// South and north sides, columns i = 0..imax+1 (after the x sides, so the
// corner ghosts are consistent).
template <class ExecSpace, class F2, class In>
void side_bc_y(const ExecSpace& space, const linalg::Grid& g,
               const SideParams<typename F2::value_type>& sp, const F2& u, const F2& v,
               const In& inflow) {
  const int ny = g.cells[1];
  Kokkos::parallel_for(
      "kflow::mac2d::boundary_y", linalg::RangePolicy<ExecSpace>(space, 0, g.cells[0] + 2),
      KOKKOS_LAMBDA(int i) {
        switch (Bc(sp.type[2])) {
          case Bc::no_slip:
            v(i, 0) = 0, u(i, 0) = -u(i, 1);
            break;
          case Bc::free_slip:
            v(i, 0) = 0, u(i, 0) = u(i, 1);
            break;
          case Bc::moving_wall:
            v(i, 0) = 0, u(i, 0) = 2 * sp.tangential[2] - u(i, 1);
            break;
          case Bc::inflow:
            v(i, 0) = inflow(i, 2), u(i, 0) = 2 * sp.tangential[2] - u(i, 1);
            break;
          case Bc::outflow:
            v(i, 0) = v(i, 1), u(i, 0) = u(i, 1);
            break;
          case Bc::periodic:
            u(i, 0) = u(i, ny), v(i, 0) = v(i, ny);
            u(i, ny + 1) = u(i, 1), v(i, ny + 1) = v(i, 1);
            break;
        }
        switch (Bc(sp.type[3])) {
          case Bc::no_slip:
            v(i, ny) = 0, u(i, ny + 1) = -u(i, ny);
            break;
          case Bc::free_slip:
            v(i, ny) = 0, u(i, ny + 1) = u(i, ny);
            break;
          case Bc::moving_wall:
            v(i, ny) = 0, u(i, ny + 1) = 2 * sp.tangential[3] - u(i, ny);
            break;
          case Bc::inflow:
            v(i, ny) = -inflow(i, 3), u(i, ny + 1) = 2 * sp.tangential[3] - u(i, ny);
            break;
          case Bc::outflow:
            v(i, ny) = v(i, ny - 1), u(i, ny + 1) = u(i, ny);
            break;
          case Bc::periodic:
            break;
        }
      });
}

// Physical parameters of F, G; the interior cells per axis, which axes are
// periodic, and the convection scheme (Convection).
template <class Real>
struct MomentumParams {
  Real dt, idx, idy, idx2, idy2, inv_re, gamma, gx, gy;
  int nx, ny;
  bool periodic_x, periodic_y;
  int convection;
};

// TVD: the transported value at the face between q(k) and q(k + 1) on one
// grid line, carried by the transporting velocity w: the upwind value plus
// van Leer's limited correction (physics/common/limiter.hpp).  The line
// stores q(0..n + 1); `tangential` when q is the velocity component along
// the walls the line ends on (its ghost values mirror the walls), not the
// one normal to them (whose q(0) and q(n) lie on the walls and q(n + 1)
// beyond them, undefined).  Periodic lines wrap the far upwind index.  On
// other lines:
// - a face on the domain boundary (tangential, k = 0 or n) takes the mean of
//   its ghost and interior values: the boundary value the ghost encodes
//   (the wall's, the inflow's, the outflow's zero gradient);
// - where the far upwind value is missing (normal, beyond q(0) or q(n)), the
//   face takes the first-order upwind value;
// - ghost values (tangential: q(0), q(n + 1)) are used as far upwind values
//   as they are, as are the values the obstacle rules leave in obstacle cells.
template <class Real, class Q>
KOKKOS_INLINE_FUNCTION Real tvd_face(const Q& q, int k, Real w, int n, bool tangential,
                                     bool periodic) {
  const Real lo = q(k), hi = q(k + 1);
  if (!periodic && tangential && (k == 0 || k == n)) return (lo + hi) / 2;
  int far = w >= 0 ? k - 1 : k + 2;
  if (periodic)
    far = far < 0 ? far + n : far > n + 1 ? far - n : far;
  else if (far < 0 || far > (tangential ? n + 1 : n))
    return w >= 0 ? lo : hi;
  return w >= 0 ? limiter::face_value(q(far), lo, hi) : limiter::face_value(q(far), hi, lo);
}

// F (eq. (4)) on the east face of cell (i, j) when it separates two fluid
// cells (mask bit east); F = u on every other face (domain boundary and
// obstacle faces, as the paper's boundary values of F and G for eq. (8)).
// Convection in conservative form over the u control volume, with the
// transporting velocities averaged to its faces: the book's donor-cell /
// central blend by gamma, or TVD face values (tvd_face).
template <class Real, class F2>
KOKKOS_INLINE_FUNCTION Real f_value(const MomentumParams<Real>& m, const F2& u, const F2& v,
                                    std::uint8_t fl, int i, int j) {
  const Real uc = u(i, j);
  if (!(fl & mb::east)) return uc;
  const Real ue = u(i + 1, j), uw = u(i - 1, j), un = u(i, j + 1), us = u(i, j - 1);
  const Real a = (uc + ue) / 2, b = (uw + uc) / 2;
  const Real vn = (v(i, j) + v(i + 1, j)) / 2, vs = (v(i, j - 1) + v(i + 1, j - 1)) / 2;
  Real du2dx, duvdy;
  if (m.convection == int(Convection::tvd)) {
    const auto qx = [&](int k) {
      return u(k, j);
    };
    const auto qy = [&](int k) {
      return u(i, k);
    };
    du2dx = m.idx * (a * tvd_face(qx, i, a, m.nx, false, m.periodic_x) -
                     b * tvd_face(qx, i - 1, b, m.nx, false, m.periodic_x));
    duvdy = m.idy * (vn * tvd_face(qy, j, vn, m.ny, true, m.periodic_y) -
                     vs * tvd_face(qy, j - 1, vs, m.ny, true, m.periodic_y));
  } else {
    du2dx = m.idx * (a * a - b * b) +
            m.gamma * m.idx * (Kokkos::fabs(a) * (uc - ue) / 2 - Kokkos::fabs(b) * (uw - uc) / 2);
    duvdy = m.idy * (vn * (uc + un) / 2 - vs * (us + uc) / 2) +
            m.gamma * m.idy * (Kokkos::fabs(vn) * (uc - un) / 2 - Kokkos::fabs(vs) * (us - uc) / 2);
  }
  const Real lap = (ue - 2 * uc + uw) * m.idx2 + (un - 2 * uc + us) * m.idy2;
  return uc + m.dt * (m.inv_re * lap - du2dx - duvdy + m.gx);
}

// G (eq. (5)) on the north face of cell (i, j), likewise.
template <class Real, class F2>
KOKKOS_INLINE_FUNCTION Real g_value(const MomentumParams<Real>& m, const F2& u, const F2& v,
                                    std::uint8_t fl, int i, int j) {
  const Real vc = v(i, j);
  if (!(fl & mb::north)) return vc;
  const Real vn = v(i, j + 1), vs = v(i, j - 1), ve = v(i + 1, j), vw = v(i - 1, j);
  const Real a = (vc + vn) / 2, b = (vs + vc) / 2;
  const Real ue = (u(i, j) + u(i, j + 1)) / 2, uw = (u(i - 1, j) + u(i - 1, j + 1)) / 2;
  Real dv2dy, duvdx;
  if (m.convection == int(Convection::tvd)) {
    const auto qx = [&](int k) {
      return v(k, j);
    };
    const auto qy = [&](int k) {
      return v(i, k);
    };
    dv2dy = m.idy * (a * tvd_face(qy, j, a, m.ny, false, m.periodic_y) -
                     b * tvd_face(qy, j - 1, b, m.ny, false, m.periodic_y));
    duvdx = m.idx * (ue * tvd_face(qx, i, ue, m.nx, true, m.periodic_x) -
                     uw * tvd_face(qx, i - 1, uw, m.nx, true, m.periodic_x));
  } else {
    dv2dy = m.idy * (a * a - b * b) +
            m.gamma * m.idy * (Kokkos::fabs(a) * (vc - vn) / 2 - Kokkos::fabs(b) * (vs - vc) / 2);
    duvdx = m.idx * (ue * (vc + ve) / 2 - uw * (vw + vc) / 2) +
            m.gamma * m.idx * (Kokkos::fabs(ue) * (vc - ve) / 2 - Kokkos::fabs(uw) * (vw - vc) / 2);
  }
  const Real lap = (ve - 2 * vc + vw) * m.idx2 + (vn - 2 * vc + vs) * m.idy2;
  return vc + m.dt * (m.inv_re * lap - duvdx - dv2dy + m.gy);
}

// F and G on the east and north faces of every cell, and the right-hand
// side of (8) on the fluid cells, in one kernel: each thread also computes
// F on its west face and G on its south face (the neighbours' values,
// from the same inputs) instead of reading them after a second launch.
// West/south neighbours wrap in periodic directions.
template <class ExecSpace, class F2, class Op, class Dt>
void compute_fg_rhs(const ExecSpace& space, const Op& op,
                    const MomentumParams<typename F2::value_type>& params, const Dt& step_dt,
                    const F2& u, const F2& v, const F2& f, const F2& gg, const F2& rhs) {
  using Real = typename F2::value_type;
  linalg::interior_for<2>(
      space, "kflow::mac2d::compute_fg_rhs", op.grid, KOKKOS_LAMBDA(int i, int j) {
        const double dt = step_dt();
        if (i == 1 && j == 1 && step_dt.slot >= 0) step_dt.ring(step_dt.slot) = dt;
        MomentumParams<Real> m = params;
        m.dt = Real(dt);
        const std::uint8_t fl = op.mask(i, j);
        const Real fc = f_value(m, u, v, fl, i, j), gc = g_value(m, u, v, fl, i, j);
        f(i, j) = fc;
        gg(i, j) = gc;
        if (i == 1) f(0, j) = u(0, j);
        if (j == 1) gg(i, 0) = v(i, 0);
        if (!(fl & mb::self)) {
          rhs(i, j) = 0;
          return;
        }
        const int w = op.west(i), s = op.south(j);
        const Real fw = f_value(m, u, v, op.mask(w, j), w, j);
        const Real gs = g_value(m, u, v, op.mask(i, s), i, s);
        rhs(i, j) = ((fc - fw) * m.idx + (gc - gs) * m.idy) / m.dt;
      });
}

// Subtracts the mean of the right-hand side over the fluid cells (the
// compatibility condition of the Neumann problem, needed with outflow sides).
template <class ExecSpace, class F2, class Op>
void project_rhs(const ExecSpace& space, const Op& op, long fluid_cells, const F2& rhs) {
  using Real = typename F2::value_type;
  double total = 0;
  linalg::grid_reduce<2>(
      space, "kflow::mac2d::rhs_mean", op.grid, false,
      KOKKOS_LAMBDA(int i, int j, double& acc) { acc += rhs(i, j); }, Kokkos::Sum<double>(total));
  const Real mean = Real(total / double(fluid_cells));
  linalg::interior_for<2>(
      space, "kflow::mac2d::rhs_project", op.grid, KOKKOS_LAMBDA(int i, int j) {
        if (op.mask(i, j) & mb::self) rhs(i, j) -= mean;
      });
}

// Velocity correction (6), (7) on faces between two fluid cells (the paper's
// eq. (7) prints dt/dx; dt/dy is the consistent form, as in Griebel et al.).
template <class ExecSpace, class F2, class Op, class Dt>
void correct_velocity(const ExecSpace& space, const Op& op, const Dt& step_dt, const F2& f,
                      const F2& gg, const F2& p, const F2& u, const F2& v) {
  using Real = typename F2::value_type;
  const double dx = op.grid.spacing(0), dy = op.grid.spacing(1);
  linalg::interior_for<2>(
      space, "kflow::mac2d::correct_velocity", op.grid, KOKKOS_LAMBDA(int i, int j) {
        const double dt = double(Real(step_dt()));  // the step's dt as F, G used it
        const Real cx = Real(dt / dx), cy = Real(dt / dy);
        const std::uint8_t m = op.mask(i, j);
        if (m & mb::east) u(i, j) = f(i, j) - cx * (p(op.east(i), j) - p(i, j));
        if (m & mb::north) v(i, j) = gg(i, j) - cy * (p(i, op.north(j)) - p(i, j));
      });
}

// max |u|, max |v| over every stored value (with_ghosts, the book's
// comp_delt) or over the interior faces, into a device scalar without a
// host synchronisation: one MinMax reduction whose max holds max |u| and
// whose min holds -max |v|.
template <class Real, class Mem>
using VelocityMax = Kokkos::View<Kokkos::MinMaxScalar<Real>, Mem>;

template <class ExecSpace, class F2, class Mem>
void velocity_max(const ExecSpace& space, const linalg::Grid& g, bool ghosts, const F2& u,
                  const F2& v, const VelocityMax<typename F2::value_type, Mem>& out) {
  using Real = typename F2::value_type;
  linalg::grid_reduce<2>(
      space, "kflow::mac2d::velocity_max", g, ghosts,
      KOKKOS_LAMBDA(int i, int j, Kokkos::MinMaxScalar<Real>& a) {
        const Real x = linalg::nan_as_inf(Kokkos::fabs(u(i, j))),
                   y = linalg::nan_as_inf(Kokkos::fabs(v(i, j)));
        a.max_val = x > a.max_val ? x : a.max_val;
        a.min_val = -y < a.min_val ? -y : a.min_val;
      },
      Kokkos::MinMax<Real, Mem>(out));
}

// Eq. (9) with the squared diffusive limit (Griebel et al.; the paper prints
// 1/dx + 1/dy), without tau, the convective limits times `convective` (1;
// 1/2 with TVD convection: explicit Euler with van Leer's limiter is TVD up
// to a Courant number of 1/2): the one formula for the host's stable_dt()
// and the device-chosen steps.
KOKKOS_INLINE_FUNCTION double stable_dt(double umax, double vmax, double re, double dx, double dy,
                                        double convective) {
  double dt = re / 2 / (1 / (dx * dx) + 1 / (dy * dy));
  if (umax > 0) dt = Kokkos::min(dt, convective * dx / umax);
  if (vmax > 0) dt = Kokkos::min(dt, convective * dy / vmax);
  return dt;
}

// The dt of a step: given by the host (dt > 0), or safety * stable_dt of
// the velocity maxima on the device (the driver's batches; recorded in
// ring(slot) for the driver to read back).
template <class Real, class Mem>
struct StepDt {
  double dt = 0, safety = 0, re = 0, dx = 0, dy = 0;
  VelocityMax<Real, Mem> vmax;
  Kokkos::View<double*, Mem> ring;
  int slot = -1;
  double convective = 1;  // stable_dt's factor of the convective limits
  KOKKOS_INLINE_FUNCTION double operator()() const {
    if (dt > 0) return dt;
    const auto m = vmax();
    return safety * stable_dt(double(m.max_val), -double(m.min_val), re, dx, dy, convective);
  }
};

// max |div u| over fluid cells, and the kinetic energy 1/2 sum |u|^2 dx dy
// (cell-centred velocities).
template <class ExecSpace, class F2, class Op>
void flow_norms(const ExecSpace& space, const Op& op, const F2& u, const F2& v, double& div,
                double& energy) {
  const double idx = 1 / op.grid.spacing(0), idy = 1 / op.grid.spacing(1);
  const double area = op.grid.spacing(0) * op.grid.spacing(1);
  linalg::grid_reduce<2>(
      space, "kflow::mac2d::flow_norms", op.grid, false,
      KOKKOS_LAMBDA(int i, int j, double& d, double& e) {
        if (!(op.mask(i, j) & mb::self)) return;
        const double dv = Kokkos::fabs((double(u(i, j)) - double(u(op.west(i), j))) * idx +
                                       (double(v(i, j)) - double(v(i, op.south(j)))) * idy);
        d = linalg::nan_as_inf(dv) > d ? linalg::nan_as_inf(dv) : d;
        const double uc = 0.5 * (double(u(i, j)) + double(u(i - 1, j)));
        const double vc = 0.5 * (double(v(i, j)) + double(v(i, j - 1)));
        e += 0.5 * (uc * uc + vc * vc) * area;
      },
      Kokkos::Max<double>(div), Kokkos::Sum<double>(energy));
}

}  // namespace kernels

namespace kernels {

// Initial velocity: uniform (optionally in a box, as the step's u = 1 in
// the upper half), or the Taylor-Green vortex u = sin x cos y,
// v = -cos x sin y scaled to the box.
template <class ExecSpace, class F2, class Flags>
void initialise(const ExecSpace& space, const Setup& s, const F2& u, const F2& v,
                const Flags& flags) {
  using Real = typename F2::value_type;
  const auto& g = s.grid;
  const double dx = g.spacing(0), dy = g.spacing(1), ox = g.origin[0], oy = g.origin[1];
  const double kx = 2 * pi / g.length[0], ky = 2 * pi / g.length[1];
  const bool tg = s.initial == Setup::Initial::taylor_green;
  const bool box = !s.init_box.empty();
  const double b0 = box ? s.init_box[0] : 0, b1 = box ? s.init_box[1] : 0,
               b2 = box ? s.init_box[2] : 0, b3 = box ? s.init_box[3] : 0;
  const double u0 = s.u0, v0 = s.v0;
  Kokkos::parallel_for(
      "kflow::mac2d::initialise", linalg::interior_policy<2>(space, g),
      KOKKOS_LAMBDA(int i, int j) {
        if (!(flags(i, j) & mb::self)) return;
        const double xc = ox + (i - 0.5) * dx, yc = oy + (j - 0.5) * dy;
        const double xu = ox + i * dx, yv = oy + j * dy;  // u and v positions
        if (tg) {
          u(i, j) = Real(Kokkos::sin(kx * (xu - ox)) * Kokkos::cos(ky * (yc - oy)));
          v(i, j) = Real(-kx / ky * Kokkos::cos(kx * (xc - ox)) * Kokkos::sin(ky * (yv - oy)));
          return;
        }
        const bool in = !box || (xc > b0 && xc < b1 && yc > b2 && yc < b3);
        if (in) {
          if (flags(i, j) & mb::east) u(i, j) = Real(u0);
          if (flags(i, j) & mb::north) v(i, j) = Real(v0);
        }
      });
}

template <class ExecSpace, class F2>
double taylor_green_error(const ExecSpace& space, const Setup& s, double t, const F2& u) {
  const auto& g = s.grid;
  const double dx = g.spacing(0), dy = g.spacing(1);
  const double kx = 2 * pi / g.length[0], ky = 2 * pi / g.length[1];
  const double decay = std::exp(-(kx * kx + ky * ky) / s.re * t);
  double e = 0;
  linalg::grid_reduce<2>(
      space, "kflow::mac2d::taylor_green_error", g, false,
      KOKKOS_LAMBDA(int i, int j, double& acc) {
        const double ex = Kokkos::sin(kx * i * dx) * Kokkos::cos(ky * (j - 0.5) * dy) * decay;
        const double d = Kokkos::fabs(double(u(i, j)) - ex);
        acc = d > acc ? d : acc;
      },
      Kokkos::Max<double>(e));
  return e;
}

}  // namespace kernels

}  // namespace kflow::mac2d
