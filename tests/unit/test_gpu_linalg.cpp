// linalg's kernels on CUDA against the host: the fused red-black SOR
// iteration's bits, CG's iterates to rounding.  Built only where Kokkos has
// CUDA (the models' comparisons: test_gpu.cpp).

#include <catch2/catch_test_macros.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "helpers.hpp"
#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/rbsor.hpp"

TEST_CASE("red-black SOR: the fused GPU iteration gives the bits of the two sweeps", "[gpu]") {
  namespace la = kflow::linalg;
  using Space = Kokkos::Cuda;
  using Mem = Space::memory_space;
  Space space;
  // A size that is no multiple of the tile, and an obstacle.
  la::Grid g;
  g.dim = 2;
  g.cells = {203, 77, 1};
  const int nx = 203, ny = 77;
  Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Mem> mask("mask", nx + 2, ny + 2);
  la::Field<double, 2, Mem> x1("x1", nx + 2, ny + 2), x2("x2", nx + 2, ny + 2),
      b("b", nx + 2, ny + 2);
  Kokkos::parallel_for(
      "test::init", la::interior_policy<2>(space, g), KOKKOS_LAMBDA(int i, int j) {
        auto in = [&](int a, int c) {
          return a >= 1 && a <= nx && c >= 1 && c <= ny && !(a > 60 && a < 90 && c > 20 && c < 40);
        };
        if (in(i, j))
          mask(i, j) = la::mask_bits::self | (in(i - 1, j) ? la::mask_bits::west : 0) |
                       (in(i + 1, j) ? la::mask_bits::east : 0) |
                       (in(i, j - 1) ? la::mask_bits::south : 0) |
                       (in(i, j + 1) ? la::mask_bits::north : 0);
        b(i, j) = Kokkos::sin(0.1 * i) * Kokkos::cos(0.07 * j);
        x1(i, j) = x2(i, j) = ((i * 7 + j * 13) % 17) / 17.0;
      });
  la::Laplace5<double, Mem> op;
  op.mask = mask;
  op.cx = op.cy = 100.0;
  op.grid = g;
  la::set_neighbours(op, g, false, false);
  la::RedBlackSOR<Space, decltype(op)> sor(space, op, la::SorOptions{1.7});
  la::SolveControl c;
  c.tolerance = 0;
  c.max_iterations = 25;
  REQUIRE(sor.fused());
  sor.solve(x1, b, c);
  la::RedBlackSOR<Space, decltype(op)>(space, op, la::SorOptions{1.7, false}).solve(x2, b, c);
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x1);
  auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x2);
  long differ = 0;
  for (int j = 0; j < ny + 2; ++j)
    for (int i = 0; i < nx + 2; ++i) differ += h1(i, j) != h2(i, j);
  CHECK(differ == 0);
}

namespace {
// CG on a variable-coefficient Dirichlet system (Stencil5) or on a walled,
// singular masked Laplacian with an obstacle (Laplace5), on execution space
// `Space`: returns x after `iterations` CG iterations (tolerance 0: no
// checks) or, with iterations = 0, after a solve to 1e-10 (every 5), and the
// iteration count.  Every input is built on the host and copied.
template <class Space>
std::vector<double> cg_run(bool singular, bool jacobi, int iterations, int& its) {
  namespace la = kflow::linalg;
  using Mem = typename Space::memory_space;
  using H = la::Field<double, 2, Kokkos::HostSpace>;
  Space space;
  const int nx = 203, ny = 77;
  la::Grid g;
  g.dim = 2;
  g.cells = {nx, ny, 1};
  H cp("cp", nx + 2, ny + 2), cw("cw", nx + 2, ny + 2), ce("ce", nx + 2, ny + 2),
      cs("cs", nx + 2, ny + 2), cn("cn", nx + 2, ny + 2), b("b", nx + 2, ny + 2);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> mask("mask", nx + 2, ny + 2);
  auto in = [&](int a, int c) {
    return a >= 1 && a <= nx && c >= 1 && c <= ny && !(a > 60 && a < 90 && c > 20 && c < 40);
  };
  auto k = [](double x, double y) {
    return 1.0 + 0.5 * std::sin(0.05 * x + 0.1 * y);
  };
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i) {
      const double w = k(i - 0.5, j), e = k(i + 0.5, j), s = k(i, j - 0.5), n = k(i, j + 0.5);
      cw(i, j) = i > 1 ? w : 0;
      ce(i, j) = i < nx ? e : 0;
      cs(i, j) = j > 1 ? s : 0;
      cn(i, j) = j < ny ? n : 0;
      cp(i, j) = -(w + e + s + n);
      b(i, j) = std::sin(0.1 * i) * std::cos(0.07 * j) + ((i * 7 + j * 13) % 17) / 17.0;
      if (in(i, j))
        mask(i, j) = la::mask_bits::self | (in(i - 1, j) ? la::mask_bits::west : 0) |
                     (in(i + 1, j) ? la::mask_bits::east : 0) |
                     (in(i, j - 1) ? la::mask_bits::south : 0) |
                     (in(i, j + 1) ? la::mask_bits::north : 0);
    }
  auto dev = [&](const H& h) {
    return Kokkos::create_mirror_view_and_copy(Mem(), h);
  };
  la::Field<double, 2, Mem> x("x", nx + 2, ny + 2), bd = dev(b);
  la::SolveControl c;
  c.tolerance = iterations > 0 ? 0.0 : 1e-10;
  c.check_every = 5;
  c.max_iterations = iterations > 0 ? iterations : 100000;
  const auto pre = jacobi ? la::CgPreconditioner::jacobi : la::CgPreconditioner::none;
  la::SolveStats st;
  if (singular) {
    la::Laplace5<double, Mem> op;
    op.mask = Kokkos::create_mirror_view_and_copy(Mem(), mask);
    op.cx = op.cy = 100.0;
    op.grid = g;
    la::set_neighbours(op, g, false, false);
    la::ConjugateGradient<Space, decltype(op)> cg(space, op, la::CgOptions{pre});
    st = cg.solve(x, bd, c);
  } else {
    la::Stencil5<double, Mem> op;
    op.cp = dev(cp), op.cw = dev(cw), op.ce = dev(ce), op.cs = dev(cs), op.cn = dev(cn);
    op.grid = g;
    la::set_neighbours(op, g, false, false);
    la::ConjugateGradient<Space, decltype(op)> cg(space, op, la::CgOptions{pre});
    st = cg.solve(x, bd, c);
  }
  its = st.iterations;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  return std::vector<double>(h.data(), h.data() + h.size());
}
}  // namespace

TEST_CASE("CG on cuda and openmp gives the same iterates to rounding", "[gpu][cg]") {
  // The reductions sum in a different order, so alpha and beta differ in
  // the last bits; after 40 iterations the iterates agree to 1e-10 of their
  // size, and a solve to 1e-10 ends within one check (5 iterations).
  for (bool singular : {false, true})
    for (bool jacobi : {false, true}) {
      int ig = 0, ic = 0;
      const auto g40 = cg_run<Kokkos::Cuda>(singular, jacobi, 40, ig);
      const auto c40 = cg_run<Kokkos::DefaultHostExecutionSpace>(singular, jacobi, 40, ic);
      double diff = 0, scale = 0;
      for (std::size_t i = 0; i < g40.size(); ++i)
        diff = std::max(diff, std::fabs(g40[i] - c40[i])),
        scale = std::max(scale, std::fabs(c40[i]));
      INFO((singular ? "Laplace5 singular" : "Stencil5")
           << (jacobi ? ", jacobi" : ", none") << ": diff " << diff << ", scale " << scale);
      CHECK(ig == 40);
      CHECK(diff <= 1e-10 * scale);
      const auto gs = cg_run<Kokkos::Cuda>(singular, jacobi, 0, ig);
      const auto cs = cg_run<Kokkos::DefaultHostExecutionSpace>(singular, jacobi, 0, ic);
      INFO("iterations to 1e-10: cuda " << ig << ", host " << ic);
      CHECK(std::abs(ig - ic) <= 5);
      diff = 0;
      for (std::size_t i = 0; i < gs.size(); ++i) diff = std::max(diff, std::fabs(gs[i] - cs[i]));
      CHECK(diff <= 1e-7 * scale);
    }
}
