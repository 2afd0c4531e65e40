// One batched tridiagonal solve through the installed kflow::linalg:
// 4 systems of the 1D Laplacian (-1, 2, -1) with a known solution x*,
// right-hand side d = A x*; the solve must return x* to rounding.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>

#include "kflow/linalg/tridiag.hpp"

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  namespace la = kflow::linalg;
  using Space = Kokkos::DefaultExecutionSpace;
  const long n = 100, systems = 4, size = n * systems;
  Kokkos::View<double*, Space::memory_space> a("a", size), b("b", size), c("c", size), d("d", size),
      x("x", size), exact("exact", size);
  Kokkos::parallel_for(
      "consumer::set_up", Kokkos::RangePolicy<Space>(0, size), KOKKOS_LAMBDA(long p) {
        const long k = p % n, s = p / n;
        const auto xs = [&](long kk) {
          return kk < 0 || kk >= n ? 0.0 : std::sin(0.1 * kk + s);
        };
        a(p) = k == 0 ? 0.0 : -1.0;
        c(p) = k == n - 1 ? 0.0 : -1.0;
        b(p) = 2.0;
        exact(p) = xs(k);
        d(p) = -xs(k - 1) + 2.0 * xs(k) - xs(k + 1);
      });
  using CV = Kokkos::View<const double*, Space::memory_space>;
  la::solve_tridiag<Space, double>(Space(), la::contiguous_shape(n, systems), CV(a), CV(b), CV(c),
                                   CV(d), x);
  double err = 0;
  Kokkos::parallel_reduce(
      "consumer::error", Kokkos::RangePolicy<Space>(0, size),
      KOKKOS_LAMBDA(long p, double& m) { m = Kokkos::max(m, Kokkos::abs(x(p) - exact(p))); },
      Kokkos::Max<double>(err));
  std::printf("kflow::linalg consumer: %ld systems of %ld, max error %.3g\n", systems, n, err);
  return err < 1e-10 ? 0 : 1;
}
