#pragma once
// Preconditioned conjugate gradients for the symmetric 5-point (stencil.hpp)
// and 7-point (stencil7.hpp) operators, behind the Solver2 / Solver3
// interface (solver.hpp).
//
// Sign convention.  The operators store the matrix entries themselves, so
// the Laplacian is negative (semi)definite (c.p < 0).  CG runs on
// s A x = s b with s = -1 when the diagonal is negative (s = +1 when it is
// positive); a diagonal of both signs, or an operator that is not symmetric
// (c.e at P differs from c.w at P's east neighbour, ...), is rejected by the
// constructor.  Cells with c.p == 0 are not part of the system (obstacles):
// their value of x is left alone.
//
// Singular systems.  When every row of the system sums to zero (pure
// Neumann, periodic: the constants are in the null space; detected by the
// constructor with a relative tolerance of 64 machine epsilons of Real), CG
// solves the compatible system A x = b - mean(b), the mean taken over the
// cells of the system, and the residual criterion measures that system's
// residual.  (mac2d projects its right-hand side with outflow sides anyway;
// with only walls it is compatible up to rounding.)  The constant part of x
// is whatever the iteration leaves (that of the initial guess with no
// preconditioner).  With several disconnected regions the right-hand side
// must be compatible in each region: only the global mean is removed.
//
// Preconditioners: none, or Jacobi (z = r / diag).
//
// Stopping (SolveControl):
//   residual  max |b - A x| / max |b| (absolute where b = 0), as for
//             red-black SOR and SIP.  Every check_every iterations the
//             max-norm of the recursively updated residual r is read (it is
//             reduced in the update kernel, no extra pass); when it reaches
//             the tolerance (or at the last iteration) the true residual
//             b - A x is computed and decides.  If the true residual has not
//             reached the tolerance, r is replaced by it and CG restarts
//             from the steepest-descent direction (residual replacement).
//   change    max |x^(k) - x^(k-1)| = |alpha_k| max |p_k|, the definition of
//             solver.hpp, reduced in the update kernel.  Unlike SOR's
//             correction it says little about the error (CG's steps are not
//             monotone); the residual criterion is the one to use for CG.
//   tolerance 0 runs exactly max_iterations with no host synchronisation.
// A breakdown (p.Ap <= 0 or non-finite values seen at a check, before
// convergence) ends the solve with converged = false.
//
// GPU efficiency.  An iteration is two kernels with one scalar reduction
// each and no host synchronisation:
//   direction  p_new = z + beta p_old at the cell and its neighbours
//              (z = r or r / diag, computed on the fly; p is double
//              buffered), q = s A p_new, reduces p_new.q;
//   update     alpha = (r.z) / (p.q), x += alpha p, r -= alpha q, reduces
//              r.z (and max |r|, max |alpha p| for the checks).
// alpha and beta are computed by every thread from the reduction results,
// which stay in device memory (the reductions into Views do not block the
// host): the host only reads them at convergence checks.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/linalg/stencil7.hpp"

namespace kflow::linalg {

enum class CgPreconditioner { none, jacobi };

inline const char* name(CgPreconditioner p) {
  return p == CgPreconditioner::jacobi ? "jacobi" : "none";
}

namespace kernels {

// The scalars one CG reduction returns.
struct CgSums {
  double dot;   // r.z (update, residual) or p.q (direction)
  double rmax;  // max |r|
  double dmax;  // max |alpha p| (the change criterion)
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
    dst.rmax = dst.rmax > src.rmax ? dst.rmax : src.rmax;
    dst.dmax = dst.dmax > src.dmax ? dst.dmax : src.dmax;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0.0, 0.0, 0.0}; }
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
    for (int i = 1; i <= nx; ++i) body(acc, s, i, j);
  }
};
template <class Body, class Value>
struct CgReduceRows<3, Body, Value> {
  Body body;
  int nx, ny;
  KOKKOS_INLINE_FUNCTION void operator()(int line, Value& acc) const {
    const int j = 1 + line % ny, k = 1 + line / ny;
    const auto s = body.scalar();
    for (int i = 1; i <= nx; ++i) body(acc, s, i, j, k);
  }
};

template <int Dim, class ExecSpace, class Body, class Reducer>
void cg_reduce(const ExecSpace& space, const char* label, const Grid& g, const Body& body,
               const Reducer& reducer) {
  using Value = typename Reducer::value_type;
  if constexpr (on_gpu<ExecSpace>) {
    grid_reduce<Dim>(space, label, g, false, CgReduceCells<Dim, Body, Value>{body}, reducer);
  } else if constexpr (Dim == 2) {
    Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 1, g.cells[1] + 1),
                            CgReduceRows<2, Body, Value>{body, g.cells[0]}, reducer);
  } else {
    Kokkos::parallel_reduce(label, RangePolicy<ExecSpace>(space, 0, g.cells[1] * g.cells[2]),
                            CgReduceRows<3, Body, Value>{body, g.cells[0], g.cells[1]}, reducer);
  }
}

// z = r or r / diag (Jacobi) at a cell, from the value rc of r there.
template <bool Jacobi, class F, class... I>
KOKKOS_INLINE_FUNCTION typename F::value_type cg_z(typename F::value_type rc, const F& dinv,
                                                   I... idx) {
  if constexpr (Jacobi)
    return rc * dinv(idx...);
  else
    return rc;
}

// The new search direction evaluated anywhere (the operator reads it at the
// neighbours): z + beta p_old.
template <bool Jacobi, class F>
struct CgDirectionValue {
  using Real = typename F::value_type;
  F r, dinv, pold;
  Real beta;
  bool restart;
  template <class... I>
  KOKKOS_INLINE_FUNCTION Real operator()(I... idx) const {
    const Real z = cg_z<Jacobi>(r(idx...), dinv, idx...);
    return restart ? z : z + beta * pold(idx...);
  }
};

// direction: p_new = z + beta p_old, q = s A p_new, reduces p_new.q into
// sums(slot_pq).dot.  beta = rz(prev) / rz(prev2).
template <bool Jacobi, class Op, class F, class S>
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
    const CgDirectionValue<Jacobi, F> pv{r, dinv, pold, beta, restart};
    const Real pc = pv(idx...);
    const Real qc = sign * apply_at(op, pv, idx...);
    pnew(idx...) = pc;
    q(idx...) = qc;
    acc += double(pc) * double(qc);
  }
};

// update: alpha = rz(prev) / pq, x += alpha p, r -= alpha q; reduces r.z,
// max |r| and max |alpha p| into sums(cur).
template <bool Jacobi, class X, class F, class S>
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
    const Real z = cg_z<Jacobi>(rc, dinv, idx...);
    acc.dot += double(rc) * double(z);
    const double ra = nan_as_inf(Kokkos::fabs(double(rc)));
    const double da = nan_as_inf(Kokkos::fabs(double(alpha * pc)));
    acc.rmax = ra > acc.rmax ? ra : acc.rmax;
    acc.dmax = da > acc.dmax ? da : acc.dmax;
  }
};

// residual: r = s (b - mean - A x) on the system (0 elsewhere), mean =
// sums(slot_b).dot / cells when projecting; reduces r.z and max |r|.
template <bool Jacobi, class Op, class X, class B, class F, class S>
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
    const Real z = cg_z<Jacobi>(rc, dinv, idx...);
    acc.dot += double(rc) * double(z);
    const double ra = nan_as_inf(Kokkos::fabs(double(rc)));
    acc.rmax = ra > acc.rmax ? ra : acc.rmax;
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
  long positive = 0, negative = 0;  // diagonal signs
  double asymmetry = 0;             // max |A_PE - A_EP| / (|A_PE| + |A_EP|) etc.
  double row_sum = 0;               // max |sum of the row| / |A_PP|
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
        // Neighbours beyond the grid (ghosts) must have zero coefficients.
        const double ee = i < nx ? double(op.coeffs(i + 1, j, k).w) : 0.0;
        const double nn = j < ny ? double(op.coeffs(i, j + 1, k).s) : 0.0;
        const double tt = k < nz ? double(op.coeffs(i, j, k + 1).b) : 0.0;
        double a = Kokkos::fmax(cg_rel(double(c.e), ee),
                                Kokkos::fmax(cg_rel(double(c.n), nn), cg_rel(double(c.t), tt)));
        const bool dangling = (c.w != 0 && (i == 1 || op.coeffs(i - 1, j, k).p == 0)) ||
                              (c.s != 0 && (j == 1 || op.coeffs(i, j - 1, k).p == 0)) ||
                              (c.b != 0 && (k == 1 || op.coeffs(i, j, k - 1).p == 0));
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

}  // namespace kernels

template <class ExecSpace, class Real, int Dim>
using SolverBase = std::conditional_t<Dim == 2, Solver2<ExecSpace, Real>, Solver3<ExecSpace, Real>>;

template <class ExecSpace, class Op, int Dim>
class ConjugateGradient : public SolverBase<ExecSpace, typename Op::real_type, Dim> {
 public:
  using Real = typename Op::real_type;
  using Base = SolverBase<ExecSpace, Real, Dim>;
  using memory_space = typename ExecSpace::memory_space;
  using F = Field<Real, Dim, memory_space>;
  using Sums = Kokkos::View<kernels::CgSums*, memory_space>;

  ConjugateGradient(const ExecSpace& space, const Op& op,
                    CgPreconditioner pre = CgPreconditioner::jacobi)
      : space_(space), op_(op), pre_(pre) {
    if (op.grid.dim != Dim)
      throw std::invalid_argument("CG: a " + std::to_string(Dim) + "D solver on a " +
                                  std::to_string(op.grid.dim) + "D grid");
    kernels::CgOperatorInfo info;
    if constexpr (Dim == 2)
      info = kernels::cg_operator_info2(space_, op_);
    else
      info = kernels::cg_operator_info3(space_, op_);
    if (info.positive > 0 && info.negative > 0)
      throw std::invalid_argument(
          "CG: the diagonal has both signs (" + std::to_string(info.positive) + " positive, " +
          std::to_string(info.negative) +
          " negative entries): the operator is not definite; use red-black SOR or SIP");
    const double eps = 64 * double(std::numeric_limits<Real>::epsilon());
    if (!(info.asymmetry <= eps))
      throw std::invalid_argument(
          "CG: the operator is not symmetric (relative difference " +
          std::to_string(info.asymmetry) +
          " between a coefficient and its neighbour's mirror entry, or a non-zero coefficient "
          "to a cell outside the system); use red-black SOR or SIP");
    cells_ = info.positive + info.negative;
    sign_ = info.negative > 0 ? Real(-1) : Real(1);
    singular_ = cells_ > 0 && info.row_sum <= eps;
    const Grid& g = op.grid;
    r_ = make_field<Real, Dim>(space_, "kflow::cg::r", g);
    q_ = make_field<Real, Dim>(space_, "kflow::cg::q", g);
    p_[0] = make_field<Real, Dim>(space_, "kflow::cg::p0", g);
    p_[1] = make_field<Real, Dim>(space_, "kflow::cg::p1", g);
    if (pre_ == CgPreconditioner::jacobi) {
      dinv_ = make_field<Real, Dim>(space_, "kflow::cg::dinv", g);
      kernels::cg_diagonal(space_, op_, dinv_, sign_);
    }
    // Slots: 0, 1 r.z of alternate iterations; 2 the right-hand side; 3 p.q.
    sums_ = Sums(Kokkos::view_alloc(space_, "kflow::cg::sums"), 4);
    host_ = Kokkos::create_mirror_view(Kokkos::HostSpace(), sums_);
    space_.fence("kflow::linalg::cg::setup");
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    if (pre_ == CgPreconditioner::jacobi) return run<true>(x, b, c);
    return run<false>(x, b, c);
  }

  std::string name() const override { return std::string("cg (") + linalg::name(pre_) + ")"; }
  CgPreconditioner preconditioner() const { return pre_; }
  // Whether the constants are in the null space (the right-hand side is
  // projected).
  bool singular() const { return singular_; }
  // +1 or -1: CG runs on sign * A (positive definite).
  double sign() const { return double(sign_); }

 private:
  template <bool J>
  SolveStats run(const typename Base::X& x, const typename Base::B& b, const SolveControl& c) {
    using XV = typename Base::X;
    using BV = typename Base::B;
    SolveStats s;
    if (cells_ == 0) {
      s.converged = true;
      s.criterion = 0;
      return s;
    }
    const Grid& g = op_.grid;
    const bool checks = c.tolerance > 0;
    const bool residual_rule = c.criterion == Criterion::residual;
    const int every = std::max(1, c.check_every);
    auto slot = [&](int k) {
      return Kokkos::View<kernels::CgSums, memory_space>(&sums_.data()[k]);
    };
    auto read = [&](int k) {
      Kokkos::deep_copy(space_, host_, sums_);
      space_.fence("kflow::linalg::cg::check");
      return host_(k);
    };
    double scale = 1;
    if (singular_ || (checks && residual_rule)) {
      kernels::cg_reduce<Dim>(space_, "kflow::linalg::cg::rhs", g, kernels::CgRhs<Op, BV>{op_, b},
                              kernels::CgReducer<memory_space>(slot(2)));
      if (checks && residual_rule) {
        scale = read(2).rmax;
        if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
      }
    }
    const double inv_cells = singular_ ? 1.0 / double(cells_) : 0.0;
    // r = s (b - mean - A x) into slot `k`; returns nothing (device).
    auto residual = [&](int k) {
      kernels::cg_reduce<Dim>(space_, "kflow::linalg::cg::residual", g,
                              kernels::CgResidual<J, Op, XV, BV, F, Sums>{
                                  op_, x, b, r_, dinv_, sums_, 2, inv_cells, sign_},
                              kernels::CgReducer<memory_space>(slot(k)));
    };
    int prev = 0;  // the slot holding the latest r.z
    residual(prev);
    bool restart = true;
    for (int k = 1; k <= c.max_iterations; ++k) {
      const int cur = 1 - prev;
      const F& pold = p_[pnew_ ^ 1];
      const F& pnew = p_[pnew_];
      kernels::cg_reduce<Dim>(space_, "kflow::linalg::cg::direction", g,
                              kernels::CgDirection<J, Op, F, Sums>{
                                  op_, r_, dinv_, pold, pnew, q_, sums_, prev, cur, restart, sign_},
                              Kokkos::Sum<double, memory_space>(
                                  Kokkos::View<double, memory_space>(&sums_.data()[3].dot)));
      kernels::cg_reduce<Dim>(
          space_, "kflow::linalg::cg::update", g,
          kernels::CgUpdate<J, XV, F, Sums>{x, pnew, q_, r_, dinv_, sums_, prev, 3},
          kernels::CgReducer<memory_space>(slot(cur)));
      pnew_ ^= 1;
      prev = cur;
      restart = false;
      s.iterations = k;
      const bool check = checks && (k % every == 0 || k == c.max_iterations);
      if (!check) continue;
      const kernels::CgSums h = read(prev);
      const double pq = host_(3).dot;
      double crit = residual_rule ? h.rmax / scale : h.dmax;
      if (residual_rule && crit < HUGE_VAL && (crit <= c.tolerance || k == c.max_iterations)) {
        // The true residual decides (and replaces r: a restart).
        residual(prev);
        crit = read(prev).rmax / scale;
        restart = true;
      }
      s.criterion = crit;
      if (!(crit < HUGE_VAL)) break;  // NaN/inf: diverged
      if (crit <= c.tolerance) {
        s.converged = true;
        break;
      }
      if (!(pq > 0) || !(pq < HUGE_VAL)) break;  // breakdown
    }
    return s;
  }

  ExecSpace space_;
  Op op_;
  CgPreconditioner pre_;
  long cells_ = 0;
  Real sign_ = -1;
  bool singular_ = false;
  F r_, q_, dinv_, p_[2];
  int pnew_ = 0;
  Sums sums_;
  typename Sums::host_mirror_type host_;
};

template <class ExecSpace, class Op>
using Cg2 = ConjugateGradient<ExecSpace, Op, 2>;
template <class ExecSpace, class Op>
using Cg3 = ConjugateGradient<ExecSpace, Op, 3>;

}  // namespace kflow::linalg
