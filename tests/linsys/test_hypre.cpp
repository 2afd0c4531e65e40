// The hypre peer of `kflow bench poisson` (bench/linalg/hypre_peer.hpp):
// hypre's PFMG and PCG + PFMG solve the bench's 5-point Dirichlet system,
// checked with linalg's own residual, and need about as many cycles as
// linalg's multigrid (a peer that solved something else would be no peer).
// Skipped in builds without hypre; the toolchain root (CI) always has it.

#include <catch2/catch_test_macros.hpp>

#include <array>
#include <cmath>
#include <vector>

#include "kflow/linalg/multigrid.hpp"
#include "unit/linsys_helpers.hpp"
#ifdef KFLOW_HAVE_HYPRE
#include "hypre_peer.hpp"
#endif

namespace la = kflow::linalg;

TEST_CASE("hypre PFMG and PCG solve the bench's Poisson system", "[unit][multigrid]") {
#ifndef KFLOW_HAVE_HYPRE
  SKIP("this build has no hypre");
#else
  using Mem = Kokkos::HostSpace;
  const int n = 128;
  const auto g = kflow::test::grid2(n, n);
  const double a = 1.0 / (g.spacing(0) * g.spacing(0));
  la::Field<double, 2, Mem> c[5];
  for (auto& f : c) f = la::Field<double, 2, Mem>("c", g.extent(0), g.extent(1));
  std::array<std::vector<double>, 5> hc;
  for (auto& v : hc) v.resize(n * n);
  std::vector<double> b(n * n), x(n * n);
  const auto rhs = kflow::test::random_field(g, 11);
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) {
      // u = 0 on the walls, mirrored ghosts (bench poisson's operator)
      const double w = i > 1 ? a : 0, e = i < n ? a : 0, s = j > 1 ? a : 0, nn = j < n ? a : 0;
      const double p = -4 * a - (i == 1 || i == n ? a : 0) - (j == 1 || j == n ? a : 0);
      const double v[5] = {p, w, e, s, nn};
      for (int q = 0; q < 5; ++q) c[q](i, j) = v[q], hc[q][(i - 1) + n * (j - 1)] = v[q];
      b[(i - 1) + n * (j - 1)] = rhs(i, j);
    }
  la::Stencil5<double, Mem> op;
  op.cp = c[0], op.cw = c[1], op.ce = c[2], op.cs = c[3], op.cn = c[4];
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  for (bool pcg : {false, true}) {
    std::fill(x.begin(), x.end(), 0.0);
    const auto r = kflow::linsys::hypre_solve2(n, n, hc, b, x, 1e-10, pcg);
    kflow::test::HostField2 hx("x", g.extent(0), g.extent(1));
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) hx(i, j) = x[(i - 1) + n * (j - 1)];
    double res = 0, bmax = 0;
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) {
        res = std::max(res, std::fabs(rhs(i, j) - la::apply_at(op, hx, i, j)));
        bmax = std::max(bmax, std::fabs(rhs(i, j)));
      }
    INFO(r.name << ": " << r.iterations << " iterations, ||r||/||b|| " << r.relative_l2
                << ", max-norm residual " << res / bmax);
    CHECK(r.relative_l2 <= 1e-10);
    CHECK(res / bmax <= 1e-8);
    CHECK(r.iterations <= 15);
  }
#endif
}
