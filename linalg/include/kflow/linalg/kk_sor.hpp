#pragma once
// Multicolour SOR from Kokkos Kernels (KokkosSparse::gauss_seidel: the
// matrix graph coloured, each colour relaxed in parallel) on the CRS form of
// a 5- or 7-point operator (crs.hpp), behind linalg's Solver interface: the
// general-sparse peer of linalg's red-black SOR (rbsor.hpp), whose two
// colours come from the grid.  Forward sweeps with over-relaxation omega.
// Needs Kokkos Kernels.
//
// Cells with c.p == 0 are not part of the system: unit rows for the sweeps,
// with x = b = 0 there during the solve, and their x put back afterwards.
// Singular systems (every row summing to zero) solve A x = b - mean(b), as
// CG does.  Stopping: the residual criterion only (max |b - A x| / max |b|,
// every check_every sweeps; the sweeps run inside Kokkos Kernels, so the
// change of the last sweep is not seen: "change" is refused).

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_mult.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_gauss_seidel.hpp>
#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/crs_system.hpp"
#include "kflow/linalg/solver.hpp"

namespace kflow::linalg {

template <class ExecSpace, class Op>
class KkMulticolorSor : public Solver<ExecSpace, typename Op::real_type, Op::dim> {
 public:
  using Real = typename Op::real_type;
  static constexpr int Dim = Op::dim;
  using Base = Solver<ExecSpace, Real, Dim>;
  using memory_space = typename ExecSpace::memory_space;
  using System = CrsSystem<ExecSpace, Op>;
  using V = typename System::V;  // the rows' vectors
  using Crs = typename System::Crs;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, Real, ExecSpace,
                                                                  memory_space, memory_space>;

  KkMulticolorSor(const ExecSpace& space, const Op& op, double omega)
      : space_(space), omega_(checked(omega)), sys_(space, op, "kk_sor") {
    Au_ = crs_with_unit_rows(sys_.matrix());
    const int n = sys_.rows();
    x_ = sys_.vector("kk_sor::x"), x0_ = sys_.vector("kk_sor::x0"), b_ = sys_.vector("kk_sor::b");
    r_ = sys_.vector("kk_sor::r"), out_ = sys_.vector("kk_sor::outside");
    Kokkos::deep_copy(space_, out_, Real(1));
    KokkosBlas::axpby(space_, Real(-1), sys_.in_system(), Real(1), out_);  // 1 - in
    // The colouring and the inverse diagonal, once.
    kh_.create_gs_handle(KokkosSparse::GS_DEFAULT);
    KokkosSparse::gauss_seidel_symbolic(&kh_, n, n, Au_.graph.row_map, Au_.graph.entries, true);
    KokkosSparse::gauss_seidel_numeric(&kh_, n, n, Au_.graph.row_map, Au_.graph.entries, Au_.values,
                                       true);
    space_.fence("kflow::linalg::kk_sor::setup");
  }
  ~KkMulticolorSor() override { kh_.destroy_gs_handle(); }
  KkMulticolorSor(const KkMulticolorSor&) = delete;
  KkMulticolorSor& operator=(const KkMulticolorSor&) = delete;

  SolveStats solve(const typename Base::X& x, const typename Base::B& b,
                   const SolveControl& c) override {
    Kokkos::Profiling::ScopedRegion region("kflow::linalg::kk_sor");
    if (c.criterion != Criterion::residual)
      throw std::invalid_argument(
          "kk_sor stops on the residual criterion only (criterion = \"residual\"): its sweeps "
          "run inside Kokkos Kernels");
    SolveStats s;
    if (sys_.cells() == 0) {
      s.converged = true;
      s.criterion = 0;
      return s;
    }
    gather_rows(space_, sys_.grid(), x, x0_);
    KokkosBlas::mult(space_, Real(0), x_, Real(1), sys_.in_system(), x0_);  // x = 0 outside
    const double scale = sys_.load_rhs(b, b_);                              // b = 0 there
    auto criterion = [&]() {
      return sys_.residual(x_, b_, r_) / scale;
    };
    const bool checks = c.tolerance > 0;
    const int every = std::max(1, c.check_every);
    const int n = sys_.rows();
    bool first = true;
    while (s.iterations < c.max_iterations) {
      check_stop(c);
      const int sweeps = checks ? std::min(every, c.max_iterations - s.iterations)
                                : c.max_iterations - s.iterations;
      space_.fence("kflow::linalg::kk_sor::sweep");
      KokkosSparse::forward_sweep_gauss_seidel_apply(&kh_, n, n, Au_.graph.row_map,
                                                     Au_.graph.entries, Au_.values, x_, b_, false,
                                                     first, Real(omega_), sweeps);
      ExecSpace().fence("kflow::linalg::kk_sor::swept");  // Kokkos Kernels' own instance
      first = false;
      s.iterations += sweeps;
      if (!checks) continue;
      s.criterion = criterion();
      if (!(s.criterion < HUGE_VAL)) break;  // diverged
      if (s.criterion <= c.tolerance) {
        s.converged = true;
        break;
      }
    }
    if (!checks) s.criterion = criterion();
    // The system's rows from the sweeps, the others' x as they came.
    KokkosBlas::mult(space_, Real(1), x_, Real(1), out_, x0_);
    scatter_rows(space_, sys_.grid(), x_, x);
    space_.fence("kflow::linalg::kk_sor::solve");
    return s;
  }

  std::string name() const override {
    char w[32];
    std::snprintf(w, sizeof w, "%.4f", omega_);
    return std::string("kk_sor (multicolour) omega ") + w;
  }
  const Crs& matrix() const { return sys_.matrix(); }

 private:
  static double checked(double omega) {
    if (!(omega > 0 && omega < 2))
      throw std::invalid_argument("kk_sor: omega " + std::to_string(omega) +
                                  ": SOR converges only for 0 < omega < 2");
    return omega;
  }

  ExecSpace space_;
  double omega_;
  System sys_;
  Crs Au_;
  V x_, x0_, b_, r_, out_;
  Handle kh_;
};

}  // namespace kflow::linalg
