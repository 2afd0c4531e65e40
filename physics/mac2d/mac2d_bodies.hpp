#pragma once
// The device kernels of physics/mac2d's bodies: the staircase walls' boundary
// values and forces (Griebel et al. 1998), the interpolated walls' face
// values and surface forces (mac2d_walls.cpp), the momentum balance around
// the bodies, and the pressure probes.

#include <Kokkos_Core.hpp>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/stencil.hpp"
#include "mac2d.hpp"

namespace kflow::mac2d::kernels {

namespace mb = linalg::mask_bits;

// Obstacle boundary cells (Griebel et al. 1998, sec. 3.1.3): the velocity on
// a face between an obstacle and a fluid cell is zero; a tangential value
// inside the obstacle mirrors the fluid value across the wall (no-slip).
// Faces shared by two obstacle cells may be written by both threads, always
// with the same value.
template <class ExecSpace, class F2, class Flags>
void obstacle_bc(const ExecSpace& space, const linalg::Grid& g, const F2& u, const F2& v,
                 const Flags& flags) {
  Kokkos::parallel_for(
      "kflow::mac2d::boundary_obstacles", linalg::interior_policy<2>(space, g),
      KOKKOS_LAMBDA(int i, int j) {
        if (flags(i, j) & mb::self) return;
        const bool n = flags(i, j + 1) & mb::self, s = flags(i, j - 1) & mb::self;
        const bool e = flags(i + 1, j) & mb::self, w = flags(i - 1, j) & mb::self;
        if (!(n || s || e || w)) return;
        if (n && e) {
          u(i, j) = 0, v(i, j) = 0;
          u(i - 1, j) = -u(i - 1, j + 1), v(i, j - 1) = -v(i + 1, j - 1);
        } else if (s && e) {
          u(i, j) = 0, v(i, j - 1) = 0;
          u(i - 1, j) = -u(i - 1, j - 1), v(i, j) = -v(i + 1, j);
        } else if (n && w) {
          u(i - 1, j) = 0, v(i, j) = 0;
          u(i, j) = -u(i, j + 1), v(i, j - 1) = -v(i - 1, j - 1);
        } else if (s && w) {
          u(i - 1, j) = 0, v(i, j - 1) = 0;
          u(i, j) = -u(i, j - 1), v(i, j) = -v(i - 1, j);
        } else if (n) {
          v(i, j) = 0;
          u(i, j) = -u(i, j + 1), u(i - 1, j) = -u(i - 1, j + 1);
        } else if (s) {
          v(i, j - 1) = 0;
          u(i, j) = -u(i, j - 1), u(i - 1, j) = -u(i - 1, j - 1);
        } else if (e) {
          u(i, j) = 0;
          v(i, j) = -v(i + 1, j), v(i, j - 1) = -v(i + 1, j - 1);
        } else {
          u(i - 1, j) = 0;
          v(i, j) = -v(i - 1, j), v(i, j - 1) = -v(i - 1, j - 1);
        }
      });
}

// Force on the obstacles (not the domain sides): pressure and wall shear
// on every face between a fluid cell and an obstacle cell,
//   F = sum over faces of ( -p n + nu d(u_t)/dn t ) dS,
// n the body's outward normal, the pressure of the fluid cell and the shear
// from its tangential velocity half a cell from the wall (first order on
// the staircase boundary).  nu = 1/Re.
template <class ExecSpace, class F2, class Op>
void obstacle_force(const ExecSpace& space, const Op& op, double inv_re, const F2& u, const F2& v,
                    const F2& p, double& fx, double& fy) {
  const double dx = op.grid.spacing(0), dy = op.grid.spacing(1);
  const int nx = op.grid.cells[0], ny = op.grid.cells[1];
  linalg::grid_reduce<2>(
      space, "kflow::mac2d::obstacle_force", op.grid, false,
      KOKKOS_LAMBDA(int i, int j, double& ax, double& ay) {
        if (!(op.mask(i, j) & mb::self)) return;
        const double pc = double(p(i, j));
        const double uc = 0.5 * (double(u(i, j)) + double(u(i - 1, j)));
        const double vc = 0.5 * (double(v(i, j)) + double(v(i, j - 1)));
        auto solid = [&](int a, int b) {
          return a >= 1 && a <= nx && b >= 1 && b <= ny && !(op.mask(a, b) & mb::self);
        };
        if (solid(i + 1, j)) ax += pc * dy, ay += 2 * inv_re * vc / dx * dy;
        if (solid(i - 1, j)) ax -= pc * dy, ay += 2 * inv_re * vc / dx * dy;
        if (solid(i, j + 1)) ay += pc * dx, ax += 2 * inv_re * uc / dy * dx;
        if (solid(i, j - 1)) ay -= pc * dx, ax += 2 * inv_re * uc / dy * dx;
      },
      Kokkos::Sum<double>(fx), Kokkos::Sum<double>(fy));
}

// Interpolated walls (mac2d_walls.cpp): each face next to a body takes
// w q(partner) + w2 q(partner2), every partner read before any face is
// written (a partner may be such a face too).  q: one velocity component.
template <class ExecSpace, class F2, class Index, class Weights>
void wall_values(const ExecSpace& space, const F2& q, const Index& face, const Index& partner,
                 const Weights& weight, const Index& partner2, const Weights& weight2,
                 const Weights& value) {
  using Real = typename F2::value_type;
  const int n = int(face.extent(0)), ex = int(q.extent(0));
  if (n == 0) return;
  Kokkos::parallel_for(
      "kflow::mac2d::wall_values_read", linalg::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int k) {
        const int p = partner(k), r = partner2(k);
        value(k) = Real(weight(k) * q(p % ex, p / ex) + weight2(k) * q(r % ex, r / ex));
      });
  Kokkos::parallel_for(
      "kflow::mac2d::wall_values", linalg::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int k) {
        const int f = face(k);
        q(f % ex, f / ex) = value(k);
      });
}

// Bilinear interpolation of a staggered field q at (x, y): q(i, j) lies at
// origin + ((i - si) hx, (j - sj) hy) (p: si = sj = 1/2; u: si = 0,
// sj = 1/2; v: si = 1/2, sj = 0); points beyond the stored values take the
// nearest ones.
template <class F2>
KOKKOS_INLINE_FUNCTION double staggered_at(const F2& q, double x, double y, double ox, double oy,
                                           double hx, double hy, double si, double sj) {
  const double a = (x - ox) / hx + si, b = (y - oy) / hy + sj;
  const int ni = int(q.extent(0)), nj = int(q.extent(1));
  int i = int(Kokkos::floor(a)), j = int(Kokkos::floor(b));
  i = i < 0 ? 0 : i > ni - 2 ? ni - 2 : i;
  j = j < 0 ? 0 : j > nj - 2 ? nj - 2 : j;
  const double fa = Kokkos::fmin(1.0, Kokkos::fmax(0.0, a - i)),
               fb = Kokkos::fmin(1.0, Kokkos::fmax(0.0, b - j));
  return (1 - fa) * (1 - fb) * double(q(i, j)) + fa * (1 - fb) * double(q(i + 1, j)) +
         (1 - fa) * fb * double(q(i, j + 1)) + fa * fb * double(q(i + 1, j + 1));
}

// Force on the bodies' true surface (interpolated walls): over the pieces
// of the surface (SurfacePiece: midpoint x, unit normal n out of the body,
// length dS),
//   F = sum ( -p_w n + nu du/dn ) dS,
// p_w the pressure extrapolated linearly to the wall from 1.5 and 3 cells
// along the normal, du/dn the velocity's normal derivative at the wall from
// the quadratic through the wall's 0 and those two points (second order;
// for a wall at rest the viscous traction is nu du/dn).  nu = 1/Re.  (The
// nearer points of 1 and 2 cells reach into the body's cells; 2 and 4 cells
// move c_D at D = 20 cells by 0.15 %.)
template <class ExecSpace, class F2, class Pieces>
void surface_force(const ExecSpace& space, const linalg::Grid& g, double inv_re, const F2& u,
                   const F2& v, const F2& p, const Pieces& pieces, double& fx, double& fy) {
  const double hx = g.spacing(0), hy = g.spacing(1), ox = g.origin[0], oy = g.origin[1];
  const double h = hx < hy ? hx : hy, d1 = 1.5 * h;
  Kokkos::parallel_reduce(
      "kflow::mac2d::surface_force",
      linalg::RangePolicy<ExecSpace>(space, 0, int(pieces.extent(0))),
      KOKKOS_LAMBDA(int k, double& ax, double& ay) {
        const double x = pieces(k, 0), y = pieces(k, 1), nx = pieces(k, 2), ny = pieces(k, 3);
        const double ds = pieces(k, 4);
        double pr[2], ur[2], vr[2];
        for (int m = 0; m < 2; ++m) {
          const double px = x + (m + 1) * d1 * nx, py = y + (m + 1) * d1 * ny;
          pr[m] = staggered_at(p, px, py, ox, oy, hx, hy, 0.5, 0.5);
          ur[m] = staggered_at(u, px, py, ox, oy, hx, hy, 0.0, 0.5);
          vr[m] = staggered_at(v, px, py, ox, oy, hx, hy, 0.5, 0.0);
        }
        const double pw = 2 * pr[0] - pr[1];
        const double dudn = (4 * ur[0] - ur[1]) / (2 * d1), dvdn = (4 * vr[0] - vr[1]) / (2 * d1);
        ax += (-pw * nx + inv_re * dudn) * ds;
        ay += (-pw * ny + inv_re * dvdn) * ds;
      },
      Kokkos::Sum<double>(fx), Kokkos::Sum<double>(fy));
}

// The force on the bodies from the momentum balance of a control volume
// around them (Setup::force_box: the box between the cell-centre lines i0,
// i1, j0, j1, every cell on them and beside them fluid):
//   F = -d/dt int u dA - sum over the box's sides ( u (u.n) + p n - tau n ) dS,
// n out of the box, tau = nu (grad u + grad u^T) by central differences of
// the cell-centred velocities, the sides by the trapezoidal rule.  It is
// the momentum the discrete flow gives the bodies, whatever the wall
// treatment (docs/models/mac2d.md: DFG 2D-1's drag within 0.6 % at D = 20
// cells, where integrals over the surface miss 7 %).
// The cell-centred velocity of cell (i, j).
template <class F2>
KOKKOS_INLINE_FUNCTION double centre_u(const F2& u, int i, int j) {
  return 0.5 * (double(u(i, j)) + double(u(i - 1, j)));
}
template <class F2>
KOKKOS_INLINE_FUNCTION double centre_v(const F2& v, int i, int j) {
  return 0.5 * (double(v(i, j)) + double(v(i, j - 1)));
}
template <class ExecSpace, class F2>
void box_flux(const ExecSpace& space, const linalg::Grid& g, double nu, const F2& u, const F2& v,
              const F2& p, const int (&box)[4], double& fx, double& fy) {
  const double hx = g.spacing(0), hy = g.spacing(1);
  const int i0 = box[0], i1 = box[1], j0 = box[2], j1 = box[3];
  const int ni = i1 - i0 + 1, nj = j1 - j0 + 1;
  Kokkos::parallel_reduce(
      "kflow::mac2d::box_flux", linalg::RangePolicy<ExecSpace>(space, 0, 2 * (ni + nj)),
      KOKKOS_LAMBDA(int k, double& ax, double& ay) {
        int i, j, nxs = 0, nys = 0;
        double w;
        if (k < 2 * nj) {  // the west and east sides
          i = k < nj ? i0 : i1, j = j0 + k % nj, nxs = k < nj ? -1 : 1;
          w = hy * (j == j0 || j == j1 ? 0.5 : 1.0);
        } else {  // the south and north sides
          k -= 2 * nj;
          j = k < ni ? j0 : j1, i = i0 + k % ni, nys = k < ni ? -1 : 1;
          w = hx * (i == i0 || i == i1 ? 0.5 : 1.0);
        }
        const double a = centre_u(u, i, j), b = centre_v(v, i, j), pc = double(p(i, j));
        const double dudx = (centre_u(u, i + 1, j) - centre_u(u, i - 1, j)) / (2 * hx),
                     dudy = (centre_u(u, i, j + 1) - centre_u(u, i, j - 1)) / (2 * hy),
                     dvdx = (centre_v(v, i + 1, j) - centre_v(v, i - 1, j)) / (2 * hx),
                     dvdy = (centre_v(v, i, j + 1) - centre_v(v, i, j - 1)) / (2 * hy);
        const double un = a * nxs + b * nys;
        const double txx = 2 * nu * dudx, tyy = 2 * nu * dvdy, txy = nu * (dudy + dvdx);
        ax -= (a * un + pc * nxs - (txx * nxs + txy * nys)) * w;
        ay -= (b * un + pc * nys - (txy * nxs + tyy * nys)) * w;
      },
      Kokkos::Sum<double>(fx), Kokkos::Sum<double>(fy));
}
// The momentum int u dA of the box's fluid cells (trapezoidal weights on
// its sides), into m(2 slot), m(2 slot + 1) on the device: the time
// derivative of the balance at a log row from the last two steps, without a
// host synchronisation in the steps.
template <class ExecSpace, class F2, class Mask, class M>
void box_momentum(const ExecSpace& space, const linalg::Grid& g, const F2& u, const F2& v,
                  const Mask& mask, const int (&box)[4], const M& m, int slot) {
  const double area = g.spacing(0) * g.spacing(1);
  const int i0 = box[0], i1 = box[1], j0 = box[2], j1 = box[3], ni = i1 - i0 + 1;
  Kokkos::parallel_reduce(
      "kflow::mac2d::box_momentum", linalg::RangePolicy<ExecSpace>(space, 0, ni * (j1 - j0 + 1)),
      KOKKOS_LAMBDA(int k, double& ax, double& ay) {
        const int i = i0 + k % ni, j = j0 + k / ni;
        if (!(mask(i, j) & mb::self)) return;
        const double w = area * (i == i0 || i == i1 ? 0.5 : 1.0) * (j == j0 || j == j1 ? 0.5 : 1.0);
        ax += w * 0.5 * (double(u(i, j)) + double(u(i - 1, j)));
        ay += w * 0.5 * (double(v(i, j)) + double(v(i, j - 1)));
      },
      Kokkos::Sum<double, typename M::memory_space>(Kokkos::subview(m, 2 * slot)),
      Kokkos::Sum<double, typename M::memory_space>(Kokkos::subview(m, 2 * slot + 1)));
}
// The dt of the step about to run (as compute_fg_rhs takes it) into dts(slot).
template <class ExecSpace, class Dt, class M>
void record_dt(const ExecSpace& space, const Dt& step_dt, const M& dts, int slot) {
  Kokkos::parallel_for(
      "kflow::mac2d::box_dt", linalg::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(int) { dts(slot) = step_dt(); });
}

// The two points of analysis.pressure_probes as the set-up placed them
// (mac2d_walls.cpp): p read bilinearly at (x, y), or, for a point on or
// next to a body's wall (extrapolate), extrapolated to (x, y) on the wall
// from 1.5 and 3 cells along the normal n, as the surface force does.
struct ProbePoints {
  double x[2], y[2], nx[2], ny[2];
  int extrapolate[2];
};
// p(a) - p(b).
template <class ExecSpace, class F2>
double probe_difference(const ExecSpace& space, const linalg::Grid& g, const F2& p,
                        const ProbePoints& pp) {
  const double hx = g.spacing(0), hy = g.spacing(1), ox = g.origin[0], oy = g.origin[1];
  const double d1 = 1.5 * (hx < hy ? hx : hy);
  double dp = 0;
  Kokkos::parallel_reduce(
      "kflow::mac2d::pressure_probes", linalg::RangePolicy<ExecSpace>(space, 0, 2),
      KOKKOS_LAMBDA(int k, double& acc) {
        double v;
        if (pp.extrapolate[k]) {
          const double p1 = staggered_at(p, pp.x[k] + d1 * pp.nx[k], pp.y[k] + d1 * pp.ny[k], ox,
                                         oy, hx, hy, 0.5, 0.5);
          const double p2 = staggered_at(p, pp.x[k] + 2 * d1 * pp.nx[k],
                                         pp.y[k] + 2 * d1 * pp.ny[k], ox, oy, hx, hy, 0.5, 0.5);
          v = 2 * p1 - p2;
        } else {
          v = staggered_at(p, pp.x[k], pp.y[k], ox, oy, hx, hy, 0.5, 0.5);
        }
        acc += k == 0 ? v : -v;
      },
      dp);
  return dp;
}

}  // namespace kflow::mac2d::kernels
