// linalg's cyclic (periodic) tridiagonal solves (Tridiag::solve_cyclic) on
// every execution space compiled in: random diagonally dominant cyclic
// systems against a dense LU with partial pivoting in long double (the wrap
// entries a_0 and c_{n-1} in the corners), n = 1 .. 513, contiguous,
// interleaved and the lines of a 3D field, every method, double and float,
// in place and not; a manufactured periodic solution, also on 600 loops of up
// to 1200 rows (CPUs' lanes); lines broken into segments by identity rows
// (split3d's obstacles); singular systems reported, in lanes too.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "kflow/linalg/tridiag.hpp"
#include "linalg/backends.hpp"
#include "linalg/tridiag_reference.hpp"

namespace la = kflow::linalg;
using namespace kflow::test;

namespace {

const la::TridiagMethod all_methods[] = {la::TridiagMethod::thomas, la::TridiagMethod::register_,
                                         la::TridiagMethod::automatic};

// Dense LU with partial pivoting of the cyclic matrix (entries of coinciding
// neighbours added: n = 1 and 2).
std::vector<LD> cyclic_reference(const std::vector<LD>& a, const std::vector<LD>& b,
                                 const std::vector<LD>& c, const std::vector<LD>& d) {
  const std::size_t n = b.size();
  std::vector<std::vector<LD>> m(n, std::vector<LD>(n + 1, 0));
  for (std::size_t k = 0; k < n; ++k) {
    m[k][(k + n - 1) % n] += a[k];
    m[k][k] += b[k];
    m[k][(k + 1) % n] += c[k];
    m[k][n] = d[k];
  }
  return dense_solve(std::move(m));
}

// Random cyclic systems, |b| = (|a| + |c|) (1 + margin) + a little, random
// signs; every a and c is a coefficient (a_0, c_{n-1} the wrap).  Every
// `identity`-th row (0: none) is an identity row (a = c = 0, b = 1).
Problem cyclic_problem(const la::TridiagShape& sh, unsigned seed, long identity = 0) {
  Problem p;
  p.shape = sh;
  const long span = sh.span();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto* v : {&p.a, &p.b, &p.c, &p.d}) v->assign(span, 7.5);
  for (long m = 0; m < sh.systems(); ++m)
    for (long k = 0; k < sh.n; ++k) {
      const long i = sh.first(m) + k * sh.stride;
      p.a[i] = u(gen);
      p.c[i] = u(gen);
      const double mag = (std::fabs(p.a[i]) + std::fabs(p.c[i])) * 1.1 + 0.05 * std::fabs(u(gen));
      p.b[i] = u(gen) < 0 ? -mag : mag;
      p.d[i] = u(gen) * 10;
      if (identity > 0 && k % identity == identity - 1) p.a[i] = 0, p.b[i] = 1, p.c[i] = 0;
    }
  return p;
}

double cyclic_error(const Problem& p, const std::vector<double>& x) {
  const auto& sh = p.shape;
  double worst = 0;
  if (p.ref.empty())  // computed once per problem
    for (long m = 0; m < sh.systems(); ++m) {
      std::vector<LD> a(sh.n), b(sh.n), c(sh.n), d(sh.n);
      for (long k = 0; k < sh.n; ++k) {
        const long i = sh.first(m) + k * sh.stride;
        a[k] = p.a[i], b[k] = p.b[i], c[k] = p.c[i], d[k] = p.d[i];
      }
      p.ref.push_back(cyclic_reference(a, b, c, d));
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

template <class Space, class Real>
std::vector<double> run_cyclic(const Problem& p, la::TridiagMethod method, bool in_place) {
  return solve_on<Space, Real>(p, in_place,
                               [&](const auto& sh, auto a, auto b, auto c, auto d, auto x) {
                                 la::Tridiag<Space, Real> solver(Space{});
                                 solver.solve_cyclic(sh, a, b, c, d, x, method);
                               });
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("tridiag cyclic: rows assembled in the solve give Thomas' bits",
                        "[unit][tridiag]", ExecutionSpaces) {
  // solve_rows_cyclic takes solve_cyclic's steps with the rows from a source:
  // against the dense LU, and the same bits as solve_cyclic by Thomas on the
  // stored rows, every size and layout, the lines of a 3D field and three
  // fields in one batch, double and float.
  unsigned seed = 9700;
  for (long n : {1L, 2L, 3L, 4L, 9L, 17L, 64L, 129L})
    for (int layout = 0; layout < 2; ++layout) {
      const auto sh = layout ? la::interleaved_shape(n, 7) : la::contiguous_shape(n, 7);
      const auto p = cyclic_problem(sh, seed++);
      const bool in_place = (n + layout) % 2 == 1;
      INFO("n = " << n << ", layout " << layout << (in_place ? ", in place" : ""));
      const auto x = run_rows<TestType, double>(p, in_place, true);
      CHECK(cyclic_error(p, x) < 1e-13);
      CHECK(x == run_cyclic<TestType, double>(p, la::TridiagMethod::thomas, in_place));
      CHECK(run_rows<TestType, float>(p, !in_place, true) ==
            run_cyclic<TestType, float>(p, la::TridiagMethod::thomas, !in_place));
    }
  for (int dir = 0; dir < 3; ++dir) {
    INFO("direction " << dir);
    auto sh = field_lines(13, 6, 9, dir);
    const auto p = cyclic_problem(sh, seed++, dir == 1 ? 5 : 0);  // y: segments
    CHECK(run_rows<TestType, double>(p, true, true) ==
          run_cyclic<TestType, double>(p, la::TridiagMethod::thomas, true));
    const long field = 15 * 8 * 11;  // three fields one after the other
    sh.count[2] = 3;
    sh.system_stride[2] = field;
    const auto p3 = cyclic_problem(sh, seed++);
    const auto x3 = run_rows<TestType, double>(p3, true, true);
    CHECK(cyclic_error(p3, x3) < 1e-13);
    CHECK(x3 == run_cyclic<TestType, double>(p3, la::TridiagMethod::thomas, true));
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag cyclic: every method, size and layout against a dense LU",
                        "[unit][tridiag]", ExecutionSpaces) {
  unsigned seed = 9000;
  for (long n : {1L, 2L, 3L, 4L, 5L, 8L, 9L, 16L, 17L, 33L, 64L, 65L, 129L, 257L, 513L})
    for (int layout = 0; layout < 2; ++layout) {
      const long systems = n > 300 ? 2 : 7;  // the dense reference is O(n^3)
      const auto sh = layout ? la::interleaved_shape(n, systems) : la::contiguous_shape(n, systems);
      const auto p = cyclic_problem(sh, seed++);
      for (auto method : all_methods) {
        const bool in_place = (n + layout) % 2 == 1;
        INFO("n = " << n << ", layout " << layout << ", " << la::name(method)
                    << (in_place ? ", in place" : ""));
        CHECK(cyclic_error(p, run_cyclic<TestType, double>(p, method, in_place)) < 1e-13);
        CHECK(cyclic_error(p, run_cyclic<TestType, float>(p, method, !in_place)) < 5e-5);
      }
    }
}

TEMPLATE_LIST_TEST_CASE("tridiag cyclic: the lines of a 3D field in x, y and z, ghosts untouched",
                        "[unit][tridiag]", ExecutionSpaces) {
  for (auto method : all_methods) {
    INFO(la::name(method));
    unsigned seed = 9500;
    for (int dir = 0; dir < 3; ++dir) {
      INFO("direction " << dir);
      const auto sh = field_lines(13, 6, 9, dir);
      // every 5th row an identity row: the lines are segments, as split3d's
      // periodic lines through obstacles
      for (long identity : {0L, 5L}) {
        const auto p = cyclic_problem(sh, seed++, identity);
        const auto x = run_cyclic<TestType, double>(p, method, true);
        CHECK(cyclic_error(p, x) < 1e-13);
        long touched = 0;
        for (long i = 0; i < long(x.size()); ++i) {
          bool used = false;
          for (long m = 0; m < sh.systems() && !used; ++m) {
            const long r = i - sh.first(m);
            used = r >= 0 && r % sh.stride == 0 && r / sh.stride < sh.n;
          }
          touched += !used && x[i] != 7.5;
        }
        CHECK(touched == 0);
      }
    }
  }
}

namespace {

// (sigma - delta^2) x = d on the periodic lines of sh: x_k = sin(2 pi q k / n
// + phase) is an eigenvector, d = (sigma + 2 - 2 cos(2 pi q / n)) x.  System
// m takes q = 1 + m % qs and phase = m dphase.  Returns the exact x.
std::vector<double> periodic_wave(Problem& p, const la::TridiagShape& sh, double sigma, long qs,
                                  double dphase) {
  const double pi = 3.141592653589793;
  const long n = sh.n;
  p.shape = sh;
  for (auto* v : {&p.a, &p.b, &p.c, &p.d}) v->assign(sh.span(), 0);
  std::vector<double> exact(sh.span());
  for (long m = 0; m < sh.systems(); ++m)
    for (long k = 0; k < n; ++k) {
      const long i = sh.first(m) + k * sh.stride, q = 1 + m % qs;
      exact[i] = std::sin(2 * pi * double(q * k) / double(n) + dphase * double(m));
      p.a[i] = p.c[i] = -1;
      p.b[i] = 2 + sigma;
      p.d[i] = (sigma + 2 - 2 * std::cos(2 * pi * double(q) / double(n))) * exact[i];
    }
  return exact;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("tridiag cyclic: a manufactured periodic solution", "[unit][tridiag]",
                        ExecutionSpaces) {
  // Few systems: CPUs take them one a thread as GPUs do (thomas_cyclic).
  // At n = 1200 and sigma = 1 the carried product q of the -c' falls below
  // eps^2 after about 75 rows (0.38 a row) and is dropped there.
  for (long n : {3L, 10L, 64L, 301L, 1200L})
    for (double sigma : {1.0, 1e-3}) {
      Problem p;
      const auto exact = periodic_wave(p, la::interleaved_shape(n, 4), sigma, 2, 0.3);
      for (auto method : all_methods) {
        INFO("n = " << n << ", sigma " << sigma << ", " << la::name(method));
        // the condition number grows like 4 / sigma: rounding times that
        const double cond = 4 / sigma + 1;
        CHECK(max_diff(run_cyclic<TestType, double>(p, method, false), exact) < 1e-13 * cond);
        CHECK(max_diff(run_cyclic<TestType, float>(p, method, true), exact) < 1e-5 * cond);
      }
    }
}

TEMPLATE_LIST_TEST_CASE("tridiag cyclic: many long loops (CPUs' lanes) against the exact solution",
                        "[unit][tridiag]", ExecutionSpaces) {
  // Enough systems that CPUs take them in lanes, in both layouts, and lines
  // long enough that Thomas' carried product of the -c' (y_0 = py + q
  // y_{k+1}) falls below eps^2 and is dropped: periodic_wave against the
  // exact solution and against the two-solve reduction (the register method).
  for (long n : {2L, 3L, 301L, 1200L})
    for (int layout = 0; layout < 2; ++layout)
      for (double sigma : {1.0, 1e-3}) {
        const long systems = 600;
        Problem p;
        const auto exact = periodic_wave(
            p, layout ? la::interleaved_shape(n, systems) : la::contiguous_shape(n, systems), sigma,
            3, 0.01);
        INFO("n = " << n << ", layout " << layout << ", sigma " << sigma);
        // rounding times the condition number (about 4 / sigma)
        const double cond = 4 / sigma + 1;
        const auto xd = run_cyclic<TestType, double>(p, la::TridiagMethod::thomas, false);
        CHECK(max_diff(xd, exact) < 1e-13 * cond);
        CHECK(max_diff(xd, run_cyclic<TestType, double>(p, la::TridiagMethod::register_, false)) <
              1e-13 * cond);
        CHECK(max_diff(run_cyclic<TestType, float>(p, la::TridiagMethod::thomas, true), exact) <
              1e-5 * cond);
      }
}

TEMPLATE_LIST_TEST_CASE("tridiag cyclic: a singular loop and a NaN are reported, naming the system",
                        "[unit][tridiag]", ExecutionSpaces) {
  // 11 systems, and 700 (CPUs take them in lanes), double and float
  for (long systems : {11L, 700L})
    for (long n : {1L, 2L, 7L, 40L})
      for (int layout = 0; layout < 2; ++layout) {
        const auto sh =
            layout ? la::interleaved_shape(n, systems) : la::contiguous_shape(n, systems);
        auto p = cyclic_problem(sh, 9900 + unsigned(n));
        // System s: the periodic Laplacian -x_{k-1} + 2 x_k - x_{k+1}
        // (constants in its null space; its rows 0 .. n-2 alone are regular,
        // so only the Schur complement finds it); system t: a NaN on the
        // diagonal.
        const long s = systems > 11 ? 333 : 5, t = systems > 11 ? 600 : 8;
        for (long k = 0; k < n; ++k) {
          const long i = sh.first(s) + k * sh.stride;
          p.a[i] = -1, p.b[i] = 2, p.c[i] = -1;
        }
        p.b[sh.first(t) + (n / 2) * sh.stride] = std::nan("");
        auto named = [&](auto real, long expected) {
          using Real = decltype(real);
          for (auto method : all_methods) {
            INFO("n = " << n << ", layout " << layout << ", " << systems << " systems, "
                        << la::name(method) << ", " << sizeof(Real) << "-byte reals");
            try {
              run_cyclic<TestType, Real>(p, method, false);
              FAIL("no exception");
            } catch (const la::ZeroPivot& e) {
              CHECK(e.system() == expected);
              CHECK(std::string(e.what()).find("cyclic") != std::string::npos);
            }
          }
        };
        named(double(0), s);
        named(float(0), s);
        // without system s's singularity, system t is named
        for (long k = 0; k < n; ++k) p.b[sh.first(s) + k * sh.stride] = 2.5;
        named(double(0), t);
        named(float(0), t);
      }
}
