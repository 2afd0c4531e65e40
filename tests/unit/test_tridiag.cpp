// Batched tridiagonal solvers (linalg/tridiag.hpp) against an independent
// reference: Gaussian elimination WITH partial pivoting in long double
// (LAPACK gtsv's algorithm, one extra super-diagonal of fill), itself
// checked against a dense LU with partial pivoting.  Random diagonally
// dominant systems of many sizes (1, 2, 3, odd, powers of two and their
// neighbours), many systems, every layout (contiguous, interleaved, the lines
// of a 3D field with ghost layers in x, y and z), every method, float and
// double, the solution separate and in place; zero pivots must be reported.

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kflow/linalg/tridiag.hpp"

namespace la = kflow::linalg;

namespace {

using LD = long double;

// Solves one tridiagonal system with partial pivoting (no assumption on the
// matrix beyond non-singularity).
std::vector<LD> gtsv_reference(std::vector<LD> a, std::vector<LD> b, std::vector<LD> c,
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

std::vector<LD> dense_reference(const std::vector<LD>& a, const std::vector<LD>& b,
                                const std::vector<LD>& c, const std::vector<LD>& d) {
  const std::size_t n = b.size();
  std::vector<std::vector<LD>> m(n, std::vector<LD>(n + 1, 0));
  for (std::size_t k = 0; k < n; ++k) {
    if (k > 0) m[k][k - 1] = a[k];
    m[k][k] = b[k];
    if (k + 1 < n) m[k][k + 1] = c[k];
    m[k][n] = d[k];
  }
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

struct Problem {
  la::TridiagShape shape;
  std::vector<double> a, b, c, d;            // over shape.span()
  mutable std::vector<std::vector<LD>> ref;  // per system, computed once
};

// Random diagonally dominant systems: |b| = (|a| + |c|) * (1 + margin) with
// random signs; stored a_0 and c_{n-1} are garbage that must be ignored.
Problem random_problem(const la::TridiagShape& sh, unsigned seed, double margin = 0.1) {
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
double max_rel_error(const Problem& p, const std::vector<double>& x) {
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

// Settings of the register method (rows per thread, threads per team,
// systems per team, staging).
struct RegSettings {
  int rows = 8, team = 0, systems = 0, stage = -1, groups = 0;
};

// Runs `method` on `Space` in precision Real; returns x (as double, over the span).
template <class Space, class Real>
std::vector<double> run(const Problem& p, la::TridiagMethod method, bool in_place,
                        int rows_per_chunk = 8, int team = 0, la::TridiagMethod* used = nullptr,
                        int segment_rows = 0, RegSettings reg = {}) {
  using Mem = typename Space::memory_space;
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
  la::Tridiag<Space, Real> solver(Space{});
  solver.rows_per_chunk(rows_per_chunk);
  solver.team_size(team);
  solver.segment_rows(segment_rows);
  solver.register_rows(reg.rows);
  solver.register_team(reg.team);
  solver.register_systems(reg.systems);
  solver.register_stage(reg.stage);
  solver.register_groups(reg.groups);
  const auto m = solver.solve(p.shape, a, b, c, d, in_place ? d : x, method);
  if (used) *used = m;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, in_place ? d : x);
  std::vector<double> r(span);
  for (long i = 0; i < span; ++i) r[i] = double(h(i));
  // a, b, c unchanged (and d unless in place)
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, a);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, c);
  long changed = 0;
  for (long i = 0; i < span; ++i) changed += ha(i) != Real(p.a[i]) || hc(i) != Real(p.c[i]);
  CHECK(changed == 0);
  return r;
}

la::TridiagShape field_lines(long nx, long ny, long nz, int dir) {
  const long e[3] = {nx + 2, ny + 2, nz + 2};
  return la::line_shape(e, 3, 1, dir);
}

const la::TridiagMethod all_methods[] = {
    la::TridiagMethod::thomas,   la::TridiagMethod::cr,          la::TridiagMethod::pcr,
    la::TridiagMethod::hybrid,   la::TridiagMethod::partitioned, la::TridiagMethod::register_,
    la::TridiagMethod::automatic};

using Host = Kokkos::DefaultHostExecutionSpace;

}  // namespace

TEST_CASE("tridiag: the pivoting reference agrees with a dense LU", "[unit][tridiag]") {
  for (long n : {1L, 2L, 3L, 6L, 17L, 40L}) {
    const auto p = random_problem(la::contiguous_shape(n, 1), 100 + unsigned(n), -0.5);
    std::vector<LD> a(n), b(n), c(n), d(n);
    for (long k = 0; k < n; ++k)
      a[k] = k ? p.a[k] : 0, b[k] = p.b[k], c[k] = k + 1 < n ? p.c[k] : 0, d[k] = p.d[k];
    const auto x1 = gtsv_reference(a, b, c, d), x2 = dense_reference(a, b, c, d);
    for (long k = 0; k < n; ++k)
      REQUIRE(std::fabs(x1[k] - x2[k]) <= 1e-14L * (1 + std::fabs(x2[k])));
  }
}

TEST_CASE("tridiag: every method, size and layout against the reference", "[unit][tridiag]") {
  const long sizes[] = {1,  2,  3,  4,   5,   7,   8,   9,   15,  16,  17,  31,   33,
                        63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 511, 1000, 1025};
  unsigned seed = 1;
  for (long n : sizes)
    for (int layout = 0; layout < 2; ++layout) {
      const long systems = n > 300 ? 3 : 7;
      const auto sh = layout ? la::interleaved_shape(n, systems) : la::contiguous_shape(n, systems);
      const auto p = random_problem(sh, seed++);
      for (auto method : all_methods) {
        // the solution in place (x = d) for odd n, separate for even n
        const bool in_place = n % 2 == 1;
        INFO("n = " << n << ", layout " << (layout ? "interleaved" : "contiguous") << ", "
                    << la::name(method) << (in_place ? ", in place" : ""));
        CHECK(max_rel_error(p, run<Host, double>(p, method, in_place)) < 1e-13);
        CHECK(max_rel_error(p, run<Host, float>(p, method, !in_place)) < 2e-5);
      }
    }
}

TEST_CASE("tridiag: lines of a 3D field with ghost layers, in x, y and z, in place",
          "[unit][tridiag]") {
  unsigned seed = 500;
  for (int dir = 0; dir < 3; ++dir) {
    const auto sh = field_lines(13, 6, 9, dir);
    CHECK(sh.systems() == (dir == 0 ? 54 : dir == 1 ? 117 : 78));
    const auto p = random_problem(sh, seed++);
    for (auto method : all_methods) {
      INFO("direction " << dir << ", " << la::name(method));
      const auto x = run<Host, double>(p, method, true);
      CHECK(max_rel_error(p, x) < 1e-13);
      // ghost cells (never part of a system) are untouched
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
}

TEST_CASE("tridiag: hybrid chunk sizes and team sizes", "[unit][tridiag]") {
  unsigned seed = 900;
  const int teams = Host().concurrency() >= 2 ? 2 : 1;
  for (long n : {2L, 3L, 5L, 6L, 37L, 64L, 301L})
    for (int rows : {2, 3, 5, 8, 32, 1000}) {
      const auto p = random_problem(la::contiguous_shape(n, 5), seed++);
      for (int team = 1; team <= teams; ++team) {
        INFO("n = " << n << ", rows per chunk " << rows << ", team " << team);
        CHECK(max_rel_error(p, run<Host, double>(p, la::TridiagMethod::hybrid, false, rows, team)) <
              1e-13);
        CHECK(max_rel_error(p, run<Host, double>(p, la::TridiagMethod::pcr, false, rows, team)) <
              1e-13);
      }
    }
}

TEST_CASE("tridiag: partitioned, with segments short enough to recurse several levels",
          "[unit][tridiag]") {
  unsigned seed = 1300;
  for (int segment : {8, 16, 64})
    for (long n : {9L, 17L, 100L, 1000L, 4099L})
      for (int layout = 0; layout < 2; ++layout) {
        const auto sh = layout ? la::interleaved_shape(n, 3) : la::contiguous_shape(n, 3);
        const auto p = random_problem(sh, seed++);
        INFO("segment " << segment << ", n = " << n << ", layout " << layout);
        CHECK(max_rel_error(p, run<Host, double>(p, la::TridiagMethod::partitioned, layout, 8, 0,
                                                 nullptr, segment)) < 1e-13);
        CHECK(max_rel_error(p, run<Host, float>(p, la::TridiagMethod::partitioned, false, 4, 0,
                                                nullptr, segment)) < 2e-5);
      }
}

TEST_CASE("tridiag: register, rows per thread, team sizes, staging, one team or recursive",
          "[unit][tridiag]") {
  // team 0: 256 threads (one team holds a system of up to 256 M rows); small
  // teams force the reduce / recursive / finish path (n = 1000, M = 8, team 4:
  // 125 -> 32 -> 8 -> 2 partitions, 3 levels).
  unsigned seed = 1600;
  for (long n : {1L, 2L, 3L, 7L, 8L, 9L, 15L, 16L, 17L, 33L, 100L, 257L, 1000L})
    for (int layout = 0; layout < 2; ++layout) {
      const auto sh = layout ? la::interleaved_shape(n, 13) : la::contiguous_shape(n, 13);
      const auto p = random_problem(sh, seed++);
      for (int rows : {8, 16})
        for (int team : {0, 1, 4, 24})
          for (int systems : {0, 1, 5})
            for (int stage : {0, 1}) {
              const RegSettings reg{rows, team, systems, stage};
              INFO("n = " << n << ", layout " << layout << ", M " << rows << ", team " << team
                          << ", systems " << systems << ", stage " << stage);
              const bool in_place = (n + team + systems) % 2 == 1;
              CHECK(max_rel_error(p, run<Host, double>(p, la::TridiagMethod::register_, in_place, 8,
                                                       0, nullptr, 0, reg)) < 1e-13);
              if (team != 1) continue;  // float once per size and layout
              CHECK(max_rel_error(p, run<Host, float>(p, la::TridiagMethod::register_, !in_place, 8,
                                                      0, nullptr, 0, reg)) < 2e-5);
            }
    }
  la::Tridiag<Host, double> t(Host{});
  CHECK_THROWS_AS(t.register_rows(4), std::invalid_argument);
  CHECK_THROWS_AS(t.register_stage(2), std::invalid_argument);
  CHECK_THROWS_AS(t.register_groups(-1), std::invalid_argument);
  CHECK(la::tridiag_method("register") == la::TridiagMethod::register_);
  CHECK(std::string(la::name(la::TridiagMethod::register_)) == "register");
}

TEST_CASE("tridiag: a large single system (CR, Thomas, hybrid, partitioned, register)",
          "[unit][tridiag]") {
  const long n = (1L << 18) + 3;
  const auto p = random_problem(la::contiguous_shape(n, 1), 77);
  for (auto method : {la::TridiagMethod::cr, la::TridiagMethod::thomas, la::TridiagMethod::hybrid,
                      la::TridiagMethod::partitioned, la::TridiagMethod::register_}) {
    INFO(la::name(method));
    CHECK(max_rel_error(p, run<Host, double>(p, method, false)) < 1e-13);
    CHECK(max_rel_error(p, run<Host, float>(p, method, false)) < 2e-5);
  }
}

TEST_CASE("tridiag: a zero pivot is reported, naming the system", "[unit][tridiag]") {
  for (long n : {1L, 2L, 5L, 64L, 129L})
    for (int layout = 0; layout < 2; ++layout) {
      const auto sh = layout ? la::interleaved_shape(n, 19) : la::contiguous_shape(n, 19);
      auto p = random_problem(sh, 3000 + unsigned(n));
      // System 6: b_0 = 0 (a zero first pivot for every method); system 4: a
      // NaN on the diagonal, which every method meets in some pivot; system 12
      // (in another block of 8 for the CPU's blocked Thomas): b_0 = 0 too.
      p.b[sh.first(6)] = 0;
      p.b[sh.first(12)] = 0;
      p.b[sh.first(4) + (n / 2) * sh.stride] = std::nan("");
      for (auto method : all_methods) {
        INFO("n = " << n << ", layout " << layout << ", " << la::name(method));
        try {
          run<Host, double>(p, method, false);
          FAIL("no exception");
        } catch (const la::ZeroPivot& e) {
          CHECK(e.system() == 4);
          CHECK(std::string(e.what()).find("diagonally dominant") != std::string::npos);
        }
      }
    }
  // Only system 12 bad (interleaved, the second block of 8 on CPUs).
  {
    const auto sh = la::interleaved_shape(33, 19);
    auto p = random_problem(sh, 3100);
    p.b[sh.first(12) + 20 * sh.stride] = std::nan("");
    for (auto method : all_methods) {
      INFO(la::name(method));
      try {
        run<Host, double>(p, method, false);
        FAIL("no exception");
      } catch (const la::ZeroPivot& e) {
        CHECK(e.system() == 12);
      }
    }
  }
  // Singular 2x2 [[1, 1], [1, 1]]: the second pivot is 0.
  la::TridiagShape sh = la::contiguous_shape(2, 1);
  Problem p;
  p.shape = sh;
  p.a = {0, 1};
  p.b = {1, 1};
  p.c = {1, 0};
  p.d = {1, 2};
  for (auto method : all_methods) {
    INFO(la::name(method));
    CHECK_THROWS_AS((run<Host, double>(p, method, false)), la::ZeroPivot);
  }
}

TEST_CASE("tridiag: bad shapes and names are rejected", "[unit][tridiag]") {
  using V = Kokkos::View<double*, Host::memory_space>;
  V a("a", 10);
  la::Tridiag<Host, double> t(Host{});
  CHECK_THROWS_AS(t.solve(la::contiguous_shape(4, 3), a, a, a, a, a), std::invalid_argument);
  CHECK_THROWS_AS(t.solve(la::contiguous_shape(0, 1), a, a, a, a, a), std::invalid_argument);
  CHECK_THROWS_AS(la::tridiag_method("thomson"), std::invalid_argument);
  CHECK(la::tridiag_method("pcr") == la::TridiagMethod::pcr);
  CHECK_THROWS_AS(t.rows_per_chunk(1), std::invalid_argument);
  CHECK_THROWS_AS(t.segment_rows(4), std::invalid_argument);
  CHECK_THROWS_AS(t.segment_rows(4), std::invalid_argument);
}

#ifdef KOKKOS_ENABLE_CUDA
TEST_CASE("tridiag: CUDA agrees with the reference and with OpenMP", "[gpu][tridiag]") {
  unsigned seed = 7000;
  for (long n : {1L, 2L, 3L, 17L, 64L, 100L, 257L, 512L, 1025L, 4096L})
    for (int layout = 0; layout < 3; ++layout) {
      const auto sh = layout == 2   ? field_lines(n > 64 ? 64 : n, 5, 7, 1)
                      : layout == 1 ? la::interleaved_shape(n, 300)
                                    : la::contiguous_shape(n, 300);
      const auto p = random_problem(sh, seed++);
      for (auto method : all_methods) {
        INFO("n = " << sh.n << ", layout " << layout << ", " << la::name(method));
        const auto xg = run<Kokkos::Cuda, double>(p, method, layout == 2);
        CHECK(max_rel_error(p, xg) < 1e-13);
        CHECK(max_rel_error(p, run<Kokkos::Cuda, float>(p, method, false)) < 2e-5);
        const auto xh = run<Host, double>(p, method, layout == 2);
        double diff = 0;
        for (std::size_t i = 0; i < xg.size(); ++i) diff = std::max(diff, std::fabs(xg[i] - xh[i]));
        CHECK(diff < 1e-12);
      }
    }
  // The streamed register kernel (unstaged batches): M 8 and 16, several
  // systems per team and a partial last group, groups per team 1 and 3,
  // capped teams; against the reference and the host's register method.
  for (long n : {1L, 5L, 16L, 17L, 100L, 512L, 600L})
    for (int layout = 0; layout < 3; ++layout) {
      const auto sh = layout == 2   ? field_lines(9, 11, n > 64 ? 64 : n, 2)
                      : layout == 1 ? la::interleaved_shape(n, 1001)
                                    : la::contiguous_shape(n, 1001);
      const auto p = random_problem(sh, seed++);
      const auto xh = run<Host, double>(p, la::TridiagMethod::register_, layout == 2);
      for (int rows : {8, 16})
        for (int systems : {0, 3})
          for (int groups : {1, 3})
            for (int team : {0, 96}) {
              const RegSettings reg{rows, team, systems, 0, groups};
              INFO("n = " << sh.n << ", layout " << layout << ", M " << rows << ", systems "
                          << systems << ", groups " << groups << ", team " << team);
              const auto xg = run<Kokkos::Cuda, double>(p, la::TridiagMethod::register_,
                                                        layout == 2, 8, 0, nullptr, 0, reg);
              CHECK(max_rel_error(p, xg) < 1e-13);
              double diff = 0;
              for (std::size_t i = 0; i < xg.size(); ++i)
                diff = std::max(diff, std::fabs(xg[i] - xh[i]));
              CHECK(diff < 1e-12);
              if (groups == 3 && team == 0)
                CHECK(max_rel_error(p, run<Kokkos::Cuda, float>(p, la::TridiagMethod::register_,
                                                                false, 8, 0, nullptr, 0, reg)) <
                      2e-5);
            }
    }
  // A NaN pivot in system 12 only, found by the streamed kernel (3 groups).
  {
    const auto sh = la::interleaved_shape(40, 700);
    auto p = random_problem(sh, 3200);
    p.b[sh.first(12) + 20 * sh.stride] = std::nan("");
    for (int groups : {1, 3}) {
      INFO("groups " << groups);
      try {
        run<Kokkos::Cuda, double>(p, la::TridiagMethod::register_, false, 8, 0, nullptr, 0,
                                  RegSettings{16, 0, 2, 0, groups});
        FAIL("no exception");
      } catch (const la::ZeroPivot& e) {
        CHECK(e.system() == 12);
      }
    }
  }
  const auto p = random_problem(la::contiguous_shape((1L << 22) + 1, 1), 99);
  for (auto method :
       {la::TridiagMethod::cr, la::TridiagMethod::partitioned, la::TridiagMethod::automatic}) {
    INFO(la::name(method));
    CHECK(max_rel_error(p, run<Kokkos::Cuda, double>(p, method, false)) < 1e-13);
    CHECK(max_rel_error(p, run<Kokkos::Cuda, float>(p, method, false)) < 2e-5);
  }
}
#endif
