#pragma once
// Red-black SOR for a 5-point operator (stencil.hpp, operator.hpp), as in Menenguci,
// Valli, Catabriga & Veronese (eqs. (10)-(11), with the typo in (11) corrected: the relaxation
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
// detail::rb_sweep also sweeps 7-point operators (multigrid's 3D smoother).

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/stationary.hpp"

namespace kflow::linalg {

namespace detail {

// Policy over the cells of one colour: (ii, j), i = i0(j) + 2 ii.
template <class ExecSpace>
GridPolicy<ExecSpace, 2> colour_policy(const ExecSpace& space, const Grid& g) {
  const int half = (g.cells[0] + 1) / 2;
  if constexpr (on_gpu<ExecSpace>)
    return GridPolicy<ExecSpace, 2>(space, {0, 1}, {half, g.cells[1] + 1}, {64, 4});
  else
    return GridPolicy<ExecSpace, 2>(space, {0, 1}, {half, g.cells[1] + 1});
}

// The SOR formula, shared by every kernel so that all give the same bits.
template <class Real>
KOKKOS_INLINE_FUNCTION Real sor_value(const Coeffs5<Real>& c, Real old, Real xw, Real xe, Real xs,
                                      Real xn, Real b, Real omega) {
  const Real sigma = c.w * xw + c.e * xe + c.s * xs + c.n * xn;
  return (Real(1) - omega) * old + omega * (b - sigma) / c.p;
}

// The SOR update of cell (i, j); returns |change| (0 outside the system).
template <class Op, class X, class B, class Real>
KOKKOS_INLINE_FUNCTION Real sor_update(const Op& op, const X& x, const B& b, Real omega, int i,
                                       int j) {
  const auto c = op.coeffs(i, j);
  if (c.p == 0) return Real(0);
  const Real old = x(i, j);
  const Real updated = sor_value(c, old, x(op.west(i), j), x(op.east(i), j), x(i, op.south(j)),
                                 x(i, op.north(j)), Real(b(i, j)), omega);
  x(i, j) = updated;
  return nan_as_inf(Kokkos::fabs(updated - old));
}

// One whole red-black iteration in one kernel (GPUs, no periodic
// direction).  A team owns a TX x TY tile: it loads the tile and two halo
// layers into scratch memory, updates the red cells of the tile and of one
// halo layer (the halo ring's red values are recomputed, from the same
// inputs, by the neighbouring tiles too), then the black cells of the tile,
// and writes the tile back.  Same arithmetic on the same values as the two
// sweeps, so the same bits; one launch and one pass over x instead of two.
// `first` = 1 sweeps the black cells first (multigrid's post-smoothing, so
// that its V-cycle stays symmetric).
template <class ExecSpace, class Op, class X, class B, class Real>
void rb_iteration_fused(const ExecSpace& space, const Op& op, const X& x, const B& b, Real omega,
                        int first = 0) {
  constexpr int TX = 64, TY = 8, SX = TX + 4, SY = TY + 4;
  const int nx = op.grid.cells[0], ny = op.grid.cells[1];
  const int tiles_x = (nx + TX - 1) / TX, tiles_y = (ny + TY - 1) / TY;
  using Policy = Kokkos::TeamPolicy<ExecSpace, LightWeight>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<Real**, Kokkos::LayoutLeft, typename ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Policy policy(space, tiles_x * tiles_y, 128);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(SX, SY)));
  Kokkos::parallel_for(
      "kflow::linalg::rbsor::iteration_fused", policy, KOKKOS_LAMBDA(const Member& team) {
        const int t = team.league_rank();
        const int i0 = 1 + (t % tiles_x) * TX, j0 = 1 + (t / tiles_x) * TY;
        // Scratch (a, c) holds x(i0 - 2 + a, j0 - 2 + c).
        Scratch s(team.team_scratch(0), SX, SY);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, SX * SY), [&](int k) {
          const int i = i0 - 2 + k % SX, j = j0 - 2 + k / SX;
          if (i >= 0 && i <= nx + 1 && j >= 0 && j <= ny + 1) s(k % SX, k / SX) = x(i, j);
        });
        team.team_barrier();
        // The cells of one colour (red: i + j even, as rb_sweep) in rows
        // c0 .. c0 + rows - 1 and columns a0 .. a0 + 2 per_row - 1.
        auto sweep = [&](int parity, int a0, int c0, int rows, int per_row) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, per_row * rows), [&](int k) {
            const int c = c0 + k / per_row;
            const int a = a0 + ((a0 + c + i0 + j0 + parity) & 1) + 2 * (k % per_row);
            const int i = i0 - 2 + a, j = j0 - 2 + c;
            if (i < 1 || i > nx || j < 1 || j > ny) return;
            const auto cf = op.coeffs(i, j);
            if (cf.p == 0) return;
            s(a, c) = sor_value(cf, s(a, c), s(a - 1, c), s(a + 1, c), s(a, c - 1), s(a, c + 1),
                                Real(b(i, j)), omega);
          });
        };
        sweep(first, 1, 1, SY - 2, (SX - 2) / 2);  // first colour: the tile and one halo layer
        team.team_barrier();
        sweep(1 - first, 2, 2, SY - 4, (SX - 4) / 2);  // second colour: the tile
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TX * TY), [&](int k) {
          const int i = i0 + k % TX, j = j0 + k / TX;
          if (i <= nx && j <= ny) x(i, j) = s(2 + k % TX, 2 + k / TX);
        });
      });
}

// The SOR update of a 3D cell (i, j, k) (7-point operator).
template <class Op, class X, class B, class Real>
KOKKOS_INLINE_FUNCTION void sor_update(const Op& op, const X& x, const B& b, Real omega, int i,
                                       int j, int k) {
  const auto c = op.coeffs(i, j, k);
  if (c.p == 0) return;
  const Real old = x(i, j, k);
  const Real sigma = c.w * x(op.west(i), j, k) + c.e * x(op.east(i), j, k) +
                     c.s * x(i, op.south(j), k) + c.n * x(i, op.north(j), k) +
                     c.b * x(i, j, op.bottom(k)) + c.t * x(i, j, op.top(k));
  x(i, j, k) = (Real(1) - omega) * old + omega * (Real(b(i, j, k)) - sigma) / c.p;
}

// One colour (red: i + j [+ k] even, stored indices).  GPUs: one thread per
// cell of the colour (MDRange over (ii, j[, k])).  CPUs: one task per row
// (2D) or line (3D), looping over the line's cells of the colour (an MDRange
// of half-rows cost about 5x more per cell there).
template <class ExecSpace, class Op, class X, class B, class Real>
void rb_sweep(const ExecSpace& space, const Op& op, const X& x, const B& b, Real omega,
              int colour) {
  const int nx = op.grid.cells[0];
  if constexpr (Op::dim == 3) {
    const int ny = op.grid.cells[1], nz = op.grid.cells[2];
    if constexpr (on_gpu<ExecSpace>) {
      const int half = (nx + 1) / 2;
      Kokkos::parallel_for(
          "kflow::linalg::rbsor::sweep3",
          GridPolicy<ExecSpace, 3>(space, {0, 1, 1}, {half, ny + 1, nz + 1}, {32, 2, 2}),
          KOKKOS_LAMBDA(int ii, int j, int k) {
            const int i = 1 + ((1 + j + k + colour) & 1) + 2 * ii;
            if (i <= nx) sor_update(op, x, b, omega, i, j, k);
          });
    } else {
      Kokkos::parallel_for(
          "kflow::linalg::rbsor::sweep3", RangePolicy<ExecSpace>(space, 0, ny * nz),
          KOKKOS_LAMBDA(int line) {
            const int j = 1 + line % ny, k = 1 + line / ny;
            for (int i = 1 + ((1 + j + k + colour) & 1); i <= nx; i += 2)
              sor_update(op, x, b, omega, i, j, k);
          });
    }
  } else if constexpr (on_gpu<ExecSpace>) {
    Kokkos::parallel_for(
        "kflow::linalg::rbsor::sweep", colour_policy(space, op.grid), KOKKOS_LAMBDA(int ii, int j) {
          const int i = 1 + ((1 + j + colour) & 1) + 2 * ii;
          if (i <= nx) sor_update(op, x, b, omega, i, j);
        });
  } else {
    Kokkos::parallel_for(
        "kflow::linalg::rbsor::sweep", RangePolicy<ExecSpace>(space, 1, op.grid.cells[1] + 1),
        KOKKOS_LAMBDA(int j) {
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
        RangePolicy<ExecSpace>(space, 1, op.grid.cells[1] + 1),
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

}  // namespace detail

struct SorOptions {
  double omega = 1.0;  // relaxation factor, in (0, 2)
  // GPUs: one fused kernel per iteration (both colours; not with periodic
  // directions).  Off runs one kernel per colour, for comparisons.
  bool fused = true;
};

template <class ExecSpace, class Op>
class RedBlackSOR : public Solver<ExecSpace, typename Op::real_type, 2> {
 public:
  using Real = typename Op::real_type;
  using Base = Solver<ExecSpace, Real, 2>;

  RedBlackSOR(const ExecSpace& space, const Op& op, const SorOptions& options)
      : space_(space), op_(op), omega_(options.omega) {
    if (!(omega_ > 0 && omega_ < 2))
      throw std::invalid_argument("red-black SOR: omega = " + std::to_string(omega_) +
                                  " is outside (0, 2), where SOR converges");
    if ((op.px && op.grid.cells[0] % 2) || (op.py && op.grid.cells[1] % 2))
      throw std::invalid_argument(
          "red-black SOR: a periodic direction needs an even number of cells (" +
          op.grid.cells_text() + ")");
    fused_ = options.fused && on_gpu<ExecSpace> && !op_.px && !op_.py;
  }

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    Kokkos::Profiling::ScopedRegion region("kflow::linalg::rbsor");
    const Real w = Real(omega_);
    return stationary_solve(space_, op_, x, b, c, [&](bool change) {
      if (change) {  // red, then black
        const double red = detail::rb_sweep_change(space_, op_, x, b, w, 0);
        return std::max(red, detail::rb_sweep_change(space_, op_, x, b, w, 1));
      }
      if (fused_) {
        detail::rb_iteration_fused(space_, op_, x, b, w);
      } else {
        detail::rb_sweep(space_, op_, x, b, w, 0);
        detail::rb_sweep(space_, op_, x, b, w, 1);
      }
      return 0.0;
    });
  }

  std::string name() const override { return "rbsor"; }
  bool fused() const { return fused_; }  // the fused kernel runs (GPUs, no periodic direction)
  double omega() const { return omega_; }

 private:
  ExecSpace space_;
  Op op_;
  double omega_;
  bool fused_ = false;
};

}  // namespace kflow::linalg
