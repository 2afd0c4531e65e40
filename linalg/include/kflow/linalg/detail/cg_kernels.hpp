#pragma once
// CG's kernels (cg.hpp): the fused direction and update passes with their
// reductions, the right-hand side projection, the Jacobi diagonal, and the
// operator checks (symmetry, definiteness, singularity).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "kflow/linalg/operator.hpp"

namespace kflow::linalg::detail {

// The scalars one CG reduction returns.
struct CgSums {
  double dot;    // r.z (update, residual, fused) or p.q (direction)
  double rmax;   // max |r|
  double dmax;   // max |alpha p| (the change criterion)
  double delta;  // w.z, w = s A z (fused)
};

template <class Mem>
struct CgReducer {
  using reducer = CgReducer;
  using value_type = CgSums;
  using result_view_type = Kokkos::View<value_type, Mem>;

  KOKKOS_INLINE_FUNCTION explicit CgReducer(const result_view_type& v)
      : value_(v), references_scalar_(false) {}
  KOKKOS_INLINE_FUNCTION explicit CgReducer(value_type& v) : value_(&v), references_scalar_(true) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dst, const value_type& src) const {
    dst.dot += src.dot;
    dst.delta += src.delta;
    dst.rmax = dst.rmax > src.rmax ? dst.rmax : src.rmax;
    dst.dmax = dst.dmax > src.dmax ? dst.dmax : src.dmax;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0.0, 0.0, 0.0, 0.0}; }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *value_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return value_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return references_scalar_; }

 private:
  result_view_type value_;
  bool references_scalar_;
};

// Functor adaptors: the bodies take (acc, i, j[, k]) so that one body serves
// the 2D and the 3D MDRange.
template <int Dim, class Body, class Value>
struct CgReduceCells;
template <class Body, class Value>
struct CgReduceCells<2, Body, Value> {
  Body body;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, Value& acc) const {
    body(acc, body.scalar(), i, j);
  }
};
template <class Body, class Value>
struct CgReduceCells<3, Body, Value> {
  Body body;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, Value& acc) const {
    body(acc, body.scalar(), i, j, k);
  }
};

// CPUs: one task per row (2D) or per (j, k) line (3D), looping over i (an
// MDRange cost several times more per cell there, as for red-black SOR).
template <int Dim, class Body, class Value>
struct CgReduceRows;
template <class Body, class Value>
struct CgReduceRows<2, Body, Value> {
  Body body;
  int nx;
  KOKKOS_INLINE_FUNCTION void operator()(int j, Value& acc) const {
    const auto s = body.scalar();
    Value local = acc;  // a copy the fields cannot alias: kept in registers
    for (int i = 1; i <= nx; ++i) body(local, s, i, j);
    acc = local;
  }
};
template <class Body, class Value>
struct CgReduceRows<3, Body, Value> {
  Body body;
  int nx, ny;
  KOKKOS_INLINE_FUNCTION void operator()(int line, Value& acc) const {
    const int j = 1 + line % ny, k = 1 + line / ny;
    const auto s = body.scalar();
    Value local = acc;  // (as in 2D)
    for (int i = 1; i <= nx; ++i) body(local, s, i, j, k);
    acc = local;
  }
};

// GPUs: `blocks` blocks of 256 threads a multiprocessor (grid_reduce_blocks).
template <int Dim, class ExecSpace, class Body, class Reducer>
void cg_reduce(const ExecSpace& space, const char* label, const Grid& g, const Body& body,
               const Reducer& reducer, int blocks = 4) {
  using Value = typename Reducer::value_type;
  if constexpr (on_gpu<ExecSpace>) {
    grid_reduce_blocks<Dim>(blocks, space, label, g, false, CgReduceCells<Dim, Body, Value>{body},
                            reducer);
  } else if constexpr (Dim == 2) {
    Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 1, g.cells[1] + 1),
                            CgReduceRows<2, Body, Value>{body, g.cells[0]}, reducer);
  } else {
    Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 0, g.cells[1] * g.cells[2]),
                            CgReduceRows<3, Body, Value>{body, g.cells[0], g.cells[1]}, reducer);
  }
}

// The preconditioners' ways of giving z at a cell: none (z = r), Jacobi
// (z = r / diag, `pre` holds 1 / diag) and a stored z (multigrid: `pre`
// holds z, computed between the passes).
enum class CgZ { none, jacobi, stored };

// z at a cell, from the value rc of r there.
template <CgZ Z, class F, class... I>
KOKKOS_INLINE_FUNCTION typename F::value_type cg_z(typename F::value_type rc, const F& pre,
                                                   I... idx) {
  if constexpr (Z == CgZ::jacobi)
    return rc * pre(idx...);
  else if constexpr (Z == CgZ::stored)
    return pre(idx...);
  else
    return rc;
}

// The new search direction evaluated anywhere (the operator reads it at the
// neighbours): z + beta p_old.
template <CgZ Z, class F>
struct CgDirectionValue {
  using Real = typename F::value_type;
  F r, dinv, pold;
  Real beta;
  bool restart;
  template <class... I>
  KOKKOS_INLINE_FUNCTION Real operator()(I... idx) const {
    const Real z = cg_z<Z>(r(idx...), dinv, idx...);
    return restart ? z : z + beta * pold(idx...);
  }
};

// direction: p_new = z + beta p_old, q = s A p_new, reduces p_new.q into
// sums(slot_pq).dot.  beta = rz(prev) / rz(prev2).
template <CgZ Z, class Op, class F, class S>
struct CgDirection {
  using Real = typename F::value_type;
  Op op;
  F r, dinv, pold, pnew, q;
  S sums;
  int prev, prev2;
  bool restart;
  Real sign;
  // beta = rz(prev) / rz(prev2), read once per thread (GPU) or row (CPU).
  KOKKOS_INLINE_FUNCTION Real scalar() const {
    const double rz1 = sums(prev).dot, rz0 = sums(prev2).dot;
    return Real(rz0 != 0 ? rz1 / rz0 : 0.0);
  }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(double& acc, Real beta, I... idx) const {
    if (op.coeffs(idx...).p == 0) return;
    const CgDirectionValue<Z, F> pv{r, dinv, pold, beta, restart};
    const Real pc = pv(idx...);
    const Real qc = sign * apply_at(op, pv, idx...);
    pnew(idx...) = pc;
    q(idx...) = qc;
    acc += double(pc) * double(qc);
  }
};

// update: alpha = rz(prev) / pq, x += alpha p, r -= alpha q; reduces r.z,
// max |r| and max |alpha p| into sums(cur).
template <CgZ Z, class X, class F, class S>
struct CgUpdate {
  using Real = typename F::value_type;
  X x;
  F p, q, r, dinv;
  S sums;
  int prev, slot_pq;
  // alpha = rz(prev) / pq (0 on a breakdown).
  KOKKOS_INLINE_FUNCTION Real scalar() const {
    const double pq = sums(slot_pq).dot;
    double a = pq > 0 ? sums(prev).dot / pq : 0.0;
    if (!(Kokkos::fabs(a) < Kokkos::Experimental::infinity_v<double>)) a = 0;
    return Real(a);
  }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(CgSums& acc, Real alpha, I... idx) const {
    const Real pc = p(idx...), qc = q(idx...);
    Real rc = r(idx...);
    if (pc != 0 || qc != 0) {  // 0 outside the system: leave x alone there
      x(idx...) += alpha * pc;
      rc -= alpha * qc;
      r(idx...) = rc;
    }
    const Real z = cg_z<Z>(rc, dinv, idx...);
    acc.dot += double(rc) * double(z);
    const double ra = nan_as_inf(Kokkos::fabs(double(rc)));
    const double da = nan_as_inf(Kokkos::fabs(double(alpha * pc)));
    acc.rmax = ra > acc.rmax ? ra : acc.rmax;
    acc.dmax = da > acc.dmax ? da : acc.dmax;
  }
};

// The single-reduction iteration (Chronopoulos & Gear 1989) for the
// preconditioners applied cell by cell (none, Jacobi).  Iteration i holds
// r_i, w_i = s A z_i, s_{i-1} = s A p_{i-1}, p_{i-1} and the sums
// gamma_i = r_i.z_i, delta_i = w_i.z_i; one pass
//   p_i = z_i + beta p_{i-1},  s_i = w_i + beta s_{i-1},
//   x += alpha p_i,  r_{i+1} = r_i - alpha s_i,  w_{i+1} = s A z_{i+1}
// (z_{i+1} at the neighbours from r_i, w_i, s_{i-1} there) reduces
// gamma_{i+1}, delta_{i+1}, max |r_{i+1}| and max |alpha p_i|.
//   beta = gamma_i / gamma_{i-1},
//   alpha = gamma_i / (delta_i - beta gamma_i / alpha_{i-1})
// (restart: beta = 0, alpha = gamma_i / delta_i; the first pass after a
// residual, `init`, has alpha = beta = 0 and only computes w_0 and the sums).
// r, s and w are double buffered (read 0, write 1); p and x are per cell.
struct CgStep {
  double alpha, beta;
};

// z_{i+1} = M r_{i+1} anywhere, from the old buffers.
template <CgZ Z, class F>
struct CgNextZ {
  using Real = typename F::value_type;
  F r, s, w, dinv;
  Real alpha, beta;
  bool fresh;  // s_{i-1} = 0 (init, restart)
  template <class... I>
  KOKKOS_INLINE_FUNCTION Real operator()(I... idx) const {
    const Real sc = fresh ? w(idx...) : w(idx...) + beta * s(idx...);
    return cg_z<Z>(r(idx...) - alpha * sc, dinv, idx...);
  }
};

// Blocks of 256 threads a multiprocessor for the fused pass.  It evaluates
// z at five points; with Uniform5's boundary-aware coefficients computed
// there it ran fastest with 2 blocks on the H200 (the two-pass direction
// kernel alone needed 80 registers, which leaves room for 3), with stored
// coefficients with 4 (measured, not derived).
template <class Op>
inline constexpr int cg_fused_blocks = 4;
template <class Real>
inline constexpr int cg_fused_blocks<Uniform5<Real>> = 2;

template <CgZ Z, class Op, class X, class F, class S>
struct CgFused {
  using Real = typename F::value_type;
  Op op;
  X x;
  F r0, s0, w0, r1, s1, w1, p, dinv;
  S sums;                   // alpha_i is kept in sums(alpha_at + slot of gamma_i).dot
  int cur, prev, alpha_at;  // sums slots of gamma_i and gamma_{i-1}; the first alpha slot
  int first;                // the first cell's index (its thread writes alpha_i)
  bool init, restart;
  Real sign;
  KOKKOS_INLINE_FUNCTION CgStep scalar() const {
    if (init) return {0.0, 0.0};
    const double g = sums(cur).dot, d = sums(cur).delta;
    double beta = 0, den = d;
    if (!restart) {
      const double g0 = sums(prev).dot, a0 = sums(alpha_at + prev).dot;
      beta = g0 != 0 ? g / g0 : 0.0;
      den = a0 != 0 ? d - beta * g / a0 : 0.0;
    }
    double a = den > 0 ? g / den : 0.0;
    if (!(Kokkos::fabs(a) < Kokkos::Experimental::infinity_v<double>)) a = 0;
    return {a, beta};
  }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(CgSums& acc, CgStep ab, I... idx) const {
    if (!init && ((idx == first) && ...)) sums(alpha_at + cur).dot = ab.alpha;
    if (op.coeffs(idx...).p == 0) return;  // not in the system: all stay 0
    const Real alpha = Real(ab.alpha), beta = Real(ab.beta);
    const bool fresh = init || restart;
    const CgNextZ<Z, F> zn{r0, s0, w0, dinv, alpha, beta, fresh};
    const Real rc = r0(idx...);
    const Real sc = fresh ? w0(idx...) : w0(idx...) + beta * s0(idx...);
    const Real rn = rc - alpha * sc;
    const Real zr = cg_z<Z>(rc, dinv, idx...);
    const Real pc = fresh ? zr : zr + beta * p(idx...);
    const Real wn = sign * apply_at(op, zn, idx...);
    const Real zc = cg_z<Z>(rn, dinv, idx...);
    if (!init) x(idx...) += alpha * pc;
    p(idx...) = pc;
    s1(idx...) = sc;
    r1(idx...) = rn;
    w1(idx...) = wn;
    acc.dot += double(rn) * double(zc);
    acc.delta += double(wn) * double(zc);
    const double ra = nan_as_inf(Kokkos::fabs(double(rn)));
    const double da = nan_as_inf(Kokkos::fabs(double(alpha * pc)));
    acc.rmax = ra > acc.rmax ? ra : acc.rmax;
    acc.dmax = da > acc.dmax ? da : acc.dmax;
  }
};

// residual: r = s (b - mean - A x) on the system (0 elsewhere), mean =
// sums(slot_b).dot / cells when projecting; reduces r.z and max |r|.
template <CgZ Z, class Op, class X, class B, class F, class S>
struct CgResidual {
  using Real = typename F::value_type;
  Op op;
  X x;
  B b;
  F r, dinv;
  S sums;
  int slot_b;
  double inv_cells;  // 0: no projection
  Real sign;
  // The mean of b over the system (0 without projection).
  KOKKOS_INLINE_FUNCTION Real scalar() const { return Real(sums(slot_b).dot * inv_cells); }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(CgSums& acc, Real mean, I... idx) const {
    if (op.coeffs(idx...).p == 0) {
      r(idx...) = 0;
      return;
    }
    const Real rc = sign * (Real(b(idx...)) - mean - Real(apply_at(op, x, idx...)));
    r(idx...) = rc;
    const Real z = cg_z<Z>(rc, dinv, idx...);
    acc.dot += double(rc) * double(z);
    const double ra = nan_as_inf(Kokkos::fabs(double(rc)));
    acc.rmax = ra > acc.rmax ? ra : acc.rmax;
  }
};

// After a stored-z preconditioner (multigrid on A, not on s A) wrote z:
// z = s (z - mean), and r.z reduced.  mean: sums(slot).delta (z's sum over
// the system, CgSystemSum) times inv_cells, 0 for a regular system.  Without
// it CG + multigrid broke down (p.Ap <= 0) on a singular 3D system: a
// constant part of z, the likely cause, adds nothing.
template <class Op, class F, class S>
struct CgStoredDot {
  using Real = typename F::value_type;
  Op op;
  F r, z;
  S sums;
  int slot;
  double inv_cells;
  Real sign;
  KOKKOS_INLINE_FUNCTION Real scalar() const { return Real(sums(slot).delta * inv_cells); }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(double& acc, Real mean, I... idx) const {
    if (op.coeffs(idx...).p == 0) return;  // (z is 0 there)
    const Real zc = sign * (z(idx...) - mean);
    z(idx...) = zc;
    acc += double(r(idx...)) * double(zc);
  }
};

// z's sum over the system, for CgStoredDot's mean.
template <class Op, class F>
struct CgSystemSum {
  Op op;
  F z;
  KOKKOS_INLINE_FUNCTION int scalar() const { return 0; }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(double& acc, int, I... idx) const {
    if (op.coeffs(idx...).p != 0) acc += double(z(idx...));
  }
};

// rhs: sum of b and max |b| over the system.
template <class Op, class B>
struct CgRhs {
  Op op;
  B b;
  KOKKOS_INLINE_FUNCTION int scalar() const { return 0; }
  template <class... I>
  KOKKOS_INLINE_FUNCTION void operator()(CgSums& acc, int, I... idx) const {
    if (op.coeffs(idx...).p == 0) return;
    const double v = double(b(idx...));
    acc.dot += v;
    const double a = nan_as_inf(Kokkos::fabs(v));
    acc.rmax = a > acc.rmax ? a : acc.rmax;
  }
};

// Jacobi: dinv = 1 / (s c.p) on the system, 0 elsewhere.
template <class ExecSpace, class Op, class F>
void cg_diagonal(const ExecSpace& space, const Op& op, const F& dinv, typename F::value_type sign) {
  using Real = typename F::value_type;
  if constexpr (F::rank == 2) {
    Kokkos::parallel_for(
        "kflow::linalg::cg::diagonal", interior_policy<2>(space, op.grid),
        KOKKOS_LAMBDA(int i, int j) {
          const Real p = op.coeffs(i, j).p;
          dinv(i, j) = p != 0 ? Real(1) / (sign * p) : Real(0);
        });
  } else {
    Kokkos::parallel_for(
        "kflow::linalg::cg::diagonal", interior_policy<3>(space, op.grid),
        KOKKOS_LAMBDA(int i, int j, int k) {
          const Real p = op.coeffs(i, j, k).p;
          dinv(i, j, k) = p != 0 ? Real(1) / (sign * p) : Real(0);
        });
  }
}

// Relative difference of a matrix entry and its mirror entry (NaN: +inf).
KOKKOS_INLINE_FUNCTION double cg_rel(double a, double b) {
  const double d = Kokkos::fabs(a - b), s = Kokkos::fabs(a) + Kokkos::fabs(b);
  return d == 0 ? 0.0 : nan_as_inf(d / s);
}

// What the constructor checks about the operator, over the system cells.
struct CgOperatorInfo {
  long positive = 0, negative = 0;                    // diagonal signs
  double asymmetry = 0;                               // max |A_PE - A_EP| / (|A_PE| + |A_EP|) etc.
  double row_sum = 0;                                 // max |sum of the row| / |A_PP|
  long cells() const { return positive + negative; }  // in the system
  // Every row sums to zero within tol: the constants are in the null space.
  bool singular(double tol) const { return cells() > 0 && row_sum <= tol; }
};

template <class ExecSpace, class Op>
CgOperatorInfo cg_operator_info2(const ExecSpace& space, const Op& op) {
  CgOperatorInfo info;
  Kokkos::parallel_reduce(
      "kflow::linalg::cg::check_signs", interior_policy<2>(space, op.grid),
      KOKKOS_LAMBDA(int i, int j, long& pos, long& neg) {
        const double p = double(op.coeffs(i, j).p);
        pos += p > 0;
        neg += p < 0;
      },
      info.positive, info.negative);
  Kokkos::parallel_reduce(
      "kflow::linalg::cg::check_symmetry", interior_policy<2>(space, op.grid),
      KOKKOS_LAMBDA(int i, int j, double& asym, double& rsum) {
        const auto c = op.coeffs(i, j);
        if (c.p == 0) return;
        const auto ce = op.coeffs(op.east(i), j), cn = op.coeffs(i, op.north(j));
        // The east/north neighbour's west/south entry; the west/south
        // neighbours are checked as someone else's east/north.  A coefficient
        // to a cell outside the system must be 0 (its west entry is 0).
        const double all = double(c.p) + double(c.w) + double(c.e) + double(c.s) + double(c.n);
        const double a = Kokkos::isfinite(all) ? Kokkos::fmax(cg_rel(double(c.e), double(ce.w)),
                                                              cg_rel(double(c.n), double(cn.s)))
                                               : Kokkos::Experimental::infinity_v<double>;
        const double w = op.coeffs(op.west(i), j).p == 0 ? double(c.w) : 0.0;
        const double s = op.coeffs(i, op.south(j)).p == 0 ? double(c.s) : 0.0;
        const double a2 = Kokkos::fmax(a, w != 0 || s != 0 ? 1.0 : 0.0);
        asym = a2 > asym ? a2 : asym;
        const double rs = nan_as_inf(
            Kokkos::fabs(double(c.p) + double(c.w) + double(c.e) + double(c.s) + double(c.n)) /
            Kokkos::fabs(double(c.p)));
        rsum = rs > rsum ? rs : rsum;
      },
      Kokkos::Max<double>(info.asymmetry), Kokkos::Max<double>(info.row_sum));
  space.fence("kflow::linalg::cg::check");
  return info;
}

template <class ExecSpace, class Op>
CgOperatorInfo cg_operator_info3(const ExecSpace& space, const Op& op) {
  CgOperatorInfo info;
  const int nx = op.grid.cells[0], ny = op.grid.cells[1], nz = op.grid.cells[2];
  if ((op.px || op.py || op.pz) && (op.nx != nx || op.ny != ny || op.nz != nz))
    throw std::invalid_argument(
        "a periodic 7-point operator's neighbours (set_neighbours) are for " +
        std::to_string(op.nx) + "x" + std::to_string(op.ny) + "x" + std::to_string(op.nz) +
        " cells, its grid has " + op.grid.cells_text());
  Kokkos::parallel_reduce(
      "kflow::linalg::cg::check_signs", interior_policy<3>(space, op.grid),
      KOKKOS_LAMBDA(int i, int j, int k, long& pos, long& neg) {
        const double p = double(op.coeffs(i, j, k).p);
        pos += p > 0;
        neg += p < 0;
      },
      info.positive, info.negative);
  Kokkos::parallel_reduce(
      "kflow::linalg::cg::check_symmetry", interior_policy<3>(space, op.grid),
      KOKKOS_LAMBDA(int i, int j, int k, double& asym, double& rsum) {
        const auto c = op.coeffs(i, j, k);
        if (c.p == 0) return;
        // Neighbours beyond the grid (ghosts; wrapped in periodic
        // directions) must have zero coefficients.
        const double ee = i < nx || op.px ? double(op.coeffs(op.east(i), j, k).w) : 0.0;
        const double nn = j < ny || op.py ? double(op.coeffs(i, op.north(j), k).s) : 0.0;
        const double tt = k < nz || op.pz ? double(op.coeffs(i, j, op.top(k)).b) : 0.0;
        double a = Kokkos::fmax(cg_rel(double(c.e), ee),
                                Kokkos::fmax(cg_rel(double(c.n), nn), cg_rel(double(c.t), tt)));
        const bool dangling =
            (c.w != 0 && ((i == 1 && !op.px) || op.coeffs(op.west(i), j, k).p == 0)) ||
            (c.s != 0 && ((j == 1 && !op.py) || op.coeffs(i, op.south(j), k).p == 0)) ||
            (c.b != 0 && ((k == 1 && !op.pz) || op.coeffs(i, j, op.bottom(k)).p == 0));
        const double all = double(c.p) + double(c.w) + double(c.e) + double(c.s) + double(c.n) +
                           double(c.b) + double(c.t);
        if (dangling) a = 1.0;
        if (!Kokkos::isfinite(all)) a = Kokkos::Experimental::infinity_v<double>;
        asym = a > asym ? a : asym;
        const double rs =
            nan_as_inf(Kokkos::fabs(double(c.p) + double(c.w) + double(c.e) + double(c.s) +
                                    double(c.n) + double(c.b) + double(c.t)) /
                       Kokkos::fabs(double(c.p)));
        rsum = rs > rsum ? rs : rsum;
      },
      Kokkos::Max<double>(info.asymmetry), Kokkos::Max<double>(info.row_sum));
  space.fence("kflow::linalg::cg::check");
  return info;
}

// cg_operator_info2 or cg_operator_info3, by the operator's dimension.
template <class ExecSpace, class Op>
CgOperatorInfo cg_operator_info(const ExecSpace& space, const Op& op) {
  if constexpr (Op::dim == 2)
    return cg_operator_info2(space, op);
  else
    return cg_operator_info3(space, op);
}

}  // namespace kflow::linalg::detail
