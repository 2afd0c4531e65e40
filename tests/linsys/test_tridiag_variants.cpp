// The tridiagonal variants kept in bench/linalg
// (tridiag_variants.hpp: cr, pcr, hybrid, partitioned) on every execution
// space compiled in, against the pivoting long-double reference
// (tests/linalg/tridiag_reference.hpp): every size and layout, the lines of a
// 3D field in place, chunk, team and segment sizes, a large single system,
// zero pivots, bad options.  On a GPU space every result is also compared
// with the host's.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "kflow/linalg/space.hpp"
#include "linalg/backends.hpp"
#include "linalg/tridiag_reference.hpp"
#include "tridiag_variants.hpp"

namespace la = kflow::linalg;
namespace ls = kflow::linsys;
using namespace kflow::test;

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
using ls::TridiagVariant;

const TridiagVariant all_variants[] = {TridiagVariant::cr, TridiagVariant::pcr,
                                       TridiagVariant::hybrid, TridiagVariant::partitioned};

ls::TridiagVariantOptions options(int rows_per_chunk = 8, int team = 0, int segment_rows = 0) {
  ls::TridiagVariantOptions o;
  o.rows_per_chunk = rows_per_chunk;
  o.team_size = team;
  o.segment_rows = segment_rows;
  return o;
}

template <class Space, class Real>
std::vector<double> run(const Problem& p, TridiagVariant method, bool in_place,
                        ls::TridiagVariantOptions opt = {}) {
  return solve_on<Space, Real>(p, in_place,
                               [&](const auto& sh, auto a, auto b, auto c, auto d, auto x) {
                                 ls::TridiagVariants<Space, Real> solver(Space{}, opt);
                                 solver.solve(sh, a, b, c, d, x, method);
                               });
}

template <class Space>
void check_against_host(const Problem& p, TridiagVariant method, bool in_place,
                        const std::vector<double>& x) {
  if constexpr (la::on_gpu<Space>)
    CHECK(max_diff(x, run<Host, double>(p, method, in_place)) < 1e-12);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("tridiag variants: every method, size and layout against the reference",
                        "[unit][tridiag]", ExecutionSpaces) {
  every_size_and_layout([](const Problem& p, bool in_place) {
    for (auto method : all_variants) {
      INFO(la::name(method));
      const auto x = run<TestType, double>(p, method, in_place);
      CHECK(max_rel_error(p, x) < 1e-13);
      check_against_host<TestType>(p, method, in_place, x);
      CHECK(max_rel_error(p, run<TestType, float>(p, method, !in_place)) < 2e-5);
    }
  });
}

TEMPLATE_LIST_TEST_CASE("tridiag variants: hybrid chunk sizes and team sizes", "[unit][tridiag]",
                        ExecutionSpaces) {
  for (auto method : all_variants) {
    INFO(la::name(method));
    every_field_direction([&](const Problem& p) {
      const auto x = run<TestType, double>(p, method, true);
      CHECK(max_rel_error(p, x) < 1e-13);
      check_against_host<TestType>(p, method, true, x);
      return x;
    });
  }
}

TEMPLATE_LIST_TEST_CASE(
    "tridiag variants: partitioned, with segments short enough to recurse "
    "several levels",
    "[unit][tridiag]", ExecutionSpaces) {
  unsigned seed = 1300;
  for (int segment : {8, 16, 64})
    for (long n : {9L, 17L, 100L, 1000L, 4099L})
      for (int layout = 0; layout < 2; ++layout) {
        const auto sh = layout ? la::interleaved_shape(n, 3) : la::contiguous_shape(n, 3);
        const auto p = random_problem(sh, seed++);
        INFO("segment " << segment << ", n = " << n << ", layout " << layout);
        CHECK(max_rel_error(p, run<TestType, double>(p, TridiagVariant::partitioned, layout,
                                                     options(8, 0, segment))) < 1e-13);
        CHECK(max_rel_error(p, run<TestType, float>(p, TridiagVariant::partitioned, false,
                                                    options(4, 0, segment))) < 2e-5);
      }
}

TEMPLATE_LIST_TEST_CASE("tridiag variants: a large single system (CR, hybrid, partitioned)",
                        "[unit][tridiag]", ExecutionSpaces) {
  const long n = la::on_gpu<TestType> ? (1L << 22) + 1 : (1L << 18) + 3;
  const auto p = random_problem(la::contiguous_shape(n, 1), 77);
  for (auto method : {TridiagVariant::cr, TridiagVariant::hybrid, TridiagVariant::partitioned}) {
    ls::TridiagVariants<TestType, double> probe(TestType{});
    if (!probe.fits(method, p.shape)) continue;  // hybrid: one system in GPU team scratch
    INFO(la::name(method));
    CHECK(max_rel_error(p, run<TestType, double>(p, method, false)) < 1e-13);
    CHECK(max_rel_error(p, run<TestType, float>(p, method, false)) < 2e-5);
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag variants: a zero pivot is reported, naming the system",
                        "[unit][tridiag]", ExecutionSpaces) {
  for (long n : {1L, 2L, 5L, 64L, 129L})
    for (int layout = 0; layout < 2; ++layout) {
      const auto sh = layout ? la::interleaved_shape(n, 19) : la::contiguous_shape(n, 19);
      auto p = random_problem(sh, 3000 + unsigned(n));
      p.b[sh.first(6)] = 0;
      p.b[sh.first(12)] = 0;
      p.b[sh.first(4) + (n / 2) * sh.stride] = std::nan("");
      for (auto method : all_variants) {
        INFO("n = " << n << ", layout " << layout << ", " << la::name(method));
        try {
          run<TestType, double>(p, method, false);
          FAIL("no exception");
        } catch (const la::ZeroPivot& e) {
          CHECK(e.system() == 4);
        }
      }
    }
  Problem p;
  p.shape = la::contiguous_shape(2, 1);
  p.a = {0, 1};
  p.b = {1, 1};
  p.c = {1, 0};
  p.d = {1, 2};
  for (auto method : all_variants) {
    INFO(la::name(method));
    CHECK_THROWS_AS((run<TestType, double>(p, method, false)), la::ZeroPivot);
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag variants: bad options and names are rejected", "[unit][tridiag]",
                        ExecutionSpaces) {
  using S = ls::TridiagVariants<TestType, double>;
  CHECK_THROWS_AS(S(TestType{}, options(1)), std::invalid_argument);
  CHECK_THROWS_AS(S(TestType{}, options(8, 0, 4)), std::invalid_argument);
  CHECK_THROWS_AS(S(TestType{}, options(8, -1)), std::invalid_argument);
  CHECK(la::parse<TridiagVariant>("pcr") == TridiagVariant::pcr);
  CHECK_THROWS_AS(la::parse<TridiagVariant>("thomson"), std::invalid_argument);
}
