#pragma once
// `kflow bench poisson`: time to tolerance of the 2D Poisson solvers on one
// problem (issue #4's comparison table): Stone's SIP, red-black SOR with the
// optimal omega, and conjugate gradients without and with the Jacobi
// preconditioner, all from x = 0 to the same criterion
// max |b - A x| <= tol max |b| (checked every `check_every` iterations).
//
// The operator is `kflow bench sip`'s: -laplace on the unit square with
// 2^k x 2^k cells ((2^k + 2)^2 nodes with the boundary layer), u = 0 on the
// walls (mirrored ghosts).  Right-hand sides:
//   random  uniform in [-1, 1] from a hash of (i, j) (the same on every
//           backend): every eigenmode present, the hard case (default);
//   peak    an off-centre Gaussian source exp(-200 |x - (0.3, 0.6)|^2);
//   sine    -2 pi^2 sin(pi x) sin(pi y), Table 2's problem.  It is an exact
//           eigenvector of the discrete operator, so CG converges in one
//           iteration: no comparison for CG.
// Rows per size and solver: the set-up (SIP's factorization, CG's operator
// checks and diagonal; one run), one iteration (mean of `sweeps` fixed
// iterations, with the bytes an ideal implementation moves), and the time to
// tolerance (best of --repeat, from x = 0 each time) with the iteration count
// and the final criterion.  Nothing is copied between host and device inside
// the timings.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/core/error.hpp"
#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "kflow/linalg/sip.hpp"
#include "sip_bench.hpp"

namespace kflow::linsys {

namespace kernels {
// Replaces b of poisson_problem by the right-hand side `kind` (0 random,
// 1 peak; 2 sine keeps poisson_problem's).
template <class Space, class F>
void fill_rhs(const Space& space, const la::Grid& g, int kind, const F& b) {
  using Real = typename F::value_type;
  const double hx = g.spacing(0), hy = g.spacing(1);
  if (kind == 2) return;
  Kokkos::parallel_for(
      "kflow::linsys::poisson::rhs", la::interior_policy<2>(space, g), KOKKOS_LAMBDA(int i, int j) {
        if (kind == 0) {
          // splitmix64 of the cell index: uniform in [-1, 1)
          std::uint64_t z = std::uint64_t(i) * 0x9E3779B97F4A7C15ull + std::uint64_t(j);
          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
          z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
          z ^= z >> 31;
          b(i, j) = Real(double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
        } else {
          const double x = (i - 0.5) * hx - 0.3, y = (j - 0.5) * hy - 0.6;
          b(i, j) = Real(-Kokkos::exp(-200 * (x * x + y * y)));
        }
      });
}
}  // namespace kernels

template <class Space, class Real>
std::vector<KernelBenchRow> run_poisson(const KernelBenchOptions& o, std::ostream& log) {
  using Op = la::Stencil5<Real, typename Space::memory_space>;
  constexpr bool gpu = la::on_gpu<Space>;
  const auto& P = o.params;
  const auto ks = P.get_ints("k", {5, 7}, 1);
  const auto solvers =
      P.get_choices("solvers", "sip,rbsor,cg,cg_jacobi", {"sip", "rbsor", "cg", "cg_jacobi"});
  const std::string rhs = P.get_choice("rhs", "random", {"random", "peak", "sine"});
  const double alpha = P.get_double("alpha", 0.92);
  // A float residual stalls near eps |A| |x| (sip_bench.hpp).
  const double tol = P.get_double("tolerance", sizeof(Real) == 4 ? 1e-2 : 1e-6);
  const int every = int(P.get_int("check_every", 5, 1));
  const int max_its = int(P.get_int("max_iterations", 200000, 1));
  const int sweeps = int(P.get_int("sweeps", 10, 1));
  const std::string ordering = P.get_choice(
      "ordering", gpu ? "tiles" : "lexicographic",
      gpu ? std::vector<std::string>{"diagonals", "pipelined", "tiles"}
          : std::vector<std::string>{"lexicographic", "diagonals", "pipelined", "tiles"});
  P.check_unknown("poisson");
  for (long k : ks)
    if (k > 14) throw Error("bench poisson: --set k=" + std::to_string(k) + ": expected k <= 14");
  if (!(tol > 0))
    throw Error("bench poisson: --set tolerance=" + std::to_string(tol) + ": expected > 0");
  if (!(alpha >= 0 && alpha < 1))
    throw Error("bench poisson: --set alpha=" + std::to_string(alpha) +
                ": expected 0 <= alpha < 1");
  const int kind = rhs == "random" ? 0 : rhs == "peak" ? 1 : 2;
  const int repeat = std::max(1, o.repeat);
  Space space;
  std::vector<KernelBenchRow> rows;
  auto fmt = [](const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  auto timed = [&](auto&& fn) {
    space.fence();
    Kokkos::Timer t;
    fn();
    space.fence();
    return t.seconds();
  };
  auto best_of = [&](auto&& fn) {
    double best = 1e300;
    for (int r = 0; r < repeat; ++r) best = std::min(best, timed(fn));
    return best;
  };

  for (long k : ks) {
    const int n = 1 << k;
    auto p = poisson_problem<Space, Real>(space, n);
    kernels::fill_rhs(space, p.op.grid, kind, p.b);
    const std::string size = std::to_string(n + 2) + "^2 nodes, " + rhs + " rhs";
    la::SolveControl to_tol;
    to_tol.tolerance = tol;  // relative to max |b| (solver.hpp)
    to_tol.check_every = every;
    to_tol.max_iterations = max_its;
    to_tol.criterion = la::Criterion::residual;
    la::SolveControl fixed;
    fixed.tolerance = 0;
    fixed.max_iterations = sweeps;
    const double cells = double(n) * n;
    // One solver: set-up row (if any), one iteration, to tolerance.
    auto measure = [&](la::Solver<Space, Real, 2>& s, const std::string& what, double values) {
      KernelBenchRow it;
      it.seconds = best_of([&] { s.solve(p.x, p.b, fixed); }) / sweeps;
      it.bytes = values * cells * sizeof(Real);
      it.label = size + ", " + what + ", one iteration";
      rows.push_back(it);
      la::SolveStats st;
      KernelBenchRow tt;
      tt.seconds = best_of([&] {
        Kokkos::deep_copy(space, p.x, Real(0));
        st = s.solve(p.x, p.b, to_tol);
      });
      tt.label = size + ", " + what + ", to tolerance";
      tt.note = std::to_string(st.iterations) + " iterations, residual " +
                fmt("%.2e", st.criterion) + " x max|b|" + (st.converged ? "" : " NOT CONVERGED");
      rows.push_back(tt);
      log << "poisson: " << size << ", " << what << ": " << tt.note << ", "
          << fmt("%.4g", tt.seconds) << " s\n";
    };
    for (const auto& name : solvers) {
      if (name == "sip") {
        const std::string what = "sip " + ordering;
        KernelBenchRow fr;
        std::unique_ptr<la::Solver<Space, Real, 2>> sip;
        fr.seconds = timed([&] { sip = make_sip2<Space>(p.op, ordering, alpha, 0, {}); });
        fr.label = size + ", " + what + ", factorization";
        rows.push_back(fr);
        // residual (7 values: 5 coefficients, x, b; r written) + sweeps
        // (5 factors, r read and written twice, x read and written): 19.
        measure(*sip, what, 19.0);
      } else if (name == "rbsor") {
        const double omega = 2 / (1 + std::sin(std::acos(-1.0) / n));
        la::RedBlackSOR<Space, Op> sor(space, p.op, la::SorOptions{omega});
        // x read and written, b and 5 coefficients read.
        measure(sor, "rbsor omega " + fmt("%.4f", omega), 8.0);
      } else {
        const bool jac = name == "cg_jacobi";
        KernelBenchRow fr;
        std::unique_ptr<la::ConjugateGradient<Space, Op>> cg;
        fr.seconds = timed([&] {
          cg = std::make_unique<la::ConjugateGradient<Space, Op>>(
              space, p.op,
              la::CgOptions{jac ? la::CgPreconditioner::jacobi : la::CgPreconditioner::none});
        });
        fr.label = size + ", " + cg->name() + ", set-up";
        rows.push_back(fr);
        // direction: r, p_old, 5 coefficients read, p_new, q written;
        // update: x, p, q, r read, x, r written (+ the diagonal twice).
        measure(*cg, cg->name(), jac ? 17.0 : 15.0);
      }
    }
  }
  return rows;
}

}  // namespace kflow::linsys
