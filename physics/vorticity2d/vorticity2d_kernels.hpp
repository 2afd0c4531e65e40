#pragma once
// The device kernels of physics/vorticity2d: the parameters they take by
// value, the face velocities from psi, the convection schemes (upwind, TVD),
// the boundary-ring vorticity and temperature, and the right-hand sides of
// the psi, omega and T systems.

#include <Kokkos_Core.hpp>

#include <cmath>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/reduce.hpp"
#include "limiter.hpp"
#include "vorticity2d.hpp"

namespace kflow::vorticity2d {

// What the kernels need, by value on the device.
template <class Real>
struct Params {
  int nx = 1, ny = 1;
  Real hx = 1, hy = 1;
  int kind[4] = {0, 0, 0, 0};     // Kind per side
  int thermal[4] = {0, 0, 0, 0};  // Thermal per side
  Real tfix[4] = {0, 0, 0, 0};
  int wall_vorticity = 0;
  int convection = 0;
  bool heat = false;
  Real buoyancy = 0;
};

namespace kernels {

// Face velocities of node (i, j) from psi: u on the east and west faces, v on
// the north and south faces, each the mean of the four staggered values
// around it (thesis Abb. 8): discretely divergence-free.
template <class Real, class F2>
struct Faces {
  Real ue, uw, vn, vs;
  KOKKOS_INLINE_FUNCTION Faces(const F2& psi, int i, int j, Real hx, Real hy) {
    const Real qy = Real(0.25) / hy, qx = Real(0.25) / hx;
    const Real a = psi(i, j + 1) - psi(i, j - 1);
    ue = (a + psi(i + 1, j + 1) - psi(i + 1, j - 1)) * qy;
    uw = (psi(i - 1, j + 1) - psi(i - 1, j - 1) + a) * qy;
    const Real b = psi(i + 1, j) - psi(i - 1, j);
    vn = -(b + psi(i + 1, j + 1) - psi(i - 1, j + 1)) * qx;
    vs = -(psi(i + 1, j - 1) - psi(i - 1, j - 1) + b) * qx;
  }
};

// c . grad zeta at node (i, j).  Upwind: the thesis's eq. (18) in its
// self-consistent form (its sec. 3.1.2: the printed last line has sign
// errors).  TVD: the flux form with van Leer-limited face values (first
// order where the second upwind node lies beyond the ring), minus
// zeta_P div_h (0 up to rounding), so both share the same upwind limit.
template <class Real, class F2>
KOKKOS_INLINE_FUNCTION Real convection(const Params<Real>& m, const Faces<Real, F2>& f, const F2& z,
                                       int i, int j) {
  const Real zp = z(i, j), zw = z(i - 1, j), ze = z(i + 1, j), zs = z(i, j - 1), zn = z(i, j + 1);
  if (m.convection == int(Convection::upwind)) {
    const Real cx =
        Kokkos::fmax(f.uw, Real(0)) * (zp - zw) + Kokkos::fmin(f.ue, Real(0)) * (ze - zp);
    const Real cy =
        Kokkos::fmax(f.vs, Real(0)) * (zp - zs) + Kokkos::fmin(f.vn, Real(0)) * (zn - zp);
    return cx / m.hx + cy / m.hy;
  }
  const int nx = m.nx, ny = m.ny;
  // Face value between lo (index k) and hi (k + 1) along one axis, velocity w.
  auto face = [&](Real w, Real lo, Real hi, Real far_lo, Real far_hi, bool has_lo, bool has_hi) {
    if (w >= 0) return has_lo ? limiter::face_value(far_lo, lo, hi) : lo;
    return has_hi ? limiter::face_value(far_hi, hi, lo) : hi;
  };
  const Real fe =
      f.ue * face(f.ue, zp, ze, zw, i + 2 <= nx + 1 ? z(i + 2, j) : ze, true, i + 2 <= nx + 1);
  const Real fw = f.uw * face(f.uw, zw, zp, i - 2 >= 0 ? z(i - 2, j) : zw, ze, i - 2 >= 0, true);
  const Real fn =
      f.vn * face(f.vn, zp, zn, zs, j + 2 <= ny + 1 ? z(i, j + 2) : zn, true, j + 2 <= ny + 1);
  const Real fs = f.vs * face(f.vs, zs, zp, j - 2 >= 0 ? z(i, j - 2) : zs, zn, j - 2 >= 0, true);
  const Real div = (f.ue - f.uw) / m.hx + (f.vn - f.vs) / m.hy;
  return (fe - fw) / m.hx + (fn - fs) / m.hy - zp * div;
}

// Right-hand side of the stream-function equation lap psi = -omega, with the
// known ring values of the Dirichlet sides moved over (outflow: folded into
// the operator as a zero normal gradient).
template <class ExecSpace, class F2>
void rhs_psi(const ExecSpace& space, const linalg::Grid& g,
             const Params<typename F2::value_type>& m, const F2& psi, const F2& omega,
             const F2& b) {
  using Real = typename F2::value_type;
  const Real cx = Real(1) / (m.hx * m.hx), cy = Real(1) / (m.hy * m.hy);
  const bool open[4] = {m.kind[0] == int(Kind::outflow), m.kind[1] == int(Kind::outflow),
                        m.kind[2] == int(Kind::outflow), m.kind[3] == int(Kind::outflow)};
  const bool ow = open[0], oe = open[1], os = open[2], on = open[3];
  linalg::interior_for<2>(
      space, "kflow::vorticity2d::rhs_psi", g, KOKKOS_LAMBDA(int i, int j) {
        Real r = -omega(i, j);
        if (i == 1 && !ow) r -= cx * psi(0, j);
        if (i == m.nx && !oe) r -= cx * psi(m.nx + 1, j);
        if (j == 1 && !os) r -= cy * psi(i, 0);
        if (j == m.ny && !on) r -= cy * psi(i, m.ny + 1);
        b(i, j) = r;
      });
}

// The boundary ring after the psi solve: vorticity on walls and inflows
// (thesis, Thom or Woods), copies on the outflow side; zero-gradient copies
// of T (called after the T solve as well: `which` 1 psi/omega, 2 T).
//   Thom:   omega_0 = -2 (psi_1 - psi_0 - h psi_n) / h^2 - psi_tt,0
//   thesis: omega_0 = -(psi_1 - psi_0 - h psi_n) / h^2 - psi_tt,0  (half of
//           Thom's normal part: the thesis's sec. 3.2, derived)
//   Woods:  omega_0 = -3 (psi_1 - psi_0 - h psi_n) / h^2 - omega_1 / 2
//           - psi_tt,1 / 2 - psi_tt,0   (second order)
// psi_n: the inward normal derivative (the wall's tangential velocity);
// psi_tt: second derivative along the side (0 on straight walls).
template <class ExecSpace, class F2, class N>
void ring(const ExecSpace& space, const Params<typename F2::value_type>& m, const N& psin,
          const F2& psi, const F2& omega, const F2& temp, int which) {
  using Real = typename F2::value_type;
  const int nmax = Kokkos::max(m.nx, m.ny);
  // The outflow side's copies first, in their own kernel: the wall formulas
  // of the sides next to it read its ring values (psi_tt at the last node).
  bool outflow = false;
  for (int sd = 0; sd < 4; ++sd) outflow = outflow || m.kind[sd] == int(Kind::outflow);
  if (which == 1 && outflow)
    Kokkos::parallel_for(
        "kflow::vorticity2d::ring_outflow", linalg::RangePolicy<ExecSpace>(space, 1, nmax + 1),
        KOKKOS_LAMBDA(int k) {
          for (int sd = 0; sd < 4; ++sd) {
            if (m.kind[sd] != int(Kind::outflow) || k > (sd < 2 ? m.ny : m.nx)) continue;
            const int i0 = sd == 0 ? 0 : sd == 1 ? m.nx + 1 : k;
            const int j0 = sd == 2 ? 0 : sd == 3 ? m.ny + 1 : k;
            const int i1 = i0 + (sd == 0 ? 1 : sd == 1 ? -1 : 0);
            const int j1 = j0 + (sd == 2 ? 1 : sd == 3 ? -1 : 0);
            psi(i0, j0) = psi(i1, j1);
            omega(i0, j0) = omega(i1, j1);
          }
        });
  Kokkos::parallel_for(
      "kflow::vorticity2d::ring", linalg::RangePolicy<ExecSpace>(space, 1, nmax + 1),
      KOKKOS_LAMBDA(int k) {
        for (int sd = 0; sd < 4; ++sd) {
          const int n = sd < 2 ? m.ny : m.nx;
          if (k > n) continue;
          // ring node (i0, j0), first and second interior nodes, tangent step
          const int i0 = sd == 0 ? 0 : sd == 1 ? m.nx + 1 : k;
          const int j0 = sd == 2 ? 0 : sd == 3 ? m.ny + 1 : k;
          const int di = sd == 0 ? 1 : sd == 1 ? -1 : 0, dj = sd == 2 ? 1 : sd == 3 ? -1 : 0;
          const int ti = sd < 2 ? 0 : 1, tj = sd < 2 ? 1 : 0;
          const int i1 = i0 + di, j1 = j0 + dj;
          if (which == 2) {
            if (m.heat && m.thermal[sd] == int(Thermal::adiabatic)) temp(i0, j0) = temp(i1, j1);
            continue;
          }
          if (m.kind[sd] == int(Kind::outflow)) continue;  // ring_outflow
          const Real hn = sd < 2 ? m.hx : m.hy, ht = sd < 2 ? m.hy : m.hx;
          const Real d = psi(i1, j1) - psi(i0, j0) - hn * Real(psin(k, sd));
          const Real tt0 =
              (psi(i0 + ti, j0 + tj) - 2 * psi(i0, j0) + psi(i0 - ti, j0 - tj)) / (ht * ht);
          Real w;
          if (m.wall_vorticity == int(WallVorticity::thesis)) {
            w = -d / (hn * hn) - tt0;
          } else if (m.wall_vorticity == int(WallVorticity::thom)) {
            w = -2 * d / (hn * hn) - tt0;
          } else {
            const Real tt1 =
                (psi(i1 + ti, j1 + tj) - 2 * psi(i1, j1) + psi(i1 - ti, j1 - tj)) / (ht * ht);
            w = -3 * d / (hn * hn) - omega(i1, j1) / 2 - tt1 / 2 - tt0;
          }
          omega(i0, j0) = w;
        }
      });
}

// Right-hand sides of the omega and T systems (I - dt k lap) z = b:
//   b = z - dt c.grad z (+ dt C dT/dx for omega) + dt k / h^2 (Dirichlet ring)
// The buoyancy term is the central difference (T_E - T_W) / 2h with the sign
// of eq. (9) (the thesis's printed T_D has it reversed).
template <class ExecSpace, class F2>
void rhs_transport(const ExecSpace& space, const linalg::Grid& g,
                   const Params<typename F2::value_type>& m, double dt, double nu, double kappa,
                   const F2& psi, const F2& omega, const F2& temp, const F2& bw, const F2& bt) {
  using Real = typename F2::value_type;
  const Real rdt = Real(dt);
  const Real wx = Real(dt * nu) / (m.hx * m.hx), wy = Real(dt * nu) / (m.hy * m.hy);
  const Real kx = Real(dt * kappa) / (m.hx * m.hx), ky = Real(dt * kappa) / (m.hy * m.hy);
  const Real cb = Real(dt) * m.buoyancy / (2 * m.hx);
  linalg::interior_for<2>(
      space, "kflow::vorticity2d::rhs_transport", g, KOKKOS_LAMBDA(int i, int j) {
        const Faces<Real, F2> f(psi, i, j, m.hx, m.hy);
        // ring terms: omega is Dirichlet on every side but an outflow; T on
        // its fixed sides
        auto ring_terms = [&](const F2& z, Real cx, Real cy, bool temperature) {
          Real r = 0;
          auto dir = [&](int sd) {
            return temperature ? m.thermal[sd] == int(Thermal::fixed)
                               : m.kind[sd] != int(Kind::outflow);
          };
          if (i == 1 && dir(0)) r += cx * z(0, j);
          if (i == m.nx && dir(1)) r += cx * z(m.nx + 1, j);
          if (j == 1 && dir(2)) r += cy * z(i, 0);
          if (j == m.ny && dir(3)) r += cy * z(i, m.ny + 1);
          return r;
        };
        Real w =
            omega(i, j) - rdt * convection(m, f, omega, i, j) + ring_terms(omega, wx, wy, false);
        if (m.buoyancy != 0) w += cb * (temp(i + 1, j) - temp(i - 1, j));
        bw(i, j) = w;
        if (m.heat)
          bt(i, j) =
              temp(i, j) - rdt * convection(m, f, temp, i, j) + ring_terms(temp, kx, ky, true);
      });
}

// max over the nodes of max(|u_e|, |u_w|) / hx + max(|v_n|, |v_s|) / hy (the
// explicit convection limit: dt times it <= 1), and max |u|, max |v| of the faces.
template <class ExecSpace, class F2>
void velocity_bounds(const ExecSpace& space, const linalg::Grid& g,
                     const Params<typename F2::value_type>& m, const F2& psi, double& rate,
                     double& umax, double& vmax) {
  using Real = typename F2::value_type;
  linalg::grid_reduce<2>(
      space, "kflow::vorticity2d::velocity_bounds", g, false,
      KOKKOS_LAMBDA(int i, int j, double& r, double& a, double& b) {
        const Faces<Real, F2> f(psi, i, j, m.hx, m.hy);
        const double u = Kokkos::fmax(Kokkos::fabs(double(f.ue)), Kokkos::fabs(double(f.uw)));
        const double v = Kokkos::fmax(Kokkos::fabs(double(f.vn)), Kokkos::fabs(double(f.vs)));
        const double c = linalg::nan_as_inf(u / double(m.hx) + v / double(m.hy));
        r = c > r ? c : r;
        a = u > a ? u : a;
        b = v > b ? v : b;
      },
      Kokkos::Max<double>(rate), Kokkos::Max<double>(umax), Kokkos::Max<double>(vmax));
}

// psi's initial guess for the next solve, psi + r (psi - prev) with r the
// ratio of the new step to the last (0 on the first step), on the interior;
// prev becomes the last step's psi.
template <class ExecSpace, class F2>
void extrapolate(const ExecSpace& space, const linalg::Grid& g, const F2& psi, const F2& prev,
                 typename F2::value_type r) {
  using Real = typename F2::value_type;
  linalg::interior_for<2>(
      space, "kflow::vorticity2d::extrapolate", g, KOKKOS_LAMBDA(int i, int j) {
        const Real now = psi(i, j);
        psi(i, j) = now + r * (now - prev(i, j));
        prev(i, j) = now;
      });
}

}  // namespace kernels

}  // namespace kflow::vorticity2d
