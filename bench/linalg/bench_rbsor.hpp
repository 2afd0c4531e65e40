#pragma once
// `kflow bench rbsor`: red-black SOR sweeps on the pressure equation of a
// square cavity (the masked 5-point Laplacian mac2d uses), n x n cells.
// Effective bandwidth as counted here: per iteration the pressure is
// read and written once and the right-hand side read once (3 values per
// cell); the one-byte mask is not counted.

#include <Kokkos_Core.hpp>

#include <chrono>
#include <ostream>
#include <random>
#include <sstream>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "kflow/model/error.hpp"

namespace kflow::mac2d {

template <class ExecSpace, class Real>
std::vector<KernelBenchRow> bench_rbsor(const KernelBenchOptions& o, std::ostream& log) {
  using Mem = typename ExecSpace::memory_space;
  const long n = o.params.get_int("n", 4096, 2);
  const int iterations = int(o.params.get_int("iterations", 100, 1));
  const double omega = o.params.get_double("omega", 1.7);
  o.params.check_unknown("rbsor");
  if (!(omega > 0 && omega < 2)) throw Error("bench rbsor: omega must be in (0, 2)");
  ExecSpace space;
  linalg::Grid g;
  g.dim = 2;
  g.cells = {int(n), int(n), 1};
  const int e = int(n) + 2;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Mem> mask(
      Kokkos::view_alloc(space, std::string("kflow::bench::mask")), e, e);
  linalg::Field<Real, 2, Mem> x(Kokkos::view_alloc(space, std::string("kflow::bench::x")), e, e);
  linalg::Field<Real, 2, Mem> b(Kokkos::view_alloc(space, std::string("kflow::bench::b")), e, e);
  const int nn = int(n);
  namespace mb = linalg::mask_bits;
  Kokkos::parallel_for(
      "kflow::bench::rbsor_init", linalg::interior_policy<2>(space, g),
      KOKKOS_LAMBDA(int i, int j) {
        mask(i, j) = mb::self | (i > 1 ? mb::west : 0) | (i < nn ? mb::east : 0) |
                     (j > 1 ? mb::south : 0) | (j < nn ? mb::north : 0);
        // A smooth compatible right-hand side and a rough initial guess.
        b(i, j) = Real(Kokkos::cos(3.14159265358979 * (i - 0.5) / nn));
        x(i, j) = Real(((i * 7 + j * 13) % 17) / 17.0);
      });
  linalg::Laplace5<Real, Mem> op;
  op.mask = mask;
  op.cx = op.cy = Real(double(n) * double(n));
  op.grid = g;
  linalg::set_neighbours(op, g, false, false);
  linalg::SolveControl c;
  c.tolerance = 0;  // fixed count, no host synchronisation
  c.max_iterations = iterations;
  std::vector<KernelBenchRow> rows;
  for (bool fused : {true, false}) {
    linalg::RedBlackSOR<ExecSpace, decltype(op)> sor(space, op, linalg::SorOptions{omega, fused});
    if (fused && !sor.fused()) continue;  // CPUs: the per-colour sweeps only
    sor.solve(x, b, c);                   // warm-up
    space.fence("kflow::bench::rbsor");
    double best = 1e30;
    for (int r = 0; r < o.repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      sor.solve(x, b, c);
      space.fence("kflow::bench::rbsor");
      best = std::min(best,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double res = linalg::residual_max_norm(space, op, x, b);
    std::ostringstream label, note;
    label << "rbsor " << n << "x" << n << ", " << iterations << " iterations ("
          << (fused ? "one fused kernel" : "2 kernels") << " each)";
    note << (best / iterations) * 1e6 << " us/iteration, final residual " << res;
    KernelBenchRow row;
    row.label = label.str();
    row.seconds = best;
    row.bytes = 3.0 * sizeof(Real) * double(n) * double(n) * iterations;
    row.note = note.str();
    rows.push_back(row);
  }
  log << "kflow bench rbsor: " << n << "^2 cells, " << iterations << " iterations per timing\n";
  return rows;
}

}  // namespace kflow::mac2d
