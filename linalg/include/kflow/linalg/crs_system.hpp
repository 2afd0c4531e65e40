#pragma once
// A 5- or 7-point operator as the solvers over Kokkos Kernels (kk_cg.hpp,
// kk_gmres.hpp, kk_sor.hpp) see it: its CRS form (crs.hpp, times a sign), the
// rows that belong to the system (c.p != 0), the inverse diagonal, and the
// right-hand side's treatment they share with the matrix-free CG (cg.hpp):
// b = 0 outside the system, b - mean(b) for a singular system (every row
// summing to zero), and the scale max |b| of the residual criterion
// max |b - A x| / max |b|.  Needs Kokkos Kernels.

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosBlas1_nrminf.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosSparse_spmv.hpp>
#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/crs.hpp"

namespace kflow::linalg {

template <class ExecSpace, class Op>
class CrsSystem {
 public:
  using Real = typename Op::real_type;
  static constexpr int Dim = Op::dim;
  using memory_space = typename ExecSpace::memory_space;
  using V = Kokkos::View<Real*, Kokkos::Device<ExecSpace, memory_space>>;
  using Crs = CrsMatrix<Real, ExecSpace>;

  // `who` names the solver in errors.  The matrix is s A with s = -1 when
  // every diagonal coefficient of the system is negative (a positive
  // diagonal, as CG needs; GMRES, Jacobi, ILU and SOR iterate the same way
  // on either sign), else s = 1.
  CrsSystem(const ExecSpace& space, const Op& op, const std::string& who)
      : space_(space), grid_(op.grid) {
    if (op.grid.dim != Dim)
      throw std::invalid_argument(who + ": a " + std::to_string(Dim) + "D solver on a " +
                                  std::to_string(op.grid.dim) + "D grid");
    info_ = detail::cg_operator_info(space_, op);
    sign_ = info_.negative > 0 && info_.positive == 0 ? Real(-1) : Real(1);
    singular_ = info_.singular(64 * double(std::numeric_limits<Real>::epsilon()));
    A_ = make_crs(space_, op);
    if (sign_ != Real(1)) KokkosBlas::scal(space_, A_.values, sign_, A_.values);
    in_ = vector(who + "::in_system");
    dinv_ = vector(who + "::dinv");
    crs_diagonal(space_, op, in_, dinv_, sign_);
  }

  // A zeroed vector of the rows, labelled.
  V vector(const std::string& label) const {
    return V(Kokkos::view_alloc(space_, "kflow::" + label), A_.numRows());
  }

  // bv = sign (b - mean) on the system's rows, 0 elsewhere (mean: 0 unless
  // the system is singular).  Returns the residual criterion's scale,
  // max |b| over the system before the mean is removed (1 if that is 0 or
  // not finite), as cg.hpp.
  template <class B>
  double load_rhs(const B& b, const V& bv) const {
    gather_rows(space_, grid_, b, bv);
    KokkosBlas::mult(space_, Real(0), bv, Real(1), in_, bv);  // 0 outside the system
    double scale = double(KokkosBlas::nrminf(space_, bv));
    if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
    if (singular_) {
      const double mean = double(KokkosBlas::dot(space_, bv, in_)) / double(info_.cells());
      KokkosBlas::axpby(space_, Real(-mean), in_, Real(1), bv);
    }
    if (sign_ != Real(1)) KokkosBlas::scal(space_, bv, sign_, bv);
    return scale;
  }

  // r = b - A x (A: the signed matrix); returns max |r|.
  double residual(const V& x, const V& b, const V& r) const {
    Kokkos::deep_copy(space_, r, b);
    KokkosSparse::spmv(space_, "N", Real(-1), A_, x, Real(1), r);
    return double(KokkosBlas::nrminf(space_, r));
  }

  const Crs& matrix() const { return A_; }
  int rows() const { return A_.numRows(); }
  long cells() const { return info_.cells(); }  // rows in the system
  // The operator's diagonal signs, symmetry and row sums (cg_kernels.hpp).
  const detail::CgOperatorInfo& info() const { return info_; }
  bool singular() const { return singular_; }
  Real sign() const { return sign_; }
  const V& in_system() const { return in_; }  // 1 on the system's rows, else 0
  const V& dinv() const { return dinv_; }     // 1 / (sign c.p), 0 outside
  const Grid& grid() const { return grid_; }

 private:
  ExecSpace space_;
  Grid grid_;
  detail::CgOperatorInfo info_;
  Real sign_ = Real(1);
  bool singular_ = false;
  Crs A_;
  V in_, dinv_;
};

}  // namespace kflow::linalg
