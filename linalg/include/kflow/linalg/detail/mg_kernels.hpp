#pragma once
// Multigrid's grid-transfer kernels (multigrid.hpp), one body for 2D and 3D:
// the coarse operator, the restriction of a residual and the prolongation
// of a correction between a level of n cells and the next of ceil(n/2) per
// direction (coarse cell I has the fine children 2I-1 and 2I, stored
// indices).  An odd n is treated as n + 1 with the last cell outside the
// system: the last coarse cell has one child per such direction.
//
// Prolongation P: bilinear (trilinear) interpolation from the parent and its
// 2^Dim - 1 coarse neighbours towards the fine cell (weights 3/4, 1/4 per
// direction); a neighbour outside the system (beyond a non-periodic side, or
// a solid coarse cell) gives its weight to the parent, so the rows of P sum
// to one and a constant is interpolated exactly.  Restriction R = P^T / 2^Dim,
// its transpose scaled to a weighted average (full weighting); R and P
// adjoint keep the V-cycle symmetric (CG's preconditioner).
//
// Coarse operator: per coarse face, the fine couplings across it summed;
// the diagonal, the children's diagonals plus their couplings to siblings;
// everything divided by 2^(Dim+1).  This is the Galerkin product of the
// piecewise-constant aggregation, halved: for the Laplacian with any
// coefficients it is the rediscretisation on the coarse cells (face
// coefficients averaged, a cell-centred Dirichlet wall stays one), a solid
// cell stays solid unless a child is fluid, and a row that sums to zero
// still does.  A zeroth-order term (I - dt k lap) comes out halved, an
// approximation: multigrid converges more slowly on such operators.

#include <Kokkos_Core.hpp>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/space.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/linalg/stencil7.hpp"

namespace kflow::linalg::detail {

// A view at an index array.
template <class V>
KOKKOS_INLINE_FUNCTION decltype(auto) mg_at(const V& v, const int* c) {
  if constexpr (V::rank == 2)
    return v(c[0], c[1]);
  else
    return v(c[0], c[1], c[2]);
}

// An operator's coefficients at an index array: p, lo[d] (w, s, b) and
// hi[d] (e, n, t).
template <class Real>
struct MgCoeffs {
  Real p, lo[3], hi[3];
};
template <class Op>
KOKKOS_INLINE_FUNCTION MgCoeffs<typename Op::real_type> mg_coeffs(const Op& op, const int* c) {
  if constexpr (Op::dim == 2) {
    const auto k = op.coeffs(c[0], c[1]);
    return {k.p, {k.w, k.s, 0}, {k.e, k.n, 0}};
  } else {
    const auto k = op.coeffs(c[0], c[1], c[2]);
    return {k.p, {k.w, k.s, k.b}, {k.e, k.n, k.t}};
  }
}

// Coarse-level indexing: n cells per direction (the fine level has `fine`:
// 2n, or 2n - 1 where the last coarse cell has one child), periodic wrap.
struct MgIndex {
  int n[3] = {1, 1, 1};
  int fine[3] = {2, 2, 2};
  bool periodic[3] = {false, false, false};
  // Index i + s (s = -1, 0, 1) with wrap; 0 or n + 1 (a ghost) otherwise.
  KOKKOS_INLINE_FUNCTION int shift(int d, int i, int s) const {
    const int r = i + s;
    if (periodic[d]) return r < 1 ? n[d] : r > n[d] ? 1 : r;
    return r;
  }
  // Direction d ends in a coarse cell with one child (never periodic).
  KOKKOS_INLINE_FUNCTION bool partial(int d) const { return fine[d] < 2 * n[d]; }
  // The interpolation weights in direction d of fine cell f from its parent
  // (f + 1) / 2 and the neighbour beyond f's side: 3/4 and 1/4 (centres 1/2
  // and 3/2 fine cells away); a one-child cell's centre is its child's, so
  // that child takes its value (1, 0) and the child next to it 2/3 and 1/3
  // (centres 1/2 and 1 away).
  template <class Real>
  KOKKOS_INLINE_FUNCTION void weights(int d, int f, Real& wp, Real& wk) const {
    if (partial(d) && f == fine[d]) {
      wp = 1, wk = 0;
    } else if (partial(d) && f == fine[d] - 1) {
      wp = Real(2) / Real(3), wk = Real(1) / Real(3);
    } else {
      wp = Real(0.75), wk = Real(0.25);
    }
  }
};

// Builds the coarse operator's coefficient fields (p, w, e, s, n[, b, t]).
template <int Dim, class FineOp, class F>
struct MgCoarsen {
  using Real = typename F::value_type;
  FineOp op;
  MgIndex ix;
  F c[2 * Dim + 1];  // p, then lo/hi per direction
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const { cell(i, j, 0); }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { cell(i, j, k); }
  // Child m (bit d: the high one in direction d) of coarse cell I in f;
  // false for the missing child of an odd size's last cell.
  KOKKOS_INLINE_FUNCTION bool child(const int* I, int m, int* f) const {
    bool inside = true;
    for (int d = 0; d < Dim; ++d) {
      f[d] = 2 * I[d] - 1 + ((m >> d) & 1);
      inside = inside && f[d] <= ix.fine[d];
    }
    return inside;
  }
  KOKKOS_INLINE_FUNCTION void cell(int i, int j, int k) const {
    const int I[3] = {i, j, k};
    Real p = 0, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int m = 0; m < (1 << Dim); ++m) {
      int f[3] = {0, 0, 0};
      if (!child(I, m, f)) continue;
      const auto cf = mg_coeffs(op, f);
      p += cf.p;
      for (int d = 0; d < Dim; ++d) {
        if ((m >> d) & 1) {  // the high child: its low neighbour is a sibling
          hi[d] += cf.hi[d];
          p += cf.lo[d];
        } else {
          lo[d] += cf.lo[d];
          p += cf.hi[d];
        }
      }
    }
    // A one-child cell (direction d): its face to the full neighbour is 3/2
    // fine cells from both centres instead of 2, so that coupling is 4/3 of
    // the aggregated one (the row sums kept).
    for (int d = 0; d < Dim; ++d) {
      if (!ix.partial(d)) continue;
      if (I[d] == ix.n[d]) p -= lo[d] / Real(3), lo[d] *= Real(4) / Real(3);
      if (I[d] == ix.n[d] - 1) p -= hi[d] / Real(3), hi[d] *= Real(4) / Real(3);
    }
    // Walls (a non-periodic side of the box): a child's wall term is 1/(h d)
    // for a wall d from its centre (d = h/2 cell-centred, h where the wall
    // nodes are a ring at distance h), the coarse one must be 1/(H D) with D
    // = d + h/2 (D = d for a one-child cell), while the aggregation gives the
    // children's sum / 2^(Dim+1), i.e. 1/(H 2d): so the children's terms are
    // scaled by 2 d / D (1 cell-centred; 4/3, 6/5, ... -> 1 for a ring of
    // nodes; 2 for a one-child cell).  A child's wall term is its row sum
    // minus that of its inner neighbour, and d / h the ratio of its coupling
    // to that neighbour to its wall term.
    for (int d = 0; d < Dim; ++d) {
      if (ix.periodic[d]) continue;
      for (int side = 0; side < 2; ++side) {
        if (I[d] != (side ? ix.n[d] : 1)) continue;
        const bool one_child = side && ix.partial(d);
        for (int m = 0; m < (1 << Dim); ++m) {
          int f[3] = {0, 0, 0};
          if (!child(I, m, f) || f[d] != (side ? ix.fine[d] : 1)) continue;
          int g[3] = {f[0], f[1], f[2]};
          g[d] += side ? -1 : 1;
          const auto cf = mg_coeffs(op, f), cg = mg_coeffs(op, g);
          if (cf.p == 0 || cg.p == 0) continue;
          Real sf = cf.p, sg = cg.p;
          for (int e = 0; e < Dim; ++e) sf += cf.lo[e] + cf.hi[e], sg += cg.lo[e] + cg.hi[e];
          const Real wall = sf - sg, inner = side ? cf.lo[d] : cf.hi[d];
          if (!(wall * cf.p > 0) || !(inner * wall < 0)) continue;
          const Real r = -inner / wall;  // d / h
          const Real factor = one_child ? Real(2) : 2 * r / (r + Real(0.5));
          p += (factor - 1) * wall;
        }
      }
    }
    const Real scale = Real(1) / Real(1 << (Dim + 1));
    mg_at(c[0], I) = p * scale;
    for (int d = 0; d < Dim; ++d) {
      mg_at(c[1 + 2 * d], I) = lo[d] * scale;
      mg_at(c[2 + 2 * d], I) = hi[d] * scale;
    }
  }
};

// P's row for a fine cell: per direction its parent's weight wp and its
// neighbour's wk (MgIndex::weights); the weight of corner delta (bit d: 1 =
// the neighbour in direction d) is their product.
template <class Real>
struct MgRow {
  Real wp[3] = {1, 1, 1}, wk[3] = {0, 0, 0};
  template <int Dim>
  KOKKOS_INLINE_FUNCTION Real weight(int delta) const {
    Real w = 1;
    for (int d = 0; d < Dim; ++d) w *= ((delta >> d) & 1) ? wk[d] : wp[d];
    return w;
  }
};
template <int Dim, class Real>
KOKKOS_INLINE_FUNCTION MgRow<Real> mg_row(const MgIndex& ix, const int* f) {
  MgRow<Real> row;
  for (int d = 0; d < Dim; ++d) ix.weights(d, f[d], row.wp[d], row.wk[d]);
  return row;
}

// The ghost value beyond fine cell f's side s in direction d, as a multiple
// of its parent's value: 1 (zero gradient) unless f has a Dirichlet wall
// there, at distance d_w from its centre, read from the fine operator as
// multigridded operators carry it (f's row sum minus its inner
// neighbour's: MgCoarsen).  Then the correction falls linearly to 0 at the
// wall, D = d_w + h/2 from the parent's centre, and the coarse cell beyond,
// H = 2h from the parent, takes 1 - H/D (-1 for a cell-centred wall).
template <class FineOp>
KOKKOS_INLINE_FUNCTION typename FineOp::real_type mg_ghost(const FineOp& op, const int* f, int d,
                                                           int s) {
  using Real = typename FineOp::real_type;
  int g[3] = {f[0], f[1], f[2]};
  g[d] -= s;
  const auto cf = mg_coeffs(op, f), cg = mg_coeffs(op, g);
  if (cf.p == 0 || cg.p == 0) return 1;
  Real sf = cf.p, sg = cg.p;
  for (int e = 0; e < FineOp::dim; ++e) sf += cf.lo[e] + cf.hi[e], sg += cg.lo[e] + cg.hi[e];
  const Real wall = sf - sg, inner = s > 0 ? cf.lo[d] : cf.hi[d];
  if (!(wall * cf.p > 0) || !(inner * wall < 0)) return 1;  // no Dirichlet wall on that side
  const Real r = -inner / wall;                             // d_w / h
  return 1 - 2 / (r + Real(0.5));
}

// The coarse cells of a fine cell f's row are K(delta) = parent shifted by
// delta * s (s = -1 for a low child, +1 for a high one); the weights of
// those outside the system are moved onto the parent (delta = 0), times the
// ghost factor (mg_ghost) of each direction in which the parent's own
// neighbour is outside: the correction extrapolated to a Dirichlet wall's
// zero, or with zero gradient elsewhere.  Prolongation and restriction both
// use it: the transfers stay adjoint.
template <int Dim, class Real, class CP, class FineOp>
KOKKOS_INLINE_FUNCTION Real mg_parent_weight(const MgIndex& ix, const CP& cp, const FineOp& op,
                                             const int* f, const int* I, const int* s,
                                             const MgRow<Real>& row) {
  Real g[3] = {1, 1, 1};
  for (int d = 0; d < Dim; ++d) {
    int K[3] = {I[0], I[1], I[2]};
    K[d] = ix.shift(d, I[d], s[d]);
    if (mg_at(cp, K) == 0) g[d] = mg_ghost(op, f, d, s[d]);
  }
  Real w = row.template weight<Dim>(0);
  for (int m = 1; m < (1 << Dim); ++m) {
    int K[3] = {I[0], I[1], I[2]};
    Real gm = 1;
    for (int d = 0; d < Dim; ++d)
      if ((m >> d) & 1) K[d] = ix.shift(d, I[d], s[d]), gm *= g[d];
    if (mg_at(cp, K) == 0) w += gm * row.template weight<Dim>(m);
  }
  return w;
}

// x_fine += P x_coarse on the fine cells in the system.
template <int Dim, class FineOp, class XF, class CP, class XC>
struct MgProlongAdd {
  using Real = typename XC::value_type;
  FineOp op;
  XF xf;
  CP cp;  // the coarse diagonal (0: not in the system)
  XC xc;
  MgIndex ix;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const { cell(i, j, 0); }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { cell(i, j, k); }
  KOKKOS_INLINE_FUNCTION void cell(int i, int j, int k) const {
    const int f[3] = {i, j, k};
    if (mg_coeffs(op, f).p == 0) return;
    int I[3] = {0, 0, 0}, s[3] = {0, 0, 0};
    for (int d = 0; d < Dim; ++d) I[d] = (f[d] + 1) / 2, s[d] = (f[d] & 1) ? -1 : 1;
    const auto row = mg_row<Dim, Real>(ix, f);
    Real e = mg_parent_weight<Dim, Real>(ix, cp, op, f, I, s, row) * mg_at(xc, I);
    for (int m = 1; m < (1 << Dim); ++m) {
      int K[3] = {I[0], I[1], I[2]};
      for (int d = 0; d < Dim; ++d)
        if ((m >> d) & 1) K[d] = ix.shift(d, I[d], s[d]);
      if (mg_at(cp, K) != 0) e += row.template weight<Dim>(m) * mg_at(xc, K);
    }
    mg_at(xf, f) += e;
  }
};

// b_coarse = P^T r_fine / 2^Dim on the coarse cells in the system (0
// elsewhere).  r is 0 outside the fine system.
template <int Dim, class FineOp, class R, class CP, class BC>
struct MgRestrict {
  using Real = typename BC::value_type;
  FineOp op;  // the fine operator (mg_ghost)
  R r;
  CP cp;
  BC bc;
  MgIndex ix;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const { cell(i, j, 0); }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { cell(i, j, k); }
  KOKKOS_INLINE_FUNCTION void cell(int i, int j, int k) const {
    const int I[3] = {i, j, k};
    if (mg_at(cp, I) == 0) {
      mg_at(bc, I) = 0;
      return;
    }
    // P^T: the fine cells 2I-2 .. 2I+1 per direction with their weights
    // for I, 1/4, 3/4, 3/4, 1/4 away from one-child cells (separable; cells
    // of a coarse neighbour outside the system are outside it too, where
    // r = 0), plus, for I's own children, the weights their out-of-system
    // coarse neighbours moved onto I.
    Real w[3][4];
    int f0[3][4];
    for (int d = 0; d < Dim; ++d)
      for (int a = 0; a < 4; ++a) {
        int f = 2 * I[d] - 2 + a;
        Real wp, wk;
        ix.weights(d, f, wp, wk);
        w[d][a] = (a == 1 || a == 2) ? wp : wk;
        if (ix.periodic[d])
          f = f < 1 ? f + 2 * ix.n[d] : f > 2 * ix.n[d] ? f - 2 * ix.n[d] : f;
        else if (f > ix.fine[d])
          f = ix.fine[d] + 1;
        f0[d][a] = f;  // 0 or fine + 1 (a ghost, r = 0) beyond a wall
      }
    Real sum = 0;
    if constexpr (Dim == 2) {
      for (int b = 0; b < 4; ++b) {
        Real row = 0;
        for (int a = 0; a < 4; ++a) row += w[0][a] * r(f0[0][a], f0[1][b]);
        sum += w[1][b] * row;
      }
    } else {
      for (int c = 0; c < 4; ++c)
        for (int b = 0; b < 4; ++b) {
          Real row = 0;
          for (int a = 0; a < 4; ++a) row += w[0][a] * r(f0[0][a], f0[1][b], f0[2][c]);
          sum += w[2][c] * w[1][b] * row;
        }
    }
    for (int m = 0; m < (1 << Dim); ++m) {
      int f[3] = {0, 0, 0}, sg[3] = {0, 0, 0};
      for (int d = 0; d < Dim; ++d) {
        const int a = (m >> d) & 1;
        sg[d] = a ? 1 : -1;
        f[d] = 2 * I[d] - 1 + a;
      }
      const auto row = mg_row<Dim, Real>(ix, f);
      const Real extra =
          mg_parent_weight<Dim, Real>(ix, cp, op, f, I, sg, row) - row.template weight<Dim>(0);
      if (extra != 0) sum += extra * mg_at(r, f);
    }
    mg_at(bc, I) = sum / Real(1 << Dim);
  }
};

// The correction of a Jacobi-type smoothing step, d = a d + c D^-1 (b - A x)
// on the cells in the system (0 elsewhere; d not read where a = 0), then x +=
// d (MgAdd): weighted Jacobi (a = 0, c = the weight) and each step of the
// Chebyshev recurrence.
template <class Op, class X, class B, class D>
struct MgCorrection {
  using Real = typename D::value_type;
  Op op;
  X x;
  B b;
  D d;
  Real a, c;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const {
    const Real p = op.coeffs(i, j).p;
    const Real old = a != 0 ? a * d(i, j) : Real(0);
    d(i, j) = p != 0 ? old + c * (Real(b(i, j)) - apply_at(op, x, i, j)) / p : Real(0);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    const Real p = op.coeffs(i, j, k).p;
    const Real old = a != 0 ? a * d(i, j, k) : Real(0);
    d(i, j, k) = p != 0 ? old + c * (Real(b(i, j, k)) - apply_at(op, x, i, j, k)) / p : Real(0);
  }
};

// Gershgorin's bound on the spectrum of D^-1 A: max over the system of
// sum_j |a_ij| / |a_ii|, into a max.
template <class Op>
struct MgGershgorin {
  Op op;
  KOKKOS_INLINE_FUNCTION void row(const int* c, double& acc) const {
    const auto k = mg_coeffs(op, c);
    if (k.p == 0) return;
    double s = Kokkos::fabs(double(k.p));
    for (int d = 0; d < Op::dim; ++d)
      s += Kokkos::fabs(double(k.lo[d])) + Kokkos::fabs(double(k.hi[d]));
    s /= Kokkos::fabs(double(k.p));
    acc = s > acc ? s : acc;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, double& acc) const {
    const int c[3] = {i, j, 0};
    row(c, acc);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, double& acc) const {
    const int c[3] = {i, j, k};
    row(c, acc);
  }
};

template <class X, class T>
struct MgAdd {
  X x;
  T t;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const { x(i, j) += t(i, j); }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const { x(i, j, k) += t(i, j, k); }
};

// max |x - xold| (NaN as +inf), for the "change" criterion.
template <class X, class F>
struct MgChangeMax {
  X x;
  F xold;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, double& acc) const {
    const double d = nan_as_inf(Kokkos::fabs(double(x(i, j)) - double(xold(i, j))));
    acc = d > acc ? d : acc;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, double& acc) const {
    const double d = nan_as_inf(Kokkos::fabs(double(x(i, j, k)) - double(xold(i, j, k))));
    acc = d > acc ? d : acc;
  }
};

// out = in - mean on the cells in the system (0 elsewhere).
template <class Op, class In, class Out>
struct MgShift {
  using Real = typename Out::value_type;
  Op op;
  In in;
  Out out;
  Real mean;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j) const {
    out(i, j) = op.coeffs(i, j).p != 0 ? Real(in(i, j)) - mean : Real(0);
  }
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k) const {
    out(i, j, k) = op.coeffs(i, j, k).p != 0 ? Real(in(i, j, k)) - mean : Real(0);
  }
};

}  // namespace kflow::linalg::detail
