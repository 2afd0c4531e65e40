#pragma once
// Stone's SIP for 7-point operators (stencil7.hpp): the 3D version the seed-003
// paper leaves as future work.  Formulas: Ferziger & Peric's 3D form (digest
// 003 section 3.3), with B = (i, j, k-1), T = (i, j, k+1):
//
//   L_B = A_B / (1 + alpha (U_N(B) + U_E(B)))
//   L_W = A_W / (1 + alpha (U_N(W) + U_T(W)))
//   L_S = A_S / (1 + alpha (U_E(S) + U_T(S)))
//   P1 = alpha (L_B U_N(B) + L_W U_N(W))
//   P2 = alpha (L_B U_E(B) + L_S U_E(S))
//   P3 = alpha (L_W U_T(W) + L_S U_T(S))
//   L_P = A_P + P1 + P2 + P3 - L_B U_T(B) - L_W U_E(W) - L_S U_N(S)
//   U_N = (A_N - P1) / L_P,  U_E = (A_E - P2) / L_P,  U_T = (A_T - P3) / L_P
//   forward  y = (r - L_B y(B) - L_W y(W) - L_S y(S)) / L_P
//   backward d = y - U_N d(N) - U_E d(E) - U_T d(T);  x += d
//
// Every decision of sip.hpp holds here (alpha in [0, 1), SolveControl
// criteria, factorization once, obstacles, no periodic directions).
// Orderings: lexicographic (one thread; host backends) and diagonals, here
// one launch per hyperplane i + j + k = const (Deserno et al.'s "hyperplane"
// ordering; digest 003 open question 6), nx + ny + nz - 2 launches per sweep.
// The pipelined strips of the 2D solver are not carried over to 3D.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kflow/linalg/sip.hpp"
#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/stencil7.hpp"

namespace kflow::linalg {

template <class Real, class MemSpace>
struct SipFactors3 {
  Field<Real, 3, MemSpace> lb, lw, ls, lpinv, un, ue, ut;
};

namespace kernels {

template <class Op, class F, class Real>
KOKKOS_INLINE_FUNCTION bool sip3_factor_at(const Op& op, const F& f, Real alpha, int i, int j,
                                           int k) {
  const auto c = op.coeffs(i, j, k);
  if (c.p == 0) {
    f.lb(i, j, k) = f.lw(i, j, k) = f.ls(i, j, k) = f.lpinv(i, j, k) = Real(0);
    f.un(i, j, k) = f.ue(i, j, k) = f.ut(i, j, k) = Real(0);
    return false;
  }
  // ghost values of un/ue/ut are 0
  const Real unb = f.un(i, j, k - 1), ueb = f.ue(i, j, k - 1), utb = f.ut(i, j, k - 1);
  const Real unw = f.un(i - 1, j, k), uew = f.ue(i - 1, j, k), utw = f.ut(i - 1, j, k);
  const Real uns = f.un(i, j - 1, k), ues = f.ue(i, j - 1, k), uts = f.ut(i, j - 1, k);
  const Real lb = c.b / (Real(1) + alpha * (unb + ueb));
  const Real lw = c.w / (Real(1) + alpha * (unw + utw));
  const Real ls = c.s / (Real(1) + alpha * (ues + uts));
  const Real p1 = alpha * (lb * unb + lw * unw);
  const Real p2 = alpha * (lb * ueb + ls * ues);
  const Real p3 = alpha * (lw * utw + ls * uts);
  const Real lp = c.p + p1 + p2 + p3 - lb * utb - lw * uew - ls * uns;
  const bool bad = !(Kokkos::fabs(lp) > Real(0));
  const Real r = bad ? Real(0) : Real(1) / lp;
  f.lb(i, j, k) = lb;
  f.lw(i, j, k) = lw;
  f.ls(i, j, k) = ls;
  f.lpinv(i, j, k) = r;
  f.un(i, j, k) = (c.n - p1) * r;
  f.ue(i, j, k) = (c.e - p2) * r;
  f.ut(i, j, k) = (c.t - p3) * r;
  return bad;
}

template <class F, class R>
KOKKOS_INLINE_FUNCTION void sip3_forward_at(const F& f, const R& r, int i, int j, int k) {
  r(i, j, k) = (r(i, j, k) - f.lb(i, j, k) * r(i, j, k - 1) - f.lw(i, j, k) * r(i - 1, j, k) -
                f.ls(i, j, k) * r(i, j - 1, k)) *
               f.lpinv(i, j, k);
}

template <class F, class R, class X>
KOKKOS_INLINE_FUNCTION void sip3_backward_at(const F& f, const R& r, const X& x, int i, int j,
                                             int k) {
  const auto d = r(i, j, k) - f.un(i, j, k) * r(i, j + 1, k) - f.ue(i, j, k) * r(i + 1, j, k) -
                 f.ut(i, j, k) * r(i, j, k + 1);
  r(i, j, k) = d;
  x(i, j, k) += d;
}

template <class ExecSpace, class Op, class F, class R, class X, class Real>
long sip3_lexicographic(const ExecSpace& space, const Op& op, const F& f, const R& r, const X& x,
                        Real alpha, int what) {
  const int nx = op.grid.cells[0], ny = op.grid.cells[1], nz = op.grid.cells[2];
  long bad = 0;
  Kokkos::parallel_reduce(
      "kflow::linalg::sip3::lexicographic", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(int, long& acc) {
        if (what == 0) {
          for (int k = 1; k <= nz; ++k)
            for (int j = 1; j <= ny; ++j)
              for (int i = 1; i <= nx; ++i) acc += sip3_factor_at(op, f, alpha, i, j, k);
        } else if (what == 1) {
          for (int k = 1; k <= nz; ++k)
            for (int j = 1; j <= ny; ++j)
              for (int i = 1; i <= nx; ++i) sip3_forward_at(f, r, i, j, k);
        } else {
          for (int k = nz; k >= 1; --k)
            for (int j = ny; j >= 1; --j)
              for (int i = nx; i >= 1; --i) sip3_backward_at(f, r, x, i, j, k);
        }
      },
      bad);
  return bad;
}

// One launch per hyperplane (i-1) + (j-1) + (k-1) = dg, over (i, j) with k
// following.
template <class ExecSpace, class Op, class F, class R, class X, class Real, class Bad>
void sip3_planes(const ExecSpace& space, const Op& op, const F& f, const R& r, const X& x,
                 Real alpha, int what, const Bad& bad) {
  const int nx = op.grid.cells[0], ny = op.grid.cells[1], nz = op.grid.cells[2];
  const int last = nx + ny + nz - 3;
  using P = GridPolicy<ExecSpace, 2>;
  for (int q = 0; q <= last; ++q) {
    const int dg = what == 2 ? last - q : q;
    // i + j = dg + 3 - k with 1 <= k <= nz
    const int ilo = std::max(1, dg + 3 - ny - nz), ihi = std::min(nx, dg + 1);
    const int jlo = std::max(1, dg + 3 - nx - nz), jhi = std::min(ny, dg + 1);
    if (ilo > ihi || jlo > jhi) continue;
    Kokkos::parallel_for(
        what == 0   ? "kflow::linalg::sip3::factor_plane"
        : what == 1 ? "kflow::linalg::sip3::forward_plane"
                    : "kflow::linalg::sip3::backward_plane",
        P(space, {ilo, jlo}, {ihi + 1, jhi + 1}), KOKKOS_LAMBDA(int i, int j) {
          const int k = dg + 3 - i - j;
          if (k < 1 || k > nz) return;
          if (what == 0) {
            if (sip3_factor_at(op, f, alpha, i, j, k)) Kokkos::atomic_inc(&bad());
          } else if (what == 1) {
            sip3_forward_at(f, r, i, j, k);
          } else {
            sip3_backward_at(f, r, x, i, j, k);
          }
        });
  }
}

}  // namespace kernels

template <class ExecSpace, class Op>
class Sip3 : public Solver3<ExecSpace, typename Op::real_type> {
 public:
  using Real = typename Op::real_type;
  using Base = Solver3<ExecSpace, Real>;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr bool gpu = !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

  Sip3(const ExecSpace& space, const Op& op, double alpha = 0.92,
       SipOrdering ordering = SipOrdering::automatic)
      : space_(space), op_(op), alpha_(alpha), ordering_(ordering) {
    if (!(alpha >= 0 && alpha < 1))
      throw std::invalid_argument("SIP 3D: alpha = " + std::to_string(alpha) +
                                  " is outside [0, 1) (alpha = 0 is ILU(0); Stone's "
                                  "procedure needs alpha < 1)");
    if (op.px || op.py || op.pz)
      throw std::invalid_argument("SIP 3D: periodic directions are not supported");
    if (ordering_ == SipOrdering::automatic)
      ordering_ = gpu ? SipOrdering::diagonals : SipOrdering::lexicographic;
    if (ordering_ == SipOrdering::pipelined || ordering_ == SipOrdering::tiles)
      throw std::invalid_argument(
          "SIP 3D: the pipelined and tiles orderings exist only in 2D; use "
          "diagonals (hyperplanes) or lexicographic");
    if (gpu && ordering_ == SipOrdering::lexicographic)
      throw std::invalid_argument(
          "SIP 3D: the lexicographic ordering runs on one thread; use "
          "diagonals on a GPU");
    const Grid& g = op.grid;
    auto make = [&](const char* label) {
      return make_field<Real, 3>(space, label, g);
    };
    f_.lb = make("kflow::sip3::lb");
    f_.lw = make("kflow::sip3::lw");
    f_.ls = make("kflow::sip3::ls");
    f_.lpinv = make("kflow::sip3::lpinv");
    f_.un = make("kflow::sip3::un");
    f_.ue = make("kflow::sip3::ue");
    f_.ut = make("kflow::sip3::ut");
    r_ = make("kflow::sip3::r");
    long bad = 0;
    if (ordering_ == SipOrdering::lexicographic) {
      bad = kernels::sip3_lexicographic(space_, op_, f_, r_, r_, Real(alpha_), 0);
    } else {
      Kokkos::View<long, memory_space> nbad("kflow::sip3::bad");
      kernels::sip3_planes(space_, op_, f_, r_, r_, Real(alpha_), 0, nbad);
      Kokkos::deep_copy(bad, nbad);
    }
    space_.fence("kflow::linalg::sip3::factor");
    if (bad)
      throw std::runtime_error("SIP 3D: " + std::to_string(bad) +
                               " zero or NaN pivots L_P in the incomplete factorization (alpha = " +
                               std::to_string(alpha) + ")");
  }

  // z = M^{-1} r: SIP as a preconditioner (r is not modified).
  void precondition(const Field<const Real, 3, memory_space>& r,
                    const Field<Real, 3, memory_space>& z) {
    Kokkos::deep_copy(space_, z, Real(0));
    kernels::sip_copy_interior(space_, op_.grid, r, r_);
    sweeps(z);
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    SolveStats s;
    const int every = std::max(1, c.check_every);
    // The residual criterion is relative to max |b| (solver.hpp), as for
    // red-black SOR.
    double scale = 1;
    if (c.tolerance > 0 && c.criterion == Criterion::residual) {
      scale = system_max_norm3(space_, op_, b);
      if (!(scale > 0) || !(scale < HUGE_VAL)) scale = 1;
    }
    for (int k = 1; k <= c.max_iterations; ++k) {
      residual3(space_, op_, x, b, r_);
      sweeps(x);
      s.iterations = k;
      const bool check = c.tolerance > 0 && (k % every == 0 || k == c.max_iterations);
      if (!check) continue;
      s.criterion = c.criterion == Criterion::change
                        ? kernels::sip_max_abs(space_, op_.grid, r_)
                        : residual_max_norm3(space_, op_, x, b) / scale;
      if (!(s.criterion < HUGE_VAL)) break;  // NaN/inf: diverged
      if (s.criterion <= c.tolerance) {
        s.converged = true;
        break;
      }
    }
    return s;
  }

  std::string name() const override {
    return std::string("sip3d (") +
           (ordering_ == SipOrdering::diagonals ? "hyperplanes" : "lexicographic") + ")";
  }
  double alpha() const { return alpha_; }
  const SipFactors3<Real, memory_space>& factors() const { return f_; }

 private:
  void sweeps(const Field<Real, 3, memory_space>& x) {
    if (ordering_ == SipOrdering::lexicographic) {
      kernels::sip3_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 1);
      kernels::sip3_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 2);
    } else {
      Kokkos::View<long, memory_space> unused;
      kernels::sip3_planes(space_, op_, f_, r_, x, Real(alpha_), 1, unused);
      kernels::sip3_planes(space_, op_, f_, r_, x, Real(alpha_), 2, unused);
    }
  }

  ExecSpace space_;
  Op op_;
  double alpha_;
  SipOrdering ordering_;
  SipFactors3<Real, memory_space> f_;
  Field<Real, 3, memory_space> r_;
};

}  // namespace kflow::linalg
