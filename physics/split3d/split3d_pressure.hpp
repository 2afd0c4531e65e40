#pragma once
// physics/split3d: the projection (not the paper's; `[physics] projection`):
// its operator, right-hand side and correction, and the output field
// `pressure` (docs/models/split3d.md, "Pressure"), computed on the host from
// host copies.  Approximate (compact Laplacian, central gradient), not exact,
// by decision (docs/models/split3d.md, "An exact projection: not built").

#include <cstddef>
#include <vector>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/stencil7.hpp"
#include "split3d.hpp"
#include "split3d_kernels.hpp"

namespace kflow::split3d {

// The projection's operator on the interior nodes: the 7-point Laplacian,
// zero normal gradient of phi at walls, inflows and obstacles (the
// neighbour's coefficient folded into the diagonal), phi = 0 at outflows,
// wrapped round periodic axes; obstacle nodes are not in the system
// (c.p = 0).  Assembled on the host from the set-up; e: the nodes along
// each axis, boundary nodes included (Params::e).  In double in both
// precisions (Model::PF3).
template <class ExecSpace>
linalg::Stencil7<double, typename ExecSpace::memory_space> projection_operator(
    const ExecSpace& space, const Setup& s, const int (&e)[3]) {
  using F3 = linalg::Field3<double, typename ExecSpace::memory_space>;
  const auto& g = s.nodes;
  linalg::Stencil7<double, typename ExecSpace::memory_space> op;
  F3 c[7];
  Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace> h[7];
  for (int q = 0; q < 7; ++q) {
    c[q] = linalg::make_field<double, 3>(space, "kflow::split3d::phi_op", g);
    h[q] = Kokkos::create_mirror_view(Kokkos::HostSpace(), c[q]);
    Kokkos::deep_copy(h[q], 0.0);
  }
  auto solid = [&](int i, int j, int k) {
    return !s.solid.empty() &&
           s.solid[std::size_t(i) + std::size_t(e[0]) * (j + std::size_t(e[1]) * k)];
  };
  for (int k = 1; k < e[2] - 1; ++k)
    for (int j = 1; j < e[1] - 1; ++j)
      for (int i = 1; i < e[0] - 1; ++i) {
        if (solid(i, j, k)) continue;
        double cp = 0;
        const int x[3] = {i, j, k};
        for (int d = 0; d < 3; ++d)
          for (int side = 0; side < 2; ++side) {
            int y[3] = {i, j, k};
            y[d] += side ? 1 : -1;
            const double cf = 1 / (s.nodes.spacing(d) * s.nodes.spacing(d));
            double coef = 0;
            if (s.periodic[d] && (y[d] == 0 || y[d] == e[d] - 1))
              y[d] = y[d] == 0 ? e[d] - 2 : 1;  // round the loop (Stencil7 wraps there too)
            if (y[d] == 0 || y[d] == e[d] - 1) {
              if (s.side[2 * d + side].kind == Kind::outflow) cp -= cf;  // phi = 0 there
            } else if (!solid(y[0], y[1], y[2])) {
              coef = cf, cp -= cf;
            }
            h[1 + 2 * d + side](x[0], x[1], x[2]) = coef;
          }
        h[0](i, j, k) = cp;
      }
  for (int q = 0; q < 7; ++q) Kokkos::deep_copy(space, c[q], h[q]);
  op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4], op.cb = c[5];
  op.ct = c[6];
  op.grid = g;
  linalg::set_neighbours(op, g, s.periodic[0], s.periodic[1], s.periodic[2]);
  return op;
}

// T + phi on every node (T alone where phi is empty: no projection).  phi is
// first filtered by (1, 2, 1)/4 along each axis on the interior fluid nodes,
// the neighbours by project's rules (across a wall, inflow or obstacle phi_P,
// across an outflow 0, periodic axes wrapped): it removes the odd-even mode
// that the central gradient, and so the velocity, does not see.  A boundary
// node takes phi's boundary rule (its interior neighbour's phi, 0 on an
// outflow face), a periodic ghost the node it copies, an obstacle node T
// alone.  solid: Setup::solid (empty without obstacles).
template <class Real>
std::vector<double> pressure_field(const Params<Real>& p, const std::vector<unsigned char>& solid,
                                   std::vector<double> t, std::vector<double> phi) {
  if (phi.empty()) return t;
  const int* e = p.e;
  auto idx = [&](const int(&a)[3]) {
    return std::size_t(a[0]) + std::size_t(e[0]) * (std::size_t(a[1]) + std::size_t(e[1]) * a[2]);
  };
  auto is_solid = [&](std::size_t m) {
    return !solid.empty() && solid[m] != 0;
  };
  std::vector<double> out = phi;
  for (int d = 0; d < 3; ++d) {
    int a[3];
    for (a[2] = 1; a[2] < e[2] - 1; ++a[2])
      for (a[1] = 1; a[1] < e[1] - 1; ++a[1])
        for (a[0] = 1; a[0] < e[0] - 1; ++a[0]) {
          const std::size_t m = idx(a);
          if (is_solid(m)) continue;
          double nb[2];
          for (int side = 0; side < 2; ++side) {
            int b[3] = {a[0], a[1], a[2]};
            b[d] += side ? 1 : -1;
            if (p.periodic[d] && (b[d] == 0 || b[d] == e[d] - 1))
              b[d] = b[d] == 0 ? e[d] - 2 : 1;  // round the loop
            if (b[d] == 0 || b[d] == e[d] - 1)
              nb[side] = p.row[2 * d + side][0] == zero_gradient ? 0.0 : phi[m];
            else
              nb[side] = is_solid(idx(b)) ? phi[m] : phi[idx(b)];
          }
          out[m] = 0.25 * (nb[0] + 2 * phi[m] + nb[1]);
        }
    phi.swap(out);
  }
  int a[3];
  for (a[2] = 0; a[2] < e[2]; ++a[2])
    for (a[1] = 0; a[1] < e[1]; ++a[1])
      for (a[0] = 0; a[0] < e[0]; ++a[0]) {
        const std::size_t m = idx(a);
        if (is_solid(m)) continue;  // no phi: T alone
        int b[3] = {a[0], a[1], a[2]};
        bool outflow = false;  // phi's Dirichlet side (0)
        for (int d = 0; d < 3; ++d) {
          const int last = e[d] - 1;
          if (b[d] > 0 && b[d] < last) continue;
          if (p.periodic[d])  // a ghost: the node it copies
            b[d] = b[d] == 0 ? last - 1 : 1;
          else {  // a boundary node: phi's boundary rule (project)
            outflow = outflow || p.row[2 * d + (b[d] == last)][0] == zero_gradient;
            b[d] = b[d] == 0 ? 1 : last - 1;
          }
        }
        if (!outflow) t[m] += phi[idx(b)];
      }
  return t;
}

// The projection option (not the paper's): b = div_h u* / dt on the interior
// fluid nodes (central differences, boundary nodes included), 0 elsewhere;
// b in double (the divergence in the run's precision).  With interpolated
// walls (cut: the link fractions in the model's frame, empty otherwise) a
// node beside a body differentiates on the three points -q_lo h, 0, q_hi h,
// the wall's velocity 0 at the body's node, as its momentum rows do.
template <class ExecSpace, class Real, class Mem>
void projection_rhs(const ExecSpace& space, const Params<Real>& p, const Vars<Real, Mem>& s,
                    const Mask<Mem>& solid, double dt, const linalg::Field3<double, Mem>& b,
                    const Cut<Mem> (&cut)[3]) {
  const bool masked = solid.data() != nullptr, cuts = cut[0].lo.data() != nullptr;
  int lo[3], hi[3];
  interior_box(p, lo, hi);
  linalg::box_for(
      space, "kflow::split3d::projection_rhs", lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        Real div = 0;
        const long m = i + long(p.e[0]) * (j + long(p.e[1]) * k);
        for (int d = 0; d < 3; ++d) {
          const Real qa = cuts ? Real(cut[d].lo(m)) : Real(1),
                     qb = cuts ? Real(cut[d].hi(m)) : Real(1);
          if (qa == Real(1) && qb == Real(1)) {
            div += ddx(s.q[d], d, p.rh[d], i, j, k);
          } else {  // the wall at qa h below or qb h above: three points on unequal spacings
            const int di = d == 0, dj = d == 1, dk = d == 2;
            const Real ul = s.q[d](i - di, j - dj, k - dk), uc = s.q[d](i, j, k),
                       uh = s.q[d](i + di, j + dj, k + dk), sab = qa + qb;
            div += 2 * p.rh[d] *
                   (-qb / (qa * sab) * ul + (qb - qa) / (qa * qb) * uc + qa / (qb * sab) * uh);
          }
        }
        b(i, j, k) = masked && solid(i, j, k) ? 0.0 : double(div) / dt;
      });
}

// u -= dt grad_h phi on the interior fluid nodes, central differences; across
// a wall, an inflow or an obstacle the neighbour's phi is phi_P (zero normal
// gradient), across an outflow 0 (phi's Dirichlet side); periodic axes wrap.
// The correction in double, rounded once to the run's precision.
template <class ExecSpace, class Real, class Mem>
void project(const ExecSpace& space, const Params<Real>& p, const Vars<Real, Mem>& s,
             const Mask<Mem>& solid, const linalg::Field3<double, Mem>& phi, double dt) {
  const bool masked = solid.data() != nullptr;
  int lo[3], hi[3];
  interior_box(p, lo, hi);
  linalg::box_for(
      space, "kflow::split3d::project", lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        if (masked && solid(i, j, k)) return;
        const double c = phi(i, j, k);
        for (int d = 0; d < 3; ++d) {
          const int di = d == 0, dj = d == 1, dk = d == 2;
          double nb[2];
          for (int side = 0; side < 2; ++side) {
            const int sg = side ? 1 : -1;
            int a = i + sg * di, b = j + sg * dj, e = k + sg * dk;
            int& at = d == 0 ? a : d == 1 ? b : e;
            if (p.periodic[d] && (at == 0 || at == p.e[d] - 1))
              at = at == 0 ? p.e[d] - 2 : 1;  // round the loop
            if (at == 0 || at == p.e[d] - 1)
              nb[side] = p.row[2 * d + side][0] == zero_gradient ? 0.0 : c;
            else
              nb[side] = masked && solid(a, b, e) ? c : phi(a, b, e);
          }
          s.q[d](i, j, k) -= Real(dt * (nb[1] - nb[0]) / (2 * double(p.h[d])));
        }
      });
}

}  // namespace kflow::split3d
