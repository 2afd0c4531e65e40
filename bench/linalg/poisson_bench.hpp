#pragma once
// `kflow bench poisson`: time to tolerance of the 2D Poisson solvers on one
// problem: Stone's SIP, red-black SOR with the
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
// Multigrid: mg (V(2,2) red-black Gauss-Seidel, one iteration = one
// cycle), mg_f (F(2,2)), mg_v1 (V(1,1)), mg_v3 (V(3,3)), mg_cheb (V(2,2) with Chebyshev
// smoothing of degree 2), cg_mg and cg_mg_cheb (CG with one symmetric
// V(2,2)-cycle as preconditioner), checked every iteration whatever
// check_every says (a cycle costs about ten sweeps).  dim=3: the 7-point
// problem of `kflow bench sip --set dim=3` on n^3 cells (bc=dirichlet) or
// its pure-Neumann counterpart (bc=neumann), with mg, mg_f, mg_cheb,
// cg_mg, cg_mg_cheb and cg_jacobi, and one fused red-black iteration as the
// unit of work.
// hypre_pfmg, hypre_pcg: hypre's structured multigrid on the same 2D system
// (hypre_rows below; builds with hypre only).
// kk_cg, kk_cg_jacobi: CG over Kokkos Kernels (linalg/kk_cg.hpp: the operator
// assembled as CRS, KokkosSparse::spmv and KokkosBlas), 2D, in the default
// list where Kokkos Kernels is in the build; elsewhere their rows say so.
// kk_gmres, kk_gmres_jacobi: Kokkos Kernels' restarted GMRES (linalg/kk_gmres.hpp,
// 50 vectors a cycle; restart=N) on the same CRS matrix, same rule.
// kk_gmres_ilu: the same with Kokkos Kernels' ILU(k) (linalg/kk_ilu.hpp,
// ilu_level=K, default 0): the general-sparse peer of SIP.
// kk_sor: Kokkos Kernels' multicolour SOR (linalg/kk_sor.hpp) at rbsor's
// omega: the general-sparse peer of red-black SOR.
// Rows per size and solver: the set-up (SIP's factorization, CG's operator
// checks and diagonal; one run), one iteration (mean of `sweeps` fixed
// iterations, with the bytes an ideal implementation moves), and the time to
// tolerance (best of --repeat, from x = 0 each time) with the iteration count
// and the final criterion.  Nothing is copied between host and device inside
// the timings.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/multigrid.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "kflow/linalg/sip.hpp"
#include "kflow/model/error.hpp"
#include "sip_bench.hpp"
#ifdef KFLOW_HAVE_HYPRE
#include "hypre_peer.hpp"
#endif
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
#include "kflow/linalg/kk_cg.hpp"
#include "kflow/linalg/kk_gmres.hpp"
#include "kflow/linalg/kk_sor.hpp"
#endif

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
          b(i, j) = Real(cell_uniform(i, j));
        } else {
          const double x = (i - 0.5) * hx - 0.3, y = (j - 0.5) * hy - 0.6;
          b(i, j) = Real(-Kokkos::exp(-200 * (x * x + y * y)));
        }
      });
}
}  // namespace kernels

// The multigrid options of a bench solver name (mg, mg_f, mg_v1, mg_v3, mg_cheb,
// cg_mg, cg_mg_cheb) over `base` (the coarse and team_cells keys).
inline la::MgOptions bench_mg_options(const std::string& name, const la::MgOptions& base) {
  la::MgOptions mo = base;
  if (name == "mg_f") mo.cycle = la::MgCycle::f;
  if (name == "mg_v1") mo.pre_sweeps = mo.post_sweeps = 1;
  if (name == "mg_v3") mo.pre_sweeps = mo.post_sweeps = 3;
  if (name == "mg_cheb" || name == "cg_mg_cheb") mo.smoother = la::MgSmoother::chebyshev;
  return mo;
}

// The values one multigrid cycle moves per fine cell in the 2D rows: per
// level the sweeps (8 values each, as rbsor; a Chebyshev step 12), the
// residual (8), restriction and prolongation (about 3); the levels add 1/3.
inline double bench_mg_cycle_values(const la::MgOptions& mo) {
  const double sweep = mo.smoother == la::MgSmoother::rbgs ? 8.0 : 12.0;
  return (sweep * (mo.pre_sweeps + mo.post_sweeps) + 11) * 4 / 3;
}

// The 3D rows (dim=3): n^3 cells, u = 0 on the walls (mirrored ghosts) or
// pure Neumann, random right-hand side (projected onto the compatible space
// by the solvers when singular).
template <class Space, class Real>
void run_poisson3(const Space& space, const std::vector<long>& ks,
                  const std::vector<std::string>& solvers, bool neumann, double tol, int max_its,
                  int sweeps, int repeat, const la::MgOptions& base,
                  std::vector<KernelBenchRow>& rows, std::ostream& log) {
  using Mem = typename Space::memory_space;
  using Op = la::Stencil7<Real, Mem>;
  auto best_of = [&](auto&& fn) {
    return best_time(space, repeat, fn);
  };
  for (long k : ks) {
    const int n = 1 << k;
    auto p = poisson_problem3<Space, Real>(space, n);
    const la::Grid& g = p.op.grid;
    const Op& op = p.op;
    const auto &b = p.b, &x = p.x;
    const double a = 1 / (g.spacing(0) * g.spacing(0));
    const auto cp = p.c[0];
    Kokkos::parallel_for(
        "kflow::linsys::poisson3::rhs", la::interior_policy<3>(space, g),
        KOKKOS_LAMBDA(int i, int j, int kk) {
          b(i, j, kk) = Real(kernels::cell_uniform(i, j, kk));
          // Neumann: no wall term on the diagonal.
          if (neumann)
            cp(i, j, kk) = Real(-a * ((i > 1) + (i < n) + (j > 1) + (j < n) + (kk > 1) + (kk < n)));
        });
    const std::string size = std::to_string(n) + "^3 cells, " +
                             (neumann ? "pure Neumann" : "Dirichlet") + ", random rhs";
    // The unit of work: one red-black Gauss-Seidel iteration on the fine grid.
    KernelBenchRow unit;
    unit.seconds = best_of([&] {
                     for (int s = 0; s < sweeps; ++s) {
                       la::detail::rb_sweep(space, op, x, b, Real(1), 0);
                       la::detail::rb_sweep(space, op, x, b, Real(1), 1);
                     }
                   }) /
                   sweeps;
    unit.bytes = 10.0 * double(n) * n * n * sizeof(Real);  // x rw, b, 7 coefficients
    unit.label = size + ", one red-black Gauss-Seidel iteration (the unit of work)";
    rows.push_back(unit);
    la::SolveControl ctl;
    ctl.tolerance = tol;
    ctl.check_every = 1;
    ctl.max_iterations = max_its;
    auto to_tolerance = [&](la::Solver<Space, Real, 3>& s) {
      la::SolveStats st;
      KernelBenchRow tt;
      tt.seconds = best_of([&] {
        Kokkos::deep_copy(space, x, Real(0));
        st = s.solve(x, b, ctl);
      });
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "%d iterations, residual %.2e x max|b|%s, %.1f fine-iteration equivalents",
                    st.iterations, st.criterion, st.converged ? "" : " NOT CONVERGED",
                    tt.seconds / unit.seconds);
      tt.label = size + ", " + s.name() + ", to tolerance";
      tt.note = buf;
      rows.push_back(tt);
      log << "poisson: " << tt.label << ": " << tt.note << ", " << tt.seconds << " s\n";
    };
    for (const auto& name : solvers) {
      if (name == "mg" || name == "mg_f" || name == "mg_v1" || name == "mg_v3" ||
          name == "mg_cheb") {
        la::Multigrid<Space, Op> mg(space, op, bench_mg_options(name, base));
        to_tolerance(mg);
      } else if (name == "cg_mg" || name == "cg_mg_cheb" || name == "cg_jacobi" || name == "cg") {
        la::ConjugateGradient<Space, Op> cg(
            space, op,
            la::CgOptions(name == "cg_jacobi" ? la::CgPreconditioner::jacobi
                          : name == "cg"      ? la::CgPreconditioner::none
                                              : la::CgPreconditioner::mg,
                          bench_mg_options(name, base)));
        to_tolerance(cg);
      } else {
        throw Error("bench poisson: solver " + name +
                    " is 2D only (dim=3: mg, mg_f, mg_v1, mg_v3, " +
                    "mg_cheb, cg_mg, cg_mg_cheb, cg_jacobi, cg)");
      }
    }
  }
}

// hypre's PFMG or PCG + PFMG on the same system (host copies; one MPI rank,
// one core).  hypre stops on ||r||_2 <= t ||b||_2: t starts at `tol` and is
// divided by 3 until the max-norm criterion of the other rows is met too;
// the rows give t, hypre's iterations and the max-norm residual.
template <class Space, class P>
void hypre_rows(const Space& space, const P& p, const std::string& size, bool pcg, double tol,
                int repeat, std::vector<KernelBenchRow>& rows, std::ostream& log) {
  KernelBenchRow row;
  row.label = size + (pcg ? ", hypre PCG + PFMG" : ", hypre PFMG");
#ifdef KFLOW_HAVE_HYPRE
  using Real = typename std::decay_t<decltype(p.op)>::real_type;
  if constexpr (sizeof(Real) != sizeof(double)) {
    row.note = "not run: hypre is built for double";
    rows.push_back(row);
  } else {
    const auto& g = p.op.grid;
    const int nx = g.cells[0], ny = g.cells[1];
    const auto h = [](const auto& v) {
      return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    };
    const auto cp = h(p.op.cp), cw = h(p.op.cw), ce = h(p.op.ce), cs = h(p.op.cs), cn = h(p.op.cn),
               hb = h(p.b);
    std::array<std::vector<double>, 5> c;
    for (auto& v : c) v.resize(std::size_t(nx) * ny);
    std::vector<double> b(std::size_t(nx) * ny), x(b.size());
    for (int j = 1; j <= ny; ++j)
      for (int i = 1; i <= nx; ++i) {
        const std::size_t k = std::size_t(i - 1) + std::size_t(nx) * (j - 1);
        c[0][k] = cp(i, j), c[1][k] = cw(i, j), c[2][k] = ce(i, j), c[3][k] = cs(i, j),
        c[4][k] = cn(i, j), b[k] = hb(i, j);
      }
    const double scale = la::system_max_norm(space, p.op, p.b);
    auto hx = Kokkos::create_mirror_view(p.x);
    double t = tol, crit = 0;
    HypreResult r;
    for (int attempt = 0; attempt < 8; ++attempt, t /= 3) {
      std::fill(x.begin(), x.end(), 0.0);
      r = hypre_solve2(nx, ny, c, b, x, t, pcg);
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) hx(i, j) = x[std::size_t(i - 1) + std::size_t(nx) * (j - 1)];
      Kokkos::deep_copy(space, p.x, hx);
      crit = la::residual_max_norm(space, p.op, p.x, p.b) / scale;
      if (crit <= tol) break;
    }
    double setup = std::numeric_limits<double>::infinity(),
           solve = std::numeric_limits<double>::infinity();
    for (int k = 0; k < repeat; ++k) {
      std::fill(x.begin(), x.end(), 0.0);
      const auto rk = hypre_solve2(nx, ny, c, b, x, t, pcg);
      setup = std::min(setup, rk.setup_seconds);
      solve = std::min(solve, rk.solve_seconds);
    }
    char buf[200];
    KernelBenchRow su;
    su.label = size + ", " + r.name + ", set-up";
    su.seconds = setup;
    rows.push_back(su);
    row.label = size + ", " + r.name + ", to tolerance";
    row.seconds = solve;
    std::snprintf(buf, sizeof buf,
                  "%d iterations, residual %.2e x max|b| (hypre's ||r||/||b|| %.1e <= %.1e), "
                  "one MPI rank",
                  r.iterations, crit, r.relative_l2, t);
    row.note = buf;
    rows.push_back(row);
    log << "poisson: " << row.label << ": " << row.note << ", set-up " << setup << " s, solve "
        << solve << " s\n";
  }
#else
  (void)space, (void)p, (void)tol, (void)repeat, (void)log;
  row.note = "not in this build (hypre with MPI was not found at configure time)";
  rows.push_back(row);
#endif
}

template <class Space, class Real>
std::vector<KernelBenchRow> run_poisson(const KernelBenchOptions& o, std::ostream& log) {
  using Op = la::Stencil5<Real, typename Space::memory_space>;
  constexpr bool gpu = la::on_gpu<Space>;
  const auto& P = o.params;
  const auto ks = P.get_ints("k", {5, 7}, 1);
  const long dim = P.get_int("dim", 2, 2);
  const std::string bc = P.get_choice("bc", "dirichlet", {"dirichlet", "neumann"});
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
  const std::string kk_defaults =
      "kk_cg,kk_cg_jacobi,kk_gmres,kk_gmres_jacobi,kk_gmres_ilu,kk_sor,";
#else
  const std::string kk_defaults;
#endif
  const auto solvers =
      P.get_choices("solvers",
                    dim == 3 ? std::string("mg,mg_f,mg_cheb,cg_mg,cg_jacobi")
                             : "sip,rbsor,cg,cg_jacobi," + kk_defaults +
                                   "mg,mg_f,mg_v3,mg_cheb,cg_mg,cg_mg_cheb,hypre_pfmg,hypre_pcg",
                    {"sip", "rbsor", "cg", "cg_jacobi", "kk_cg", "kk_cg_jacobi", "kk_gmres",
                     "kk_gmres_jacobi", "kk_gmres_ilu", "kk_sor", "mg", "mg_f", "mg_v1", "mg_v3",
                     "mg_cheb", "cg_mg", "cg_mg_cheb", "hypre_pfmg", "hypre_pcg"});
  [[maybe_unused]] const int restart = int(P.get_int("restart", 50, 1));     // kk_gmres only
  [[maybe_unused]] const int ilu_level = int(P.get_int("ilu_level", 0, 0));  // kk_gmres_ilu
  const std::string rhs = P.get_choice("rhs", "random", {"random", "peak", "sine"});
  const double alpha = P.get_double("alpha", 0.92);
  // A float residual stalls near eps |A| |x| (sip_bench.hpp).
  const double tol = P.get_double("tolerance", sizeof(Real) == 4 ? 1e-2 : 1e-6);
  const int every = int(P.get_int("check_every", 5, 1));
  const int max_its = int(P.get_int("max_iterations", 200000, 1));
  const int sweeps = int(P.get_int("sweeps", 10, 1));
  la::MgOptions base;
  base.coarse =
      la::parse<la::MgCoarse>(P.get_choice("coarse", la::name(base.coarse), {"sweeps", "cg"}));
  base.team_cells = P.get_int("team_cells", base.team_cells, -1);
  base.smoother_omega = P.get_double("smoother_omega", base.smoother_omega);
  if (!(base.smoother_omega > 0 && base.smoother_omega < 2))
    throw Error("bench poisson: --set smoother_omega=" + std::to_string(base.smoother_omega) +
                ": expected 0 < omega < 2 (multigrid's red-black smoothing)");
  const std::string ordering = P.get_choice(
      "ordering", gpu ? "tiles" : "lexicographic",
      gpu ? std::vector<std::string>{"diagonals", "pipelined", "tiles"}
          : std::vector<std::string>{"lexicographic", "diagonals", "pipelined", "tiles"});
  P.check_unknown("poisson");
  if (dim != 2 && dim != 3)
    throw Error("bench poisson: --set dim=" + std::to_string(dim) + ": expected 2 or 3");
  if (dim == 2 && bc != "dirichlet")
    throw Error("bench poisson: --set bc=" + bc + ": only with dim=3");
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
    return best_time(space, repeat, fn);
  };

  if (dim == 3) {
    run_poisson3<Space, Real>(space, ks, solvers, bc == "neumann", tol, max_its, sweeps, repeat,
                              base, rows, log);
    return rows;
  }
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
    auto measure = [&](la::Solver<Space, Real, 2>& s, const std::string& what, double values,
                       bool every_iteration = false) {
      la::SolveControl ctl = to_tol;
      if (every_iteration) ctl.check_every = 1;
      KernelBenchRow it;
      it.seconds = best_of([&] { s.solve(p.x, p.b, fixed); }) / sweeps;
      it.bytes = values * cells * sizeof(Real);
      it.label = size + ", " + what + ", one iteration";
      rows.push_back(it);
      la::SolveStats st;
      KernelBenchRow tt;
      tt.seconds = best_of([&] {
        Kokkos::deep_copy(space, p.x, Real(0));
        st = s.solve(p.x, p.b, ctl);
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
      } else if (name == "kk_sor") {
        KernelBenchRow fr;
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
        const double omega = 2 / (1 + std::sin(std::acos(-1.0) / n));
        std::unique_ptr<la::KkMulticolorSor<Space, Op>> sor;
        fr.seconds = timed(
            [&] { sor = std::make_unique<la::KkMulticolorSor<Space, Op>>(space, p.op, omega); });
        fr.label = size + ", " + sor->name() + ", set-up (CRS assembly, colouring)";
        rows.push_back(fr);
        // A sweep: the matrix (5 values, 5 int columns and an offset: 8
        // values' worth), x read and written, b read.
        measure(*sor, sor->name(), 11.0);
#else
        fr.label = size + ", " + name;
        fr.note = "Kokkos Kernels not in this build";
        rows.push_back(fr);
#endif
      } else if (name == "mg" || name == "mg_f" || name == "mg_v1" || name == "mg_v3" ||
                 name == "mg_cheb") {
        const auto mo = bench_mg_options(name, base);
        KernelBenchRow fr;
        std::unique_ptr<la::Multigrid<Space, Op>> mg;
        fr.seconds =
            timed([&] { mg = std::make_unique<la::Multigrid<Space, Op>>(space, p.op, mo); });
        fr.label = size + ", " + mg->name() + ", set-up";
        rows.push_back(fr);
        measure(*mg, mg->name(), bench_mg_cycle_values(mo), true);
      } else if (name == "hypre_pfmg" || name == "hypre_pcg") {
        hypre_rows<Space>(space, p, size, name == "hypre_pcg", tol, repeat, rows, log);
      } else if (name == "kk_cg" || name == "kk_cg_jacobi") {
        KernelBenchRow fr;
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
        const bool jac = name == "kk_cg_jacobi";
        std::unique_ptr<la::KkConjugateGradient<Space, Op>> cg;
        fr.seconds = timed([&] {
          cg = std::make_unique<la::KkConjugateGradient<Space, Op>>(
              space, p.op, jac ? la::CgPreconditioner::jacobi : la::CgPreconditioner::none);
        });
        fr.label = size + ", " + cg->name() + ", set-up (CRS assembly)";
        rows.push_back(fr);
        // spmv: p, q and the matrix (5 values + 5 int columns + 1 int offset:
        // 8 values' worth in double); p.q, x += a p, r -= a q, z = r / d or
        // z = r, r.z, p = z + b p: 2 + 3 + 3 + 3 (2) + 2 + 3.
        measure(*cg, cg->name(), jac ? 26.0 : 25.0);
#else
        fr.label = size + ", " + name;
        fr.note = "Kokkos Kernels not in this build";
        rows.push_back(fr);
#endif
      } else if (name == "kk_gmres" || name == "kk_gmres_jacobi" || name == "kk_gmres_ilu") {
        KernelBenchRow fr;
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
        la::KkGmresOptions go;
        go.preconditioner =
            name == "kk_gmres_jacobi" ? la::CgPreconditioner::jacobi : la::CgPreconditioner::none;
        go.restart = restart;
        if (name == "kk_gmres_ilu") go.ilu_level = ilu_level;
        std::unique_ptr<la::KkGmres<Space, Op>> gm;
        fr.seconds = timed([&] { gm = std::make_unique<la::KkGmres<Space, Op>>(space, p.op, go); });
        fr.label =
            size + ", " + gm->name() +
            (gm->ilu() ? ", set-up (CRS assembly, ILU factorization)" : ", set-up (CRS assembly)");
        rows.push_back(fr);
        // About, an iteration: spmv (8 values' worth, as kk_cg's), the
        // preconditioner (2 or 0), classical Gram-Schmidt twice against the
        // j < m vectors so far (dots and updates: 4 j, 2 m on average over a
        // cycle of m = the timed iterations or restart) and the new vector (3).
        // ILU: two triangular solves reading the factors (a value and an int
        // column an entry: 1.5 values' worth) and a vector in and out each.
        const double m = std::min(restart, sweeps);
        const double pre = gm->ilu() ? 1.5 * double(gm->ilu()->factor_entries()) / cells + 4
                           : go.preconditioner == la::CgPreconditioner::jacobi ? 2
                                                                               : 0;
        measure(*gm, gm->name(), 8.0 + pre + 2 * m + 3);
#else
        fr.label = size + ", " + name;
        fr.note = "Kokkos Kernels not in this build";
        rows.push_back(fr);
#endif
      } else if (name == "cg_mg" || name == "cg_mg_cheb") {
        const auto mo = bench_mg_options(name, base);
        KernelBenchRow fr;
        std::unique_ptr<la::ConjugateGradient<Space, Op>> cg;
        fr.seconds = timed([&] {
          cg = std::make_unique<la::ConjugateGradient<Space, Op>>(
              space, p.op, la::CgOptions(la::CgPreconditioner::mg, mo));
        });
        fr.label = size + ", " + cg->name() + ", set-up";
        rows.push_back(fr);
        measure(*cg, cg->name(), 17.0 + bench_mg_cycle_values(mo), true);
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
        // One fused pass (cg.hpp): r, s, w, p, x and 5 coefficients read,
        // r, s, w, p, x written (+ the diagonal read).
        measure(*cg, cg->name(), jac ? 16.0 : 15.0);
      }
    }
  }
  return rows;
}

}  // namespace kflow::linsys
