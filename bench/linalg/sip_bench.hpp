#pragma once
// `kflow bench sip`: Ezzatti & Nesmachnow's Table 2 (their sec. 5.2) as a runnable
// benchmark.  SIP on the 2D five-point Poisson problem with (2^k + 2)^2 nodes
// (2^k x 2^k cells plus one boundary node on each side, caffa's
// convention), k = 5, 7, 9, 10 by default: matrix dimensions
// 1156, 16900, 264196, 1052676.
//
// The problem (the paper's "representative scenarios" are not
// available): -laplace u = f on the unit square, u = 0 on
// the walls (mirrored ghosts), f such that u = sin(pi x) sin(pi y).  Rows per
// size and solver:
//   factorization     SIP's incomplete LU (once per operator);
//   one iteration     the mean of `sweeps` fixed iterations (residual,
//                     forward, backward), with the bytes an ideal
//                     implementation moves (19 values per cell);
//   to tolerance      iterations and time until max |b - A x| <= tol max |b|
//                     from x = 0 (checked every `check_every` iterations),
//                     one run, for the orderings in `to_tolerance` (default:
//                     tiles on GPUs, none on CPUs: every ordering has the
//                     same iterates, so the CPU time to tolerance is the
//                     iteration count times its per-iteration time; at k = 10
//                     SIP needs ~10^5 iterations, minutes on one core), and
//                     for red-black SOR (omega = 2 / (1 + sin(pi h)), the
//                     optimum for this problem) on the same data.
// Timings exclude host<->device copies (nothing is copied) and include every
// kernel launch; the paper does not say what its times include.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "kflow/linalg/sip.hpp"
#include "kflow/model/error.hpp"
#include "sip_paper.hpp"

namespace kflow::linsys {

namespace la = kflow::linalg;

template <class Space, class Real>
struct PoissonProblem {
  using Mem = typename Space::memory_space;
  la::Stencil5<Real, Mem> op;
  la::Field<Real, 2, Mem> b, x;
};

template <class Space, class Real>
struct PoissonProblem3 {
  using Mem = typename Space::memory_space;
  la::Stencil7<Real, Mem> op;
  la::Field<Real, 3, Mem> c[7], b, x;  // c: the operator's fields (p, w, e, s, n, b, t)
};

namespace kernels {
// Uniform in [-1, 1) from splitmix64 of a cell index: random right-hand
// sides that are the same on every backend.
KOKKOS_INLINE_FUNCTION double splitmix_unit(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}
KOKKOS_INLINE_FUNCTION double cell_uniform(int i, int j) {
  return splitmix_unit(std::uint64_t(i) * 0x9E3779B97F4A7C15ull + std::uint64_t(j));
}
KOKKOS_INLINE_FUNCTION double cell_uniform(int i, int j, int k) {
  return splitmix_unit((std::uint64_t(i) * 0x9E3779B97F4A7C15ull + std::uint64_t(j)) *
                           0xBF58476D1CE4E5B9ull +
                       std::uint64_t(k));
}
}  // namespace kernels

namespace kernels {
template <class Space, class Real, class F>
void fill_poisson(const Space& space, const la::Grid& g, const F& cp, const F& cw, const F& ce,
                  const F& cs, const F& cn, const F& b) {
  const int nx = g.cells[0], ny = g.cells[1];
  const double hx = g.spacing(0), hy = g.spacing(1);
  const double ax = 1 / (hx * hx), ay = 1 / (hy * hy), pi = 3.14159265358979323846;
  Kokkos::parallel_for(
      "kflow::linsys::sip::fill", la::interior_policy<2>(space, g), KOKKOS_LAMBDA(int i, int j) {
        cw(i, j) = Real(i > 1 ? ax : 0);
        ce(i, j) = Real(i < nx ? ax : 0);
        cs(i, j) = Real(j > 1 ? ay : 0);
        cn(i, j) = Real(j < ny ? ay : 0);
        cp(i, j) =
            Real(-2 * ax - 2 * ay - (i == 1 || i == nx ? ax : 0) - (j == 1 || j == ny ? ay : 0));
        const double x = (i - 0.5) * hx, y = (j - 0.5) * hy;
        b(i, j) = Real(-2 * pi * pi * Kokkos::sin(pi * x) * Kokkos::sin(pi * y));
      });
}
}  // namespace kernels

template <class Space, class Real>
PoissonProblem<Space, Real> poisson_problem(const Space& space, int n) {
  la::Grid g;
  g.dim = 2;
  g.cells = {n, n, 1};
  PoissonProblem<Space, Real> p;
  auto make = [&](const char* l) {
    return la::make_field<Real, 2>(space, l, g);
  };
  auto cp = make("cp"), cw = make("cw"), ce = make("ce"), cs = make("cs"), cn = make("cn");
  p.b = make("b");
  p.x = make("x");
  kernels::fill_poisson<Space, Real>(space, g, cp, cw, ce, cs, cn, p.b);
  p.op.cp = cp, p.op.cw = cw, p.op.ce = ce, p.op.cs = cs, p.op.cn = cn;
  p.op.grid = g;
  la::set_neighbours(p.op, g, false, false);
  return p;
}

namespace kernels {
// The 3D counterpart: -laplace u = f on the unit cube, u = 0 on the walls,
// u = sin(pi x) sin(pi y) sin(pi z).
template <class Space, class Real, class F>
void fill_poisson3(const Space& space, const la::Grid& g, const F* c, const F& b) {
  const int n = g.cells[0];
  const double h = g.spacing(0), a = 1 / (h * h), pi = 3.14159265358979323846;
  const F cp = c[0], cw = c[1], ce = c[2], cs = c[3], cn = c[4], cb = c[5], ct = c[6];
  Kokkos::parallel_for(
      "kflow::linsys::sip::fill3", la::interior_policy<3>(space, g),
      KOKKOS_LAMBDA(int i, int j, int k) {
        cw(i, j, k) = Real(i > 1 ? a : 0);
        ce(i, j, k) = Real(i < n ? a : 0);
        cs(i, j, k) = Real(j > 1 ? a : 0);
        cn(i, j, k) = Real(j < n ? a : 0);
        cb(i, j, k) = Real(k > 1 ? a : 0);
        ct(i, j, k) = Real(k < n ? a : 0);
        cp(i, j, k) = Real(-6 * a - (i == 1 || i == n ? a : 0) - (j == 1 || j == n ? a : 0) -
                           (k == 1 || k == n ? a : 0));
        b(i, j, k) = Real(-3 * pi * pi * Kokkos::sin(pi * (i - 0.5) * h) *
                          Kokkos::sin(pi * (j - 0.5) * h) * Kokkos::sin(pi * (k - 0.5) * h));
      });
}
}  // namespace kernels

// The 3D problem (fill_poisson3) on n^3 cells.
template <class Space, class Real>
PoissonProblem3<Space, Real> poisson_problem3(const Space& space, int n) {
  la::Grid g;
  g.dim = 3;
  g.cells = {n, n, n};
  PoissonProblem3<Space, Real> p;
  for (auto& f : p.c) f = la::make_field<Real, 3>(space, "c", g);
  p.b = la::make_field<Real, 3>(space, "b", g);
  p.x = la::make_field<Real, 3>(space, "x", g);
  kernels::fill_poisson3<Space, Real>(space, g, p.c, p.b);
  p.op.cp = p.c[0], p.op.cw = p.c[1], p.op.ce = p.c[2], p.op.cs = p.c[3], p.op.cn = p.c[4],
  p.op.cb = p.c[5], p.op.ct = p.c[6];
  p.op.grid = g;
  return p;
}

// SIP 3D rows (dim=3): n^3 cells, n = 2^k.
template <class Space, class Real>
void run_sip3(const Space& space, const std::vector<long>& ks, double alpha, double tol, int sweeps,
              int every, int max_its, int repeat, std::vector<KernelBenchRow>& rows) {
  using Mem = typename Space::memory_space;
  using Op = la::Stencil7<Real, Mem>;
  constexpr bool gpu = la::on_gpu<Space>;
  auto best_of = [&](auto&& fn) {
    return best_time(space, repeat, fn);
  };
  for (long k : ks) {
    const int n = 1 << k;
    auto p = poisson_problem3<Space, Real>(space, n);
    const Op& op = p.op;
    const auto &b = p.b, &x = p.x;
    const auto ord = gpu ? la::SipOrdering::diagonals : la::SipOrdering::lexicographic;
    const std::string what =
        std::to_string(n) + "^3 cells, sip3d " + (gpu ? "hyperplanes" : "lexicographic");
    KernelBenchRow fr;
    fr.seconds = best_of([&] { la::Sip<Space, Op> s(space, op, la::SipOptions{alpha, ord}); });
    fr.label = what + ", factorization";
    rows.push_back(fr);
    la::Sip<Space, Op> sip(space, op, la::SipOptions{alpha, ord});
    la::SolveControl fixed;
    fixed.tolerance = 0;
    fixed.max_iterations = sweeps;
    KernelBenchRow it;
    it.seconds = best_of([&] { sip.solve(x, b, fixed); }) / sweeps;
    it.bytes = 25.0 * double(n) * n * n * sizeof(Real);  // 10 + 6 + 9 values per cell
    it.label = what + ", one iteration";
    rows.push_back(it);
    la::SolveControl c2;
    c2.tolerance = tol;  // relative to max |b| (solver.hpp)
    c2.check_every = every;
    c2.max_iterations = max_its;
    la::SolveStats st;
    KernelBenchRow tt;
    tt.seconds = best_of([&] {
      Kokkos::deep_copy(space, x, Real(0));
      st = sip.solve(x, b, c2);
    });
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2e", st.criterion);
    tt.label = what + ", to tolerance";
    tt.note = std::to_string(st.iterations) + " iterations, residual " + buf + " x max|b|" +
              (st.converged ? "" : " NOT CONVERGED");
    rows.push_back(tt);
  }
}

// A 2D SIP by ordering name: linalg's (lexicographic, tiles) or those kept
// to reproduce the paper (diagonals, pipelined: sip_paper.hpp).
template <class Space, class Op>
std::unique_ptr<la::Solver<Space, typename Op::real_type, 2>> make_sip2(const Op& op,
                                                                        const std::string& ordering,
                                                                        double alpha, int strip,
                                                                        const la::SipTiles& tiles) {
  if (ordering == "diagonals" || ordering == "pipelined")
    return std::make_unique<SipPaper<Space, Op>>(Space(), op, la::parse<SipPaperOrdering>(ordering),
                                                 alpha, strip);
  return std::make_unique<la::Sip<Space, Op>>(
      Space(), op, la::SipOptions{alpha, la::parse<la::SipOrdering>(ordering), strip, tiles});
}

template <class Space, class Real>
std::vector<KernelBenchRow> run_sip(const KernelBenchOptions& o, std::ostream& log) {
  constexpr bool gpu = la::on_gpu<Space>;
  const auto& P = o.params;
  const int dim = int(P.get_int("dim", 2, 2));
  const auto ks =
      P.get_ints("k", dim == 3 ? std::vector<long>{4, 5, 6} : std::vector<long>{5, 7, 9, 10}, 1);
  std::vector<std::string> ord_names = {"diagonals", "pipelined", "tiles"};
  if (!gpu) ord_names.insert(ord_names.begin(), "lexicographic");
  const auto ords = P.get_choices(
      "ordering", gpu ? "diagonals,pipelined,tiles" : "lexicographic,tiles", ord_names);
  const double alpha = P.get_double("alpha", 0.92);
  // Reachable in each precision: the residual of a float solution stalls near
  // eps |A| |x| ~ 1e-7 * 8 / h^2, i.e. ~1e-2 max|b| at k = 10.
  const double tol = P.get_double("tolerance", sizeof(Real) == 4 ? 1e-2 : 1e-6);
  const int sweeps = int(P.get_int("sweeps", 10, 1));
  const int every = int(P.get_int("check_every", 5, 1));
  const int max_its = int(P.get_int("max_iterations", 100000, 1));
  // Orderings timed to tolerance (all orderings give the same iterates, so
  // the others' time to tolerance is iterations x their per-iteration time).
  std::vector<std::string> tol_names = ord_names;
  tol_names.push_back("none");
  const auto tol_ords = P.get_choices("to_tolerance", gpu ? "tiles" : "none", tol_names);
  const int strip = int(P.get_int("strip_rows", 0, 0));
  la::SipTiles tiles;  // 0: the defaults of sip.hpp
  tiles.cols = int(P.get_int("tile_cols", 0, 0));
  tiles.group = int(P.get_int("tile_group", 0, 0));
  tiles.threads = int(P.get_int("tile_threads", 0, 0));
  const auto solvers = P.get_choices("solvers", "sip,rbsor", {"sip", "rbsor"});
  P.check_unknown("sip");
  if (dim > 3) throw Error("bench sip: --set dim=" + std::to_string(dim) + ": expected 2 or 3");
  if (!(alpha >= 0 && alpha < 1))
    throw Error("bench sip: --set alpha=" + std::to_string(alpha) + ": expected 0 <= alpha < 1");
  for (long k : ks)
    if (k > 14) throw Error("bench sip: --set k=" + std::to_string(k) + ": expected k <= 14");
  const int repeat = std::max(1, o.repeat);
  Space space;
  std::vector<KernelBenchRow> rows;
  using Op = la::Stencil5<Real, typename Space::memory_space>;

  auto fmt = [](const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  auto best_of = [&](auto&& fn) {
    return best_time(space, repeat, fn);
  };

  if (dim == 3) {
    run_sip3<Space, Real>(space, ks, alpha, tol, sweeps, every, max_its, repeat, rows);
    return rows;
  }
  for (long k : ks) {
    const int n = 1 << k;
    auto p = poisson_problem<Space, Real>(space, n);
    const std::string size =
        std::to_string(n + 2) + "^2 nodes (dim " + std::to_string(long(n + 2) * (n + 2)) + ")";
    la::SolveControl to_tol;
    to_tol.tolerance = tol;  // relative to max |b| (solver.hpp)
    to_tol.check_every = every;
    to_tol.max_iterations = max_its;
    to_tol.criterion = la::Criterion::residual;
    if (std::find(solvers.begin(), solvers.end(), "sip") != solvers.end())
      for (const auto& oname : ords) {
        std::string what = size + ", sip " + oname;
        KernelBenchRow fr;
        std::unique_ptr<la::Solver<Space, Real, 2>> sip;
        try {
          fr.seconds = best_of([&] { sip = make_sip2<Space>(p.op, oname, alpha, strip, tiles); });
        } catch (const std::invalid_argument& e) {
          throw Error(std::string("bench sip: ") + e.what());
        }
        if (const auto* s = dynamic_cast<const la::Sip<Space, Op>*>(sip.get());
            s && s->ordering() == la::SipOrdering::tiles)
          what +=
              gpu ? " " + std::to_string(s->tiles().rows) + " rows, group " +
                        std::to_string(s->tiles().group) + ", " +
                        std::to_string(s->tiles().threads) + " threads"
                  : " " + std::to_string(s->tiles().cols) + "x" + std::to_string(s->tiles().rows);
        fr.label = what + ", factorization";
        rows.push_back(fr);
        la::SolveControl fixed;
        fixed.tolerance = 0;
        fixed.max_iterations = sweeps;
        KernelBenchRow it;
        it.seconds = best_of([&] { sip->solve(p.x, p.b, fixed); }) / sweeps;
        it.bytes = 19.0 * double(n) * n * sizeof(Real);
        it.label = what + ", one iteration";
        rows.push_back(it);
        if (std::find(tol_ords.begin(), tol_ords.end(), oname) == tol_ords.end()) continue;
        la::SolveStats st;
        KernelBenchRow tt;
        Kokkos::deep_copy(space, p.x, Real(0));
        space.fence();
        Kokkos::Timer timer;
        st = sip->solve(p.x, p.b, to_tol);
        space.fence();
        tt.seconds = timer.seconds();  // one run (it can take minutes)
        tt.label = what + ", to tolerance";
        tt.note = std::to_string(st.iterations) + " iterations, residual " +
                  fmt("%.2e", st.criterion) + " x max|b|" + (st.converged ? "" : " NOT CONVERGED");
        rows.push_back(tt);
        log << "sip: " << what << " done\n";
      }
    if (std::find(solvers.begin(), solvers.end(), "rbsor") != solvers.end()) {
      const double omega = 2 / (1 + std::sin(std::acos(-1.0) / n));
      la::RedBlackSOR<Space, Op> sor(space, p.op, la::SorOptions{omega});
      la::SolveStats st;
      KernelBenchRow tt;
      tt.seconds = best_of([&] {
        Kokkos::deep_copy(space, p.x, Real(0));
        st = sor.solve(p.x, p.b, to_tol);
      });
      tt.label = size + ", rbsor omega " + fmt("%.4f", omega) + ", to tolerance";
      tt.note = std::to_string(st.iterations) + " iterations, residual " +
                fmt("%.2e", st.criterion) + " x max|b|" + (st.converged ? "" : " NOT CONVERGED");
      rows.push_back(tt);
    }
  }
  return rows;
}

}  // namespace kflow::linsys
