#pragma once
// Stone's strongly implicit procedure (SIP) for a 5-point (2D) or 7-point
// (3D) operator (operator.hpp), as Ezzatti & Nesmachnow use it, in the
// Ferziger & Peric form (their caffa code; Ezzatti & Nesmachnow give no
// formulas).  2D:
//
//   M = L U ~ A,  L: (L_W, L_S, L_P),  U: unit diagonal, (U_N, U_E),
//   L_W = A_W / (1 + alpha U_N(W)),      L_S = A_S / (1 + alpha U_E(S)),
//   P1 = alpha L_W U_N(W),               P2 = alpha L_S U_E(S),
//   L_P = A_P + P1 + P2 - L_W U_E(W) - L_S U_N(S),
//   U_N = (A_N - P1) / L_P,              U_E = (A_E - P2) / L_P,
//
// 3D adds B = (i, j, k-1), T = (i, j, k+1):
//
//   L_B = A_B / (1 + alpha (U_N(B) + U_E(B)))
//   L_W = A_W / (1 + alpha (U_N(W) + U_T(W)))
//   L_S = A_S / (1 + alpha (U_E(S) + U_T(S)))
//   P1 = alpha (L_B U_N(B) + L_W U_N(W)),  P2 = alpha (L_B U_E(B) + L_S U_E(S)),
//   P3 = alpha (L_W U_T(W) + L_S U_T(S))
//   L_P = A_P + P1 + P2 + P3 - L_B U_T(B) - L_W U_E(W) - L_S U_N(S)
//   U_N = (A_N - P1) / L_P,  U_E = (A_E - P2) / L_P,  U_T = (A_T - P3) / L_P
//
// One iteration: r = b - A x; forward y = (r - L y(lower neighbours)) / L_P;
// backward d = y - U d(upper neighbours); x += d (stationary.hpp's loop).
//
// Decisions on what the paper leaves open:
// - alpha is a parameter, 0 <= alpha < 1 (0 is ILU(0) as a stationary
//   iteration); default 0.92, the value common in caffa-derived codes (the
//   paper gives none; on the Poisson problem the fewest iterations of 0,
//   0.5, 0.8 and 0.92, while 0.97 diverges).
// - Stopping rule: SolveControl, as for red-black SOR and CG; tolerance 0
//   runs a fixed number of sweeps (the paper's "refining iterations").
// - The factorization is computed once per operator (constructor).
// - The residual is a separate, fully parallel pass: same arithmetic, same
//   iterates as caffa's fused one.
// - Cells with c.p == 0 (obstacles) are identity rows: their correction is 0.
// - Periodic directions are rejected (the factors would not be triangular).
//
// Orderings of the sequential sweeps (all give the same iterates up to
// rounding):
//   lexicographic  one thread, i fastest (host backends' default).
//   tiles          2D, GPU default: strips of rows taken in sweep order from a
//                  ticket counter (no deadlock on any backend); on GPUs one
//                  warp sweeps a strip while the other threads stream its
//                  operands through team scratch (detail/sip_tiles.hpp); on
//                  host backends tiles of SipTiles::cols columns per strip
//                  (the OpenMP-parallel SIP).  The factorization uses
//                  one launch per anti-diagonal on GPUs and the
//                  lexicographic sweep on hosts.
//   diagonals      3D, GPU default: one launch per hyperplane i + j + k = const.
// Ezzatti & Nesmachnow's 2D GPU orderings (one launch per anti-diagonal, the
// paper's method, and pipelined strips) reproduce the paper beside its
// benchmark in the application (bench/linalg/sip_paper.hpp).

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kflow/linalg/detail/sip2.hpp"
#include "kflow/linalg/detail/sip3.hpp"
#include "kflow/linalg/detail/sip_tiles.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/sip_types.hpp"
#include "kflow/linalg/solver.hpp"
#include "kflow/linalg/space.hpp"
#include "kflow/linalg/stationary.hpp"

namespace kflow::linalg {

template <class ExecSpace, class Op>
class Sip : public Solver<ExecSpace, typename Op::real_type, Op::dim> {
 public:
  using Real = typename Op::real_type;
  static constexpr int dim = Op::dim;
  using Base = Solver<ExecSpace, Real, dim>;
  using memory_space = typename ExecSpace::memory_space;
  static constexpr bool gpu = on_gpu<ExecSpace>;

  // Factorizes A (the operator) with the options' alpha.
  Sip(const ExecSpace& space, const Op& op, const SipOptions& options = {})
      : space_(space), op_(op), alpha_(options.alpha), ordering_(options.ordering) {
    const std::string who = dim == 2 ? "SIP" : "SIP 3D";
    if (!(alpha_ >= 0 && alpha_ < 1))
      throw std::invalid_argument(who + ": alpha = " + std::to_string(alpha_) +
                                  " is outside [0, 1) (alpha = 0 is ILU(0); Stone's "
                                  "procedure needs alpha < 1)");
    const Grid& g = op.grid;
    auto make = [&](const char* label) {
      return make_field<Real, dim>(space, label, g);
    };
    long bad = 0;
    if constexpr (dim == 2) {
      if (op.px || op.py)
        throw std::invalid_argument(
            "SIP: periodic directions are not supported (the wrap-around breaks the triangular "
            "factors); use red-black SOR or CG");
      if (ordering_ == SipOrdering::automatic)
        ordering_ = gpu ? SipOrdering::tiles : SipOrdering::lexicographic;
      if (ordering_ == SipOrdering::diagonals)
        throw std::invalid_argument(
            "SIP: 2D takes the lexicographic and tiles orderings (the per-diagonal "
            "sweeps of Ezzatti & Nesmachnow are kflow::linsys::SipPaper)");
      if (gpu && ordering_ == SipOrdering::lexicographic)
        throw std::invalid_argument(
            "SIP: the lexicographic ordering runs on one thread; use tiles on a GPU");
      if (ordering_ == SipOrdering::tiles) set_tiles(options.strip_rows, options.tiles);
      f_.lw = make("kflow::sip::lw");
      f_.ls = make("kflow::sip::ls");
      f_.lpinv = make("kflow::sip::lpinv");
      f_.un = make("kflow::sip::un");
      f_.ue = make("kflow::sip::ue");
      r_ = make("kflow::sip::r");
      // The factorization (once per operator): one thread on host backends
      // (also for tiles), one launch per diagonal on GPUs.
      if (ordering_ == SipOrdering::lexicographic || (!gpu && ordering_ == SipOrdering::tiles)) {
        bad = detail::sip_lexicographic(space_, op_, f_, r_, r_, Real(alpha_), 0);
      } else {
        Kokkos::View<long, memory_space> nbad("kflow::sip::bad");
        detail::sip_diagonals(space_, op_, f_, r_, r_, Real(alpha_), 0, nbad);
        Kokkos::deep_copy(bad, nbad);
      }
    } else {
      if (op.px || op.py || op.pz)
        throw std::invalid_argument("SIP 3D: periodic directions are not supported");
      if (ordering_ == SipOrdering::automatic)
        ordering_ = gpu ? SipOrdering::diagonals : SipOrdering::lexicographic;
      if (ordering_ == SipOrdering::tiles)
        throw std::invalid_argument(
            "SIP 3D: the tiles ordering exists only in 2D; use diagonals (hyperplanes) or "
            "lexicographic");
      if (gpu && ordering_ == SipOrdering::lexicographic)
        throw std::invalid_argument(
            "SIP 3D: the lexicographic ordering runs on one thread; use "
            "diagonals on a GPU");
      f_.lb = make("kflow::sip3::lb");
      f_.lw = make("kflow::sip3::lw");
      f_.ls = make("kflow::sip3::ls");
      f_.lpinv = make("kflow::sip3::lpinv");
      f_.un = make("kflow::sip3::un");
      f_.ue = make("kflow::sip3::ue");
      f_.ut = make("kflow::sip3::ut");
      r_ = make("kflow::sip3::r");
      if (ordering_ == SipOrdering::lexicographic) {
        bad = detail::sip3_lexicographic(space_, op_, f_, r_, r_, Real(alpha_), 0);
      } else {
        Kokkos::View<long, memory_space> nbad("kflow::sip3::bad");
        detail::sip3_planes(space_, op_, f_, r_, r_, Real(alpha_), 0, nbad);
        Kokkos::deep_copy(bad, nbad);
      }
    }
    space_.fence("kflow::linalg::sip::factor");
    if (bad)
      throw std::runtime_error(who + ": " + std::to_string(bad) +
                               " zero or NaN pivots L_P in the incomplete factorization (alpha = " +
                               std::to_string(alpha_) + ")");
  }

  // z = M^{-1} r (one forward and one backward sweep): SIP as a preconditioner.
  // z and r are fields on the operator's grid; r is not modified.
  void precondition(const Field<const Real, dim, memory_space>& r,
                    const Field<Real, dim, memory_space>& z) {
    Kokkos::deep_copy(space_, z, Real(0));
    detail::sip_copy_interior(space_, op_.grid, r, r_);
    sweeps(z);
  }

  // The change criterion is max |d|, the correction of the iteration.
  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    Kokkos::Profiling::ScopedRegion region("kflow::linalg::sip");
    return stationary_solve(space_, op_, x, b, c, [&](bool change) {
      residual(space_, op_, x, b, r_);
      sweeps(x);
      return change ? max_norm(space_, op_.grid, r_) : 0.0;
    });
  }

  std::string name() const override {
    if constexpr (dim == 2) return std::string("sip (") + linalg::name(ordering_) + ")";
    return std::string("sip3d (") +
           (ordering_ == SipOrdering::diagonals ? "hyperplanes" : "lexicographic") + ")";
  }
  double alpha() const { return alpha_; }
  SipOrdering ordering() const { return ordering_; }
  const SipTiles& tiles() const { return tiles_; }  // 2D tiles ordering's shape (after defaults)
  const SipFactors<Real, memory_space, dim>& factors() const { return f_; }

 private:
  // Forward and backward sweeps on r_ (the residual in, the correction out),
  // adding the correction to x.
  void sweeps(const Field<Real, dim, memory_space>& x) {
    if constexpr (dim == 3) {
      if (ordering_ == SipOrdering::lexicographic) {
        detail::sip3_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 1);
        detail::sip3_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 2);
      } else {
        Kokkos::View<long, memory_space> unused;
        detail::sip3_planes(space_, op_, f_, r_, x, Real(alpha_), 1, unused);
        detail::sip3_planes(space_, op_, f_, r_, x, Real(alpha_), 2, unused);
      }
      return;
    } else {
      const int nx = op_.grid.cells[0], ny = op_.grid.cells[1];
      if (ordering_ == SipOrdering::lexicographic) {
        detail::sip_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 1);
        detail::sip_lexicographic(space_, op_, f_, r_, x, Real(alpha_), 2);
      } else {
        detail::sip_tiles(space_, nx, ny, tiles_, f_, r_, x, true, sync_, hand_);
        detail::sip_tiles(space_, nx, ny, tiles_, f_, r_, x, false, sync_, hand_);
      }
    }
  }

  // Shape of the tiles ordering, checked against the backend's limits.
  void set_tiles(int strip_rows, const SipTiles& s) {
    tiles_ = s;
    const bool team = gpu || tiles_.wavefront;
    constexpr int lanes = detail::sip_lanes<ExecSpace>();
    // GPU defaults: the best of a measured sweep.
    tiles_.rows = s.rows > 0 ? s.rows : strip_rows > 0 ? strip_rows : team ? lanes : 32;
    tiles_.cols = s.cols > 0 ? s.cols : 128;
    tiles_.group = s.group > 0 ? s.group : 8;
    if (tiles_.group != 8 && tiles_.group != 16)
      throw std::invalid_argument("SIP tiles: group = " + std::to_string(tiles_.group) +
                                  " steps; expected 8 or 16");
    if (team) {
      const int r = tiles_.rows;
      if (r != lanes && r != 2 * lanes)
        throw std::invalid_argument("SIP tiles: " + std::to_string(r) +
                                    " rows per strip; the team kernel takes " +
                                    std::to_string(lanes) + " or " + std::to_string(2 * lanes) +
                                    " here (1 or 2 rows per compute lane)");
      tiles_.threads = detail::sip_tiles_threads<ExecSpace>(tiles_);
      // GPUs: the loaders must cover a group in one round of 4 elements each.
      const int least = gpu ? lanes + (r * tiles_.group + 3) / 4 : 1;
      const int most = gpu ? 512 : int(ExecSpace().concurrency());
      if (tiles_.threads < least || tiles_.threads > most)
        throw std::invalid_argument("SIP tiles: " + std::to_string(tiles_.threads) +
                                    " threads per team; expected " + std::to_string(least) +
                                    " to " + std::to_string(most) + " here");
      const std::size_t need = detail::sip_tiles_scratch<Real>(r, tiles_.group);
      const std::size_t most_bytes = Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0);
      if (need > most_bytes)
        throw std::invalid_argument(
            "SIP tiles: strips of " + std::to_string(r) + " rows with groups of " +
            std::to_string(tiles_.group) + " steps need " + std::to_string(need) +
            " bytes of team scratch; at most " + std::to_string(most_bytes) +
            " here (fewer rows or a smaller group)");
      hand_ = Kokkos::View<Real***, memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kflow::sip::tile_hand"), 2,
          (op_.grid.cells[1] + r - 1) / r, op_.grid.cells[0]);
      Kokkos::deep_copy(space_, hand_, detail::SipUnwritten<Real>::value());
    }
    // progress per strip (host kernel), the ticket and the finished-team counters
    sync_ = Kokkos::View<int*, memory_space>(
        "kflow::sip::tile_progress", (op_.grid.cells[1] + tiles_.rows - 1) / tiles_.rows + 2);
  }

  ExecSpace space_;
  Op op_;
  double alpha_;
  SipOrdering ordering_;
  SipFactors<Real, memory_space, dim> f_;
  Field<Real, dim, memory_space> r_;
  SipTiles tiles_;
  // 2D tiles: progress of every strip (columns done; host kernel), then the
  // ticket counter
  Kokkos::View<int*, memory_space> sync_;
  // 2D tiles, team kernel: the top row of every strip, handed to the strip
  // above (one buffer for forward sweeps, one for backward sweeps)
  Kokkos::View<Real***, memory_space> hand_;
};

}  // namespace kflow::linalg
