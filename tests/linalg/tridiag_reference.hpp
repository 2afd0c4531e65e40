#pragma once
// An independent reference for the batched tridiagonal solvers
// (linalg/tridiag.hpp, bench/linalg/tridiag_variants.hpp): Gaussian
// elimination WITH partial pivoting in long double (LAPACK gtsv's algorithm,
// one extra super-diagonal of fill), itself checked against a dense LU with
// partial pivoting; random diagonally dominant systems over any shape; and a
// runner that copies a problem to an execution space, solves it there and
// brings x back.

#include <Kokkos_Core.hpp>

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "kflow/linalg/tridiag.hpp"
#include "kflow/linalg/tridiag_shape.hpp"

namespace kflow::test {

namespace la = kflow::linalg;

using LD = long double;

// Solves one tridiagonal system with partial pivoting (no assumption on the
// matrix beyond non-singularity).
inline std::vector<LD> gtsv_reference(std::vector<LD> a, std::vector<LD> b, std::vector<LD> c,
                                      std::vector<LD> d) {
  const std::size_t n = b.size();
  std::vector<LD> c2(n, 0);  // second super-diagonal (fill)
  for (std::size_t k = 0; k + 1 < n; ++k) {
    // rows k and k+1; a[k+1] is the sub-diagonal entry below b[k]
    if (std::fabs(a[k + 1]) > std::fabs(b[k])) {
      std::swap(b[k], a[k + 1]);  // row swap: row k <-> row k+1
      std::swap(c[k], b[k + 1]);
      std::swap(c2[k], c[k + 1]);
      std::swap(d[k], d[k + 1]);
    }
    const LD l = a[k + 1] / b[k];
    b[k + 1] -= l * c[k];
    c[k + 1] -= l * c2[k];
    d[k + 1] -= l * d[k];
    a[k + 1] = 0;
  }
  std::vector<LD> x(n);
  for (std::size_t k = n; k-- > 0;) {
    LD v = d[k];
    if (k + 1 < n) v -= c[k] * x[k + 1];
    if (k + 2 < n) v -= c2[k] * x[k + 2];
    x[k] = v / b[k];
  }
  return x;
}

// Gaussian elimination with partial pivoting of the augmented n x (n + 1)
// matrix m (the right-hand side in column n).
inline std::vector<LD> dense_solve(std::vector<std::vector<LD>> m) {
  const std::size_t n = m.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t piv = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::fabs(m[r][k]) > std::fabs(m[piv][k])) piv = r;
    std::swap(m[k], m[piv]);
    for (std::size_t r = k + 1; r < n; ++r) {
      const LD l = m[r][k] / m[k][k];
      for (std::size_t j = k; j <= n; ++j) m[r][j] -= l * m[k][j];
    }
  }
  std::vector<LD> x(n);
  for (std::size_t k = n; k-- > 0;) {
    LD v = m[k][n];
    for (std::size_t j = k + 1; j < n; ++j) v -= m[k][j] * x[j];
    x[k] = v / m[k][k];
  }
  return x;
}

inline std::vector<LD> dense_reference(const std::vector<LD>& a, const std::vector<LD>& b,
                                       const std::vector<LD>& c, const std::vector<LD>& d) {
  const std::size_t n = b.size();
  std::vector<std::vector<LD>> m(n, std::vector<LD>(n + 1, 0));
  for (std::size_t k = 0; k < n; ++k) {
    if (k > 0) m[k][k - 1] = a[k];
    m[k][k] = b[k];
    if (k + 1 < n) m[k][k + 1] = c[k];
    m[k][n] = d[k];
  }
  return dense_solve(std::move(m));
}

struct Problem {
  la::TridiagShape shape;
  std::vector<double> a, b, c, d;            // over shape.span()
  mutable std::vector<std::vector<LD>> ref;  // per system, computed once
};

// Random diagonally dominant systems: |b| = (|a| + |c|) * (1 + margin) with
// random signs; stored a_0 and c_{n-1} are garbage that must be ignored.
inline Problem random_problem(const la::TridiagShape& sh, unsigned seed, double margin = 0.1) {
  Problem p;
  p.shape = sh;
  const long span = sh.span();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  p.a.assign(span, 7.5);  // unused slots (ghosts) hold something visible
  p.b.assign(span, 7.5);
  p.c.assign(span, 7.5);
  p.d.assign(span, 7.5);
  for (long m = 0; m < sh.systems(); ++m)
    for (long k = 0; k < sh.n; ++k) {
      const long i = sh.first(m) + k * sh.stride;
      p.a[i] = u(gen);
      p.c[i] = u(gen);
      const double off = (k > 0 ? std::fabs(p.a[i]) : 0) + (k + 1 < sh.n ? std::fabs(p.c[i]) : 0);
      const double mag = off * (1 + margin) + (off == 0 ? 1 : 0) + 0.05 * std::fabs(u(gen));
      p.b[i] = u(gen) < 0 ? -mag : mag;
      p.d[i] = u(gen) * 10;
      if (k == 0) p.a[i] = 1e30;  // never read as a coefficient
      if (k + 1 == sh.n) p.c[i] = -1e30;
    }
  return p;
}

// Max over systems of ||x - x_ref||_inf / ||x_ref||_inf.
inline double max_rel_error(const Problem& p, const std::vector<double>& x) {
  const auto& sh = p.shape;
  double worst = 0;
  if (p.ref.empty())
    for (long m = 0; m < sh.systems(); ++m) {
      std::vector<LD> a(sh.n), b(sh.n), c(sh.n), d(sh.n);
      for (long k = 0; k < sh.n; ++k) {
        const long i = sh.first(m) + k * sh.stride;
        a[k] = k > 0 ? p.a[i] : 0;
        b[k] = p.b[i];
        c[k] = k + 1 < sh.n ? p.c[i] : 0;
        d[k] = p.d[i];
      }
      p.ref.push_back(gtsv_reference(a, b, c, d));
    }
  for (long m = 0; m < sh.systems(); ++m) {
    const auto& ref = p.ref[m];
    LD num = 0, den = 0;
    for (long k = 0; k < sh.n; ++k) {
      num = std::max(num, std::fabs(LD(x[sh.first(m) + k * sh.stride]) - ref[k]));
      den = std::max(den, std::fabs(ref[k]));
    }
    worst = std::max(worst, double(num / den));
  }
  return worst;
}

inline la::TridiagShape field_lines(long nx, long ny, long nz, int dir) {
  const long e[3] = {nx + 2, ny + 2, nz + 2};
  return la::line_shape(e, 3, 1, dir);
}

// Copies p to Space in precision Real, calls solve(shape, a, b, c, d, x) with
// x = d when in_place, and returns x (as double, over the span); checks that
// a and c were not written.
template <class Space, class Real, class Solve>
std::vector<double> solve_on(const Problem& p, bool in_place, Solve&& solve) {
  using Mem = typename Space::memory_space;
  using CV = Kokkos::View<const Real*, Mem>;
  const long span = p.shape.span();
  Kokkos::View<Real*, Mem> a("a", span), b("b", span), c("c", span), d("d", span), x("x", span);
  auto fill = [&](const Kokkos::View<Real*, Mem>& v, const std::vector<double>& src) {
    auto h = Kokkos::create_mirror_view(v);
    for (long i = 0; i < span; ++i) h(i) = Real(src[i]);
    Kokkos::deep_copy(v, h);
  };
  fill(a, p.a);
  fill(b, p.b);
  fill(c, p.c);
  fill(d, p.d);
  solve(p.shape, CV(a), CV(b), CV(c), CV(d), in_place ? d : x);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, in_place ? d : x);
  std::vector<double> r(span);
  for (long i = 0; i < span; ++i) r[i] = double(h(i));
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, a);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, c);
  long changed = 0;
  for (long i = 0; i < span; ++i) changed += ha(i) != Real(p.a[i]) || hc(i) != Real(p.c[i]);
  CHECK(changed == 0);
  return r;
}

// max |x - y| relative to max(1, max |y|): how far two solves of the same
// systems (two backends, two kernels) are apart, on the solution's scale.
inline double max_diff(const std::vector<double>& x, const std::vector<double>& y) {
  double diff = 0, scale = 1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(x[i] - y[i]));
    scale = std::max(scale, std::fabs(y[i]));
  }
  return diff / scale;
}

// Batches of every size that matters to the kernels (1, powers of two and
// their neighbours, up to 1025) in both layouts, each a fresh random problem:
// check(problem, in_place) with the solution in place of d for odd n.
template <class Check>
void every_size_and_layout(Check&& check) {
  const long sizes[] = {1,  2,  3,  4,   5,   7,   8,   9,   15,  16,  17,  31,   33,
                        63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 511, 1000, 1025};
  unsigned seed = 1;
  for (long n : sizes)
    for (int layout = 0; layout < 2; ++layout) {
      const long systems = n > 300 ? 3 : 7;
      const auto sh = layout ? la::interleaved_shape(n, systems) : la::contiguous_shape(n, systems);
      const bool in_place = n % 2 == 1;
      INFO("n = " << n << ", layout " << (layout ? "interleaved" : "contiguous")
                  << (in_place ? ", in place" : ""));
      check(random_problem(sh, seed++), in_place);
    }
}

// The lines of a 13 x 6 x 9 field with one ghost layer in x, y and z:
// solve(problem) returns the solution (in place), checked here to leave
// every ghost cell (never part of a system) untouched.
template <class Solve>
void every_field_direction(Solve&& solve) {
  unsigned seed = 500;
  for (int dir = 0; dir < 3; ++dir) {
    const auto sh = field_lines(13, 6, 9, dir);
    CHECK(sh.systems() == (dir == 0 ? 54 : dir == 1 ? 117 : 78));
    INFO("direction " << dir);
    const auto x = solve(random_problem(sh, seed++));
    const long e[3] = {15, 8, 11};
    long untouched = 0, ghosts = 0;
    for (long k = 0; k < e[2]; ++k)
      for (long j = 0; j < e[1]; ++j)
        for (long i = 0; i < e[0]; ++i) {
          const bool ghost =
              i == 0 || j == 0 || k == 0 || i == e[0] - 1 || j == e[1] - 1 || k == e[2] - 1;
          const long idx = i + e[0] * (j + e[1] * k);
          if (ghost && idx < long(x.size())) ++ghosts, untouched += x[idx] == 7.5;
        }
    CHECK(untouched == ghosts);
  }
}

// A row source (Tridiag::solve_rows, solve_rows_cyclic) that assembles each
// row from the arrays scaled by 2: a power of two, so Thomas' every quotient
// and the solution keep the bits of the unscaled rows.  It has line() only
// (no CPU lanes cursor): the solvers take it through their generic path.
template <class Real, class A>
struct DoubledRows {
  la::detail::ArrayRows<Real, A> rows;
  struct Line {
    typename la::detail::ArrayRows<Real, A>::Line line;
    KOKKOS_INLINE_FUNCTION la::TridiagRow<Real> operator()(long k) const {
      const la::TridiagRow<Real> r = line(k);
      return {2 * r.a, 2 * r.b, 2 * r.c, 2 * r.d};
    }
  };
  KOKKOS_INLINE_FUNCTION Line line(long f, long st) const { return {rows.line(f, st)}; }
};

// Tridiag::solve_rows (cyclic: solve_rows_cyclic) with the rows from
// DoubledRows over the problem's arrays.
template <class Space, class Real>
std::vector<double> run_rows(const Problem& p, bool in_place, bool cyclic = false) {
  return solve_on<Space, Real>(p, in_place,
                               [&](const auto& sh, auto a, auto b, auto c, auto d, auto x) {
                                 la::Tridiag<Space, Real> solver(Space{});
                                 const DoubledRows<Real, decltype(a)> rows{{a, b, c, d}};
                                 if (cyclic)
                                   solver.solve_rows_cyclic(sh, rows, x);
                                 else
                                   solver.solve_rows(sh, rows, x);
                               });
}

}  // namespace kflow::test
