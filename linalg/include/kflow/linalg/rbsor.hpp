#pragma once
// Red-black SOR for a 5-point operator (stencil.hpp), as in the seed-000
// paper (eqs. (10)-(11), with its typo in (11) corrected: the relaxation
// term uses the old value of the black cell):
//
//   x_P <- (1 - omega) x_P + omega (b_P - sum_nb c_nb x_nb) / c_P
//
// first on the red cells ((i + j) even, stored indices, i.e. the paper's
// 0-based interior numbering from the bottom-left cell), then on the black
// ones.  Any grid size (not only even imax); in a periodic direction the
// number of cells must be even, or a red cell would have a red neighbour.
//
// One kernel per colour.  On a convergence-check iteration the two sweeps
// are reductions that also return max |x_new - x_old| (criterion "change"),
// so no copy of the previous iterate is kept; the residual criterion costs
// one extra pass.  With tolerance 0 nothing comes back to the host.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/stencil.hpp"

namespace kflow::linalg {

namespace kernels {

// Policy over the cells of one colour: (ii, j), i = i0(j) + 2 ii.
template <class ExecSpace>
GridPolicy<ExecSpace, 2> colour_policy(const ExecSpace& space, const Grid& g) {
  const int half = (g.cells[0] + 1) / 2;
  if constexpr (on_gpu<ExecSpace>)
    return GridPolicy<ExecSpace, 2>(space, {0, 1}, {half, g.cells[1] + 1}, {64, 4});
  else
    return GridPolicy<ExecSpace, 2>(space, {0, 1}, {half, g.cells[1] + 1});
}

// The SOR update of cell (i, j); returns |change| (0 outside the system).
template <class Op, class X, class B, class Real>
KOKKOS_INLINE_FUNCTION Real sor_update(const Op& op, const X& x, const B& b, Real omega, int i,
                                       int j) {
  const auto c = op.coeffs(i, j);
  if (c.p == 0) return Real(0);
  const Real sigma = c.w * x(op.west(i), j) + c.e * x(op.east(i), j) + c.s * x(i, op.south(j)) +
                     c.n * x(i, op.north(j));
  const Real old = x(i, j);
  const Real updated = (Real(1) - omega) * old + omega * (b(i, j) - sigma) / c.p;
  x(i, j) = updated;
  return Kokkos::fabs(updated - old);
}

// One colour.  GPUs: one thread per cell of the colour (MDRange over
// (ii, j)).  CPUs: one task per row, looping over the row's cells of the
// colour (an MDRange of half-rows cost about 5x more per cell there).
template <class ExecSpace, class Op, class X, class B, class Real>
void rb_sweep(const ExecSpace& space, const Op& op, const X& x, const B& b, Real omega,
              int colour) {
  const int nx = op.grid.cells[0];
  if constexpr (on_gpu<ExecSpace>) {
    Kokkos::parallel_for(
        "kflow::linalg::rbsor::sweep", colour_policy(space, op.grid), KOKKOS_LAMBDA(int ii, int j) {
          const int i = 1 + ((1 + j + colour) & 1) + 2 * ii;
          if (i <= nx) sor_update(op, x, b, omega, i, j);
        });
  } else {
    Kokkos::parallel_for(
        "kflow::linalg::rbsor::sweep",
        Kokkos::RangePolicy<ExecSpace>(space, 1, op.grid.cells[1] + 1), KOKKOS_LAMBDA(int j) {
          for (int i = 1 + ((1 + j + colour) & 1); i <= nx; i += 2)
            sor_update(op, x, b, omega, i, j);
        });
  }
}

// The same sweep, returning max |change| over the colour.
template <class ExecSpace, class Op, class X, class B, class Real>
double rb_sweep_change(const ExecSpace& space, const Op& op, const X& x, const B& b, Real omega,
                       int colour) {
  const int nx = op.grid.cells[0];
  Real change = 0;
  if constexpr (on_gpu<ExecSpace>) {
    Kokkos::parallel_reduce(
        "kflow::linalg::rbsor::sweep_change", colour_policy(space, op.grid),
        KOKKOS_LAMBDA(int ii, int j, Real& acc) {
          const int i = 1 + ((1 + j + colour) & 1) + 2 * ii;
          if (i > nx) return;
          const Real d = sor_update(op, x, b, omega, i, j);
          acc = d > acc ? d : acc;
        },
        Kokkos::Max<Real>(change));
  } else {
    Kokkos::parallel_reduce(
        "kflow::linalg::rbsor::sweep_change",
        Kokkos::RangePolicy<ExecSpace>(space, 1, op.grid.cells[1] + 1),
        KOKKOS_LAMBDA(int j, Real& acc) {
          for (int i = 1 + ((1 + j + colour) & 1); i <= nx; i += 2) {
            const Real d = sor_update(op, x, b, omega, i, j);
            acc = d > acc ? d : acc;
          }
        },
        Kokkos::Max<Real>(change));
  }
  return double(change);
}

}  // namespace kernels

template <class ExecSpace, class Op>
class RedBlackSOR : public Solver2<ExecSpace, typename Op::real_type> {
 public:
  using Real = typename Op::real_type;
  using Base = Solver2<ExecSpace, Real>;

  RedBlackSOR(const ExecSpace& space, const Op& op, double omega)
      : space_(space), op_(op), omega_(omega) {
    if (!(omega > 0 && omega < 2))
      throw std::invalid_argument("red-black SOR: omega = " + std::to_string(omega) +
                                  " is outside (0, 2), where SOR converges");
    if ((op.px && op.grid.cells[0] % 2) || (op.py && op.grid.cells[1] % 2))
      throw std::invalid_argument(
          "red-black SOR: a periodic direction needs an even number of cells (" +
          op.grid.cells_text() + ")");
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    SolveStats s;
    const Real w = Real(omega_);
    const int every = std::max(1, c.check_every);
    double scale = 1;
    if (c.tolerance > 0 && c.criterion == Criterion::residual) {
      scale = system_max_norm(space_, op_, b);
      if (!(scale > 0)) scale = 1;
    }
    for (int k = 1; k <= c.max_iterations; ++k) {
      const bool check = c.tolerance > 0 && (k % every == 0 || k == c.max_iterations);
      if (check && c.criterion == Criterion::change) {
        const double red = kernels::rb_sweep_change(space_, op_, x, b, w, 0);
        const double black = kernels::rb_sweep_change(space_, op_, x, b, w, 1);
        s.criterion = std::max(red, black);
      } else {
        kernels::rb_sweep(space_, op_, x, b, w, 0);
        kernels::rb_sweep(space_, op_, x, b, w, 1);
        if (check) s.criterion = residual_max_norm(space_, op_, x, b) / scale;
      }
      s.iterations = k;
      if (check && s.criterion <= c.tolerance) {
        s.converged = true;
        break;
      }
    }
    return s;
  }

  std::string name() const override { return "rbsor"; }
  double omega() const { return omega_; }

 private:
  ExecSpace space_;
  Op op_;
  double omega_;
};

}  // namespace kflow::linalg
