#pragma once
// GPU orderings of 2D SIP's sweeps, kept to reproduce Ezzatti & Nesmachnow
// beside `kflow bench sip`:
//   diagonals  one launch per anti-diagonal i + j = const, one thread per
//              point: the paper's GPU method.
//   pipelined  strips of rows, a software-pipelined wavefront in one kernel
//              per sweep.
// Same factors (linalg::Sip's) and the same iterates, to rounding, as
// linalg::Sip's orderings; models get linalg::Sip (tiles on GPUs).

#include <Kokkos_Core.hpp>

#include <string>

#include "kflow/linalg/detail/sip2.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/sip.hpp"
#include "kflow/linalg/stationary.hpp"

namespace kflow::linsys {

enum class SipPaperOrdering { diagonals, pipelined };

}  // namespace kflow::linsys

template <>
struct kflow::linalg::EnumNames<kflow::linsys::SipPaperOrdering> {
  static constexpr const char* what = "SIP paper ordering";
  static constexpr std::pair<kflow::linsys::SipPaperOrdering, const char*> table[] = {
      {kflow::linsys::SipPaperOrdering::diagonals, "diagonals"},
      {kflow::linsys::SipPaperOrdering::pipelined, "pipelined"}};
};

namespace kflow::linsys {

namespace detail {

// The pipelined wavefront sweep (forward or backward), strips of h rows: a
// team per strip (in sweep order, from a ticket counter), a thread per row,
// each row one column behind the row below; the strip's first row waits for
// the strip below to publish its progress.
template <class ExecSpace, class F, class R, class X>
void sip_pipelined(const ExecSpace& space, int nx, int ny, int h, const F& f, const R& r,
                   const X& x, bool forward,
                   const Kokkos::View<int*, typename X::memory_space>& progress,
                   const Kokkos::View<int, typename X::memory_space>& counter) {
  using Real = typename R::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using SV = Kokkos::View<Real*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using IV = Kokkos::View<int*, typename ExecSpace::scratch_memory_space,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const int strips = (ny + h - 1) / h;
  Kokkos::deep_copy(space, progress, 0);
  Kokkos::deep_copy(space, counter, 0);
  Policy policy(space, strips, h);
  policy.set_scratch_size(0, Kokkos::PerTeam(SV::shmem_size(2 * h) + IV::shmem_size(1)));
  Kokkos::parallel_for(
      forward ? "kflow::linsys::sip::forward_pipelined" : "kflow::linsys::sip::backward_pipelined",
      policy, KOKKOS_LAMBDA(const typename Policy::member_type& t) {
        SV buf(t.team_scratch(0), 2 * h);
        IV id(t.team_scratch(0), 1);
        const int tr = t.team_rank();
        if (tr == 0) id(0) = Kokkos::atomic_fetch_add(&counter(), 1);
        t.team_barrier();
        const int strip = id(0);
        const int row = strip * h + tr;  // 0-based row counted in sweep order
        const bool active = row < ny;
        const int j = forward ? 1 + row : ny - row;
        const int jprev = forward ? j - 1 : j + 1;
        // the last active row of the strip publishes its progress
        const int top = Kokkos::min(h, ny - strip * h) - 1;
        Real yprev_col = 0;  // y (or d) at the previous column of this row
        for (int s = 0; s < nx + h - 1; ++s) {
          const int c = s - tr;  // column step of this thread
          const bool work = active && c >= 0 && c < nx;
          if (work) {
            const int i = forward ? 1 + c : nx - c;
            Real yprev_row;
            if (tr == 0) {
              if (strip == 0) {
                yprev_row = 0;
              } else {
                while (linalg::detail::relaxed_load(&progress(strip - 1)) < c + 1) {
                }
                Kokkos::memory_fence();
                yprev_row = linalg::detail::relaxed_load(&r(i, jprev));
              }
            } else {
              yprev_row = buf(((s - 1) & 1) * h + tr - 1);
            }
            Real y;
            if (forward) {
              y = (r(i, j) - f.ls(i, j) * yprev_row - f.lw(i, j) * yprev_col) * f.lpinv(i, j);
            } else {
              y = r(i, j) - f.un(i, j) * yprev_row - f.ue(i, j) * yprev_col;
              x(i, j) += y;
            }
            r(i, j) = y;
            buf((s & 1) * h + tr) = y;
            yprev_col = y;
            if (tr == top) {
              Kokkos::memory_fence();
              linalg::detail::relaxed_store(&progress(strip), c + 1);
            }
          }
          t.team_barrier();
        }
      });
}

}  // namespace detail

// 2D SIP with the paper's sweep orderings.  strip_rows: rows per strip of
// the pipelined ordering (0: 32 on GPUs, 1 on host backends).
template <class ExecSpace, class Op>
class SipPaper : public linalg::Solver<ExecSpace, typename Op::real_type, 2> {
  static_assert(Op::dim == 2, "Ezzatti & Nesmachnow's orderings are 2D");

 public:
  using Real = typename Op::real_type;
  using Base = linalg::Solver<ExecSpace, Real, 2>;
  using memory_space = typename ExecSpace::memory_space;

  SipPaper(const ExecSpace& space, const Op& op, SipPaperOrdering ordering, double alpha,
           int strip_rows = 0)
      : space_(space),
        op_(op),
        ordering_(ordering),
        alpha_(alpha),
        sip_(space, op, linalg::SipOptions{alpha}),
        strip_rows_(strip_rows > 0 ? strip_rows : (linalg::on_gpu<ExecSpace> ? 32 : 1)),
        r_(linalg::make_field<Real, 2>(space, "kflow::linsys::sip::r", op.grid)),
        progress_("kflow::linsys::sip::progress",
                  (op.grid.cells[1] + strip_rows_ - 1) / strip_rows_),
        counter_("kflow::linsys::sip::counter") {}

  // z = M^{-1} r (one forward and one backward sweep); r is not modified.
  void precondition(const linalg::Field<const Real, 2, memory_space>& r,
                    const linalg::Field<Real, 2, memory_space>& z) {
    Kokkos::deep_copy(space_, z, Real(0));
    linalg::detail::sip_copy_interior(space_, op_.grid, r, r_);
    sweeps(z);
  }

  linalg::SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                           const linalg::SolveControl& c) override {
    return linalg::stationary_solve(space_, op_, x, b, c, [&](bool change) {
      linalg::residual(space_, op_, x, b, r_);
      sweeps(x);
      return change ? linalg::max_norm(space_, op_.grid, r_) : 0.0;
    });
  }

  std::string name() const override { return std::string("sip (") + linalg::name(ordering_) + ")"; }
  const auto& factors() const { return sip_.factors(); }

 private:
  void sweeps(const linalg::Field<Real, 2, memory_space>& x) {
    const auto& f = sip_.factors();
    if (ordering_ == SipPaperOrdering::diagonals) {
      Kokkos::View<long, memory_space> unused;
      linalg::detail::sip_diagonals(space_, op_, f, r_, x, Real(alpha_), 1, unused);
      linalg::detail::sip_diagonals(space_, op_, f, r_, x, Real(alpha_), 2, unused);
    } else {
      const int nx = op_.grid.cells[0], ny = op_.grid.cells[1];
      detail::sip_pipelined(space_, nx, ny, strip_rows_, f, r_, x, true, progress_, counter_);
      detail::sip_pipelined(space_, nx, ny, strip_rows_, f, r_, x, false, progress_, counter_);
    }
  }

  ExecSpace space_;
  Op op_;
  SipPaperOrdering ordering_;
  double alpha_;
  linalg::Sip<ExecSpace, Op> sip_;  // the factors
  int strip_rows_;
  linalg::Field<Real, 2, memory_space> r_;
  Kokkos::View<int*, memory_space> progress_;  // pipelined: columns done per strip
  Kokkos::View<int, memory_space> counter_;    // pipelined: the strip ticket
};

}  // namespace kflow::linsys
