// linalg's batched tridiagonal solver (tridiag.hpp) on every execution space
// compiled in, against the pivoting long-double reference
// (tridiag_reference.hpp): random diagonally dominant systems of many sizes
// (1, 2, 3, odd, powers of two and their neighbours), many systems, every
// layout (contiguous, interleaved, the lines of a 3D field with ghost layers
// in x, y and z), every method, float and double, the solution separate and
// in place; zero pivots must be reported.  On a GPU space every result is
// also compared with the host's.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include "kflow/linalg/tridiag.hpp"
#include "linalg/backends.hpp"
#include "linalg/tridiag_reference.hpp"

namespace la = kflow::linalg;
using namespace kflow::test;

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

const la::TridiagMethod all_methods[] = {la::TridiagMethod::thomas, la::TridiagMethod::register_,
                                         la::TridiagMethod::automatic};

// Solves p by `method` on Space in precision Real with `opt`; returns x.
template <class Space, class Real>
std::vector<double> run(const Problem& p, la::TridiagMethod method, bool in_place,
                        la::TridiagOptions opt = {}, la::TridiagMethod* used = nullptr) {
  return solve_on<Space, Real>(p, in_place,
                               [&](const auto& sh, auto a, auto b, auto c, auto d, auto x) {
                                 la::Tridiag<Space, Real> solver(Space{}, opt);
                                 const auto m = solver.solve(sh, a, b, c, d, x, method);
                                 if (used) *used = m;
                               });
}

la::TridiagOptions register_options(int rows, int team, int systems, int stage, int groups = 0) {
  la::TridiagOptions o;
  o.register_rows = rows;
  o.register_team = team;
  o.register_systems = systems;
  o.register_stage = stage;
  o.register_groups = groups;
  return o;
}

// On a GPU space, x must also agree with the host's solution to rounding.
template <class Space>
void check_against_host(const Problem& p, la::TridiagMethod method, bool in_place,
                        const std::vector<double>& x) {
  if constexpr (la::on_gpu<Space>)
    CHECK(max_diff(x, run<Host, double>(p, method, in_place)) < 1e-12);
}

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

TEMPLATE_LIST_TEST_CASE("tridiag: every method, size and layout against the reference",
                        "[unit][tridiag]", ExecutionSpaces) {
  every_size_and_layout([](const Problem& p, bool in_place) {
    for (auto method : all_methods) {
      INFO(la::name(method));
      const auto x = run<TestType, double>(p, method, in_place);
      CHECK(max_rel_error(p, x) < 1e-13);
      check_against_host<TestType>(p, method, in_place, x);
      CHECK(max_rel_error(p, run<TestType, float>(p, method, !in_place)) < 2e-5);
    }
  });
}

TEMPLATE_LIST_TEST_CASE(
    "tridiag: register, rows per thread, team sizes, staging, one team or "
    "recursive",
    "[unit][tridiag]", ExecutionSpaces) {
  for (auto method : all_methods) {
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
    "tridiag: GPUs' streamed register kernel: groups, partial groups, capped "
    "teams",
    "[unit][tridiag]", ExecutionSpaces) {
  if constexpr (!la::on_gpu<TestType>) {
    SUCCEED("the streamed kernel runs on GPU spaces only");
  } else {
    // Unstaged batches: M 8 and 16, several systems per team and a partial
    // last group, groups per team 1 and 3, capped teams; against the
    // reference and the host's register method.
    unsigned seed = 7100;
    for (long n : {1L, 5L, 16L, 17L, 100L, 512L, 600L})
      for (int layout = 0; layout < 3; ++layout) {
        const auto sh = layout == 2   ? field_lines(9, 11, n > 64 ? 64 : n, 2)
                        : layout == 1 ? la::interleaved_shape(n, 1001)
                                      : la::contiguous_shape(n, 1001);
        const auto p = random_problem(sh, seed++);
        // the host's register method with the same rows per thread M
        const std::vector<double> xh[2] = {
            run<Host, double>(p, la::TridiagMethod::register_, layout == 2,
                              register_options(8, 0, 0, -1)),
            run<Host, double>(p, la::TridiagMethod::register_, layout == 2,
                              register_options(16, 0, 0, -1))};
        for (int rows : {8, 16})
          for (int systems : {0, 3})
            for (int groups : {1, 3})
              for (int team : {0, 96}) {
                const auto reg = register_options(rows, team, systems, 0, groups);
                INFO("n = " << sh.n << ", layout " << layout << ", M " << rows << ", systems "
                            << systems << ", groups " << groups << ", team " << team);
                const auto xg =
                    run<TestType, double>(p, la::TridiagMethod::register_, layout == 2, reg);
                CHECK(max_rel_error(p, xg) < 1e-13);
                CHECK(max_diff(xg, xh[rows == 16]) < 1e-12);
                if (groups == 3 && team == 0)
                  CHECK(max_rel_error(p, run<TestType, float>(p, la::TridiagMethod::register_,
                                                              false, reg)) < 2e-5);
              }
      }
    // A NaN pivot in system 12 only, found by the streamed kernel.
    const auto sh = la::interleaved_shape(40, 700);
    auto p = random_problem(sh, 3200);
    p.b[sh.first(12) + 20 * sh.stride] = std::nan("");
    for (int groups : {1, 3}) {
      INFO("groups " << groups);
      try {
        run<TestType, double>(p, la::TridiagMethod::register_, false,
                              register_options(16, 0, 2, 0, groups));
        FAIL("no exception");
      } catch (const la::ZeroPivot& e) {
        CHECK(e.system() == 12);
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag: GPU spaces agree with the host on wide batches",
                        "[unit][tridiag]", ExecutionSpaces) {
  if constexpr (!la::on_gpu<TestType>) {
    SUCCEED("compared on GPU spaces only");
  } else {
    unsigned seed = 7000;
    for (long n : {1L, 2L, 3L, 17L, 64L, 100L, 257L, 512L, 1025L, 4096L})
      for (int layout = 0; layout < 3; ++layout) {
        const auto sh = layout == 2   ? field_lines(n > 64 ? 64 : n, 5, 7, 1)
                        : layout == 1 ? la::interleaved_shape(n, 300)
                                      : la::contiguous_shape(n, 300);
        const auto p = random_problem(sh, seed++);
        for (auto method : all_methods) {
          INFO("n = " << sh.n << ", layout " << layout << ", " << la::name(method));
          const auto x = run<TestType, double>(p, method, layout == 2);
          CHECK(max_rel_error(p, x) < 1e-13);
          check_against_host<TestType>(p, method, layout == 2, x);
          CHECK(max_rel_error(p, run<TestType, float>(p, method, false)) < 2e-5);
        }
      }
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag: a large single system (Thomas, register, auto)",
                        "[unit][tridiag]", ExecutionSpaces) {
  const long n = la::on_gpu<TestType> ? (1L << 22) + 1 : (1L << 18) + 3;
  const auto p = random_problem(la::contiguous_shape(n, 1), 77);
  for (auto method : all_methods) {
    if (la::on_gpu<TestType> && method == la::TridiagMethod::thomas) continue;  // one GPU thread
    INFO(la::name(method));
    CHECK(max_rel_error(p, run<TestType, double>(p, method, false)) < 1e-13);
    CHECK(max_rel_error(p, run<TestType, float>(p, method, false)) < 2e-5);
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag: a zero pivot is reported, naming the system", "[unit][tridiag]",
                        ExecutionSpaces) {
  for (long n : {1L, 2L, 5L, 64L, 129L})
    for (int layout = 0; layout < 2; ++layout) {
      const auto sh = layout ? la::interleaved_shape(n, 19) : la::contiguous_shape(n, 19);
      auto p = random_problem(sh, 3000 + unsigned(n));
      // System 6: b_0 = 0 (a zero first pivot for every method); system 4: a
      // NaN on the diagonal, which every method meets in some pivot; system 12
      // (a later lane of the CPU's Thomas): b_0 = 0 too.
      p.b[sh.first(6)] = 0;
      p.b[sh.first(12)] = 0;
      p.b[sh.first(4) + (n / 2) * sh.stride] = std::nan("");
      for (auto method : all_methods) {
        INFO("n = " << n << ", layout " << layout << ", " << la::name(method));
        try {
          run<TestType, double>(p, method, false);
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
        run<TestType, double>(p, method, false);
        FAIL("no exception");
      } catch (const la::ZeroPivot& e) {
        CHECK(e.system() == 12);
      }
    }
  }
  // The lines of a 3D field along z (13 x 6 systems, ghosts between their
  // rows): the first bad system is named (22 before 31).
  {
    const auto sh = field_lines(13, 6, 9, 2);
    REQUIRE(sh.count[0] == 13);
    REQUIRE(sh.count[1] == 6);
    auto p = random_problem(sh, 3150);
    p.b[sh.first(31) + 4 * sh.stride] = std::nan("");
    for (int both = 0; both < 2; ++both) {
      if (both) p.b[sh.first(22)] = 0;
      for (auto method : all_methods) {
        INFO(la::name(method) << ", system 22 bad too: " << both);
        try {
          run<TestType, double>(p, method, true);
          FAIL("no exception");
        } catch (const la::ZeroPivot& e) {
          CHECK(e.system() == (both ? 22 : 31));
        }
      }
    }
  }
  // Singular 2x2 [[1, 1], [1, 1]]: the second pivot is 0.
  Problem p;
  p.shape = la::contiguous_shape(2, 1);
  p.a = {0, 1};
  p.b = {1, 1};
  p.c = {1, 0};
  p.d = {1, 2};
  for (auto method : all_methods) {
    INFO(la::name(method));
    CHECK_THROWS_AS((run<TestType, double>(p, method, false)), la::ZeroPivot);
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag: rows assembled in the solve (solve_rows) give Thomas' bits",
                        "[unit][tridiag]", ExecutionSpaces) {
  every_size_and_layout([](const Problem& p, bool in_place) {
    const auto x = run_rows<TestType, double>(p, in_place);
    CHECK(max_rel_error(p, x) < 1e-13);
    CHECK(x == run<TestType, double>(p, la::TridiagMethod::thomas, in_place));
    const auto xf = run_rows<TestType, float>(p, in_place);
    CHECK(xf == run<TestType, float>(p, la::TridiagMethod::thomas, in_place));
  });
  for (int dir = 0; dir < 3; ++dir) {  // the lines of a 3D field with ghosts
    const auto p = random_problem(field_lines(13, 6, 9, dir), 9100 + unsigned(dir));
    CHECK(run_rows<TestType, double>(p, true) ==
          run<TestType, double>(p, la::TridiagMethod::thomas, true));
    // three fields one after the other: the third count batches their lines
    auto sh = field_lines(13, 6, 9, dir);
    const long field = 15 * 8 * 11;
    sh.count[2] = 3;
    sh.system_stride[2] = field;
    REQUIRE(sh.span() == 2 * field + field_lines(13, 6, 9, dir).span());
    const auto p3 = random_problem(sh, 9200 + unsigned(dir));
    const auto x3 = run_rows<TestType, double>(p3, true);
    CHECK(max_rel_error(p3, x3) < 1e-13);
    CHECK(x3 == run<TestType, double>(p3, la::TridiagMethod::thomas, true));
    for (auto method : all_methods)  // the array methods take such batches too
      CHECK(max_rel_error(p3, run<TestType, double>(p3, method, true)) < 1e-13);
  }
  // A bad pivot is reported, naming the first system that met it (system 12
  // in the second block of 8 on CPUs; system 4 before it).
  for (int layout = 0; layout < 2; ++layout) {
    const auto sh = layout ? la::interleaved_shape(33, 19) : la::contiguous_shape(33, 19);
    auto p = random_problem(sh, 3300);
    p.b[sh.first(12) + 20 * sh.stride] = std::nan("");
    for (int both = 0; both < 2; ++both) {
      if (both) p.b[sh.first(4)] = 0;
      INFO("layout " << layout << ", system 4 bad too: " << both);
      try {
        run_rows<TestType, double>(p, false);
        FAIL("no exception");
      } catch (const la::ZeroPivot& e) {
        CHECK(e.system() == (both ? 4 : 12));
        CHECK(std::string(e.what()).find("rows assembled in the solve") != std::string::npos);
      }
    }
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag: start_rows on two instances side by side give solve_rows' bits",
                        "[unit][tridiag]", ExecutionSpaces) {
  // As split3d's fused sweeps: the lines of three fields in one x, the first
  // field's solved on one instance, the other two's beside it on a second
  // (la::side_instance: a stream of its own on GPUs); a bad pivot in the
  // second part is thrown by its finish(), naming the system.
  for (int dir = 0; dir < 3; ++dir) {
    INFO("lines along axis " << dir);
    auto sh = field_lines(13, 6, 9, dir);
    const long field = 15 * 8 * 11;
    sh.count[2] = 3;
    sh.system_stride[2] = field;
    auto one = sh, two = sh;
    one.count[2] = 1;
    two.count[2] = 2;
    two.offset += field;
    auto p = random_problem(sh, 9300 + unsigned(dir));
    auto side_by_side = [&](const Problem& q, long* bad_system) {
      return solve_on<TestType, double>(
          q, true, [&](const auto&, auto a, auto b, auto c, auto d, auto x) {
            const TestType space{};
            la::Tridiag<TestType, double> first(space), second(la::side_instance(space));
            space.fence();
            second.start_rows(two, DoubledRows<double, decltype(a)>{a, b, c, d}, x);
            first.start_rows(one, DoubledRows<double, decltype(a)>{a, b, c, d}, x);
            try {
              second.finish();
            } catch (const la::ZeroPivot& e) {
              *bad_system = e.system();
            }
            first.finish();
          });
    };
    long bad = -1;
    CHECK(side_by_side(p, &bad) == run_rows<TestType, double>(p, true));
    CHECK(bad == -1);
    p.b[two.first(5) + 3 * two.stride] = std::nan("");
    side_by_side(p, &bad);
    CHECK(bad == 5);
  }
}

TEMPLATE_LIST_TEST_CASE("tridiag: bad shapes and names are rejected", "[unit][tridiag]",
                        ExecutionSpaces) {
  using V = Kokkos::View<double*, typename TestType::memory_space>;
  V a("a", 10);
  la::Tridiag<TestType, double> t(TestType{});
  CHECK_THROWS_AS(t.solve(la::contiguous_shape(4, 3), a, a, a, a, a), std::invalid_argument);
  CHECK_THROWS_AS(t.solve(la::contiguous_shape(0, 1), a, a, a, a, a), std::invalid_argument);
  CHECK_THROWS_AS(la::parse<la::TridiagMethod>("thomson"), std::invalid_argument);
  CHECK(la::parse<la::TridiagMethod>("register") == la::TridiagMethod::register_);
  CHECK(std::string(la::name(la::TridiagMethod::register_)) == "register");
  CHECK(la::parse<la::TridiagMethod>("auto") == la::TridiagMethod::automatic);
}

TEMPLATE_LIST_TEST_CASE("tridiag: lines in z of narrow rows, CPUs' lanes in segments",
                        "[unit][tridiag]", ExecutionSpaces) {
  // 40 lines a row of x, rows a plane (42 x 33 nodes: over 4096 bytes) apart,
  // two fields: on CPUs a work item takes several rows of lines as segments
  // of its lanes (6 in double, 8 in float), the last item fewer.
  auto sh = field_lines(40, 31, 9, 2);
  const long field = 42 * 33 * 11;
  sh.count[2] = 2;
  sh.system_stride[2] = field;
  REQUIRE(sh.stride * 4 >= 4096);
  REQUIRE(la::detail::lanes_segments<double>(sh.count[0], 1, sh.stride, 62, 2) == 6);
  REQUIRE(la::detail::lanes_segments<float>(sh.count[0], 1, sh.stride, 62, 2) == 8);
  REQUIRE(la::detail::lanes_segments<double>(sh.count[0], 1, 100, 62, 2) == 1);  // rows near
  const auto p = random_problem(sh, 9400);
  for (auto method : all_methods) {
    INFO(la::name(method));
    const auto x = run<TestType, double>(p, method, true);
    CHECK(max_rel_error(p, x) < 1e-13);
    check_against_host<TestType>(p, method, true, x);
    CHECK(max_rel_error(p, run<TestType, float>(p, method, false)) < 2e-5);
  }
  // The first bad system is named: 40 x 13 + 7 (segment 1 of its item in
  // double, 5 in float), then system 40 x 44 + 3 (the second field) too.
  auto bad = p;
  bad.b[sh.first(40 * 44 + 3) + 4 * sh.stride] = std::nan("");
  for (int both = 0; both < 2; ++both) {
    if (both) bad.b[sh.first(40 * 13 + 7) + 6 * sh.stride] = std::nan("");
    for (auto method : all_methods) {
      INFO(la::name(method) << ", system 527 bad too: " << both);
      try {
        run<TestType, double>(bad, method, true);
        FAIL("no exception");
      } catch (const la::ZeroPivot& e) {
        CHECK(e.system() == (both ? 40 * 13 + 7 : 40 * 44 + 3));
      }
    }
  }
}
