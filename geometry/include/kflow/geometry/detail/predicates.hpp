#pragma once
// Exact 2D orientation with symbolic perturbation: the predicates that make
// the mesh voxeliser's ray counts exact.
//
// orient2d_sign: the exact sign of (a - c) x (b - c) for double inputs
// (Shewchuk 1997: a floating-point filter with his error bound, and an exact
// expansion sum when the filter cannot decide).  The error-free
// transformations use only + and a fused multiply-add (TwoProduct as
// p = a b, e = fma(a, b, -p)), so they hold on the GPU and on CPUs alike,
// whether or not the compiler contracts other products.
//
// edge_side: the side of point p against the directed edge a -> b, for p
// displaced by (eps, eps^2) in (u, v) with eps -> 0 (simulation of
// simplicity).  The displaced point lies on no edge, so every answer is
// strict, the answers for an edge and its reverse are opposite, and the
// answers are the exact ones for the displaced point: a ray through a
// vertex or along an edge is counted in exactly one triangle of a fan.

#include <Kokkos_Core.hpp>

namespace kflow::geometry::detail {

KOKKOS_INLINE_FUNCTION void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bv = s - a, av = s - bv;
  e = (a - av) + (b - bv);
}
KOKKOS_INLINE_FUNCTION void two_diff(double a, double b, double& s, double& e) {
  s = a - b;
  const double bv = a - s, av = s + bv;
  e = (a - av) + (bv - b);
}
KOKKOS_INLINE_FUNCTION void two_product(double a, double b, double& p, double& e) {
  p = a * b;
  e = Kokkos::fma(a, b, -p);
}

// h[0..m) += q, exactly (Shewchuk's GROW-EXPANSION without zero elimination).
KOKKOS_INLINE_FUNCTION void grow_expansion(double* h, int& m, double q) {
  for (int i = 0; i < m; ++i) {
    double s, e;
    two_sum(q, h[i], s, e);
    h[i] = e;
    q = s;
  }
  h[m++] = q;
}

// Exact sign (-1, 0, 1) of (au - cu)(bv - cv) - (av - cv)(bu - cu).
KOKKOS_INLINE_FUNCTION int orient2d_sign(double au, double av, double bu, double bv, double cu,
                                         double cv) {
  const double detleft = (au - cu) * (bv - cv), detright = (av - cv) * (bu - cu);
  const double det = detleft - detright;
  double detsum;
  if (detleft > 0) {
    if (detright <= 0) return det > 0 ? 1 : det < 0 ? -1 : 0;
    detsum = detleft + detright;
  } else if (detleft < 0) {
    if (detright >= 0) return det > 0 ? 1 : det < 0 ? -1 : 0;
    detsum = -detleft - detright;
  } else {
    return det > 0 ? 1 : det < 0 ? -1 : 0;
  }
  constexpr double eps = 1.1102230246251565e-16;  // 2^-53
  constexpr double bound = (3.0 + 16.0 * eps) * eps;
  if (det >= bound * detsum || -det >= bound * detsum) return det > 0 ? 1 : -1;
  // Exact: each difference as a two-term expansion, the 16 product terms
  // summed into a non-overlapping expansion whose largest non-zero term has
  // the sign of the whole.
  double acu, acu_t, bcv, bcv_t, acv, acv_t, bcu, bcu_t;
  two_diff(au, cu, acu, acu_t);
  two_diff(bv, cv, bcv, bcv_t);
  two_diff(av, cv, acv, acv_t);
  two_diff(bu, cu, bcu, bcu_t);
  const double x[4] = {acu, acu_t, -acv, -acv_t};
  const double y[4] = {bcv, bcv_t, bcu, bcu_t};
  double h[16];
  int m = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double p, e;
      two_product(x[i], y[j], p, e);  // (a - c)_u (b - c)_v
      grow_expansion(h, m, p);
      grow_expansion(h, m, e);
      two_product(x[2 + i], y[2 + j], p, e);  // -(a - c)_v (b - c)_u
      grow_expansion(h, m, p);
      grow_expansion(h, m, e);
    }
  for (int i = m - 1; i >= 0; --i)
    if (h[i] != 0) return h[i] > 0 ? 1 : -1;
  return 0;
}

// +1 when p (displaced as above) lies to the left of a -> b, -1 to the right;
// never 0 for a != b.
KOKKOS_INLINE_FUNCTION int edge_side(double au, double av, double bu, double bv, double pu,
                                     double pv) {
  const int s = orient2d_sign(au, av, bu, bv, pu, pv);
  if (s != 0) return s;
  // d/d(eps) of the orientation at the displaced point: -(bv - av) eps +
  // (bu - au) eps^2.
  if (bv != av) return bv < av ? 1 : -1;
  return bu > au ? 1 : -1;
}

}  // namespace kflow::geometry::detail
