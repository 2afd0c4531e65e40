// Multicolour SOR over Kokkos Kernels (linalg/kk_sor.hpp): on the
// variable-coefficient symmetric system of the CG tests it reaches the known
// discrete solution, over-relaxation takes fewer sweeps than Gauss-Seidel,
// and its sweep count is near red-black SOR's at the same omega (both are
// SOR with a parallel ordering); singular systems up to a constant with an
// obstacle left alone; the rejections.  On every execution space compiled
// in (operators and right-hand sides built on the host).

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "kflow/linalg/kk_sor.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "linalg/backends.hpp"
#include "linalg/cg_problems.hpp"
#include "unit/linsys_helpers.hpp"

namespace la = kflow::linalg;
using Mem = Kokkos::HostSpace;
using F2 = la::Field<double, 2, Mem>;

namespace {

using kflow::test::error;
using kflow::test::grid2;
using kflow::test::op_to_space;
using kflow::test::random_field;
using kflow::test::rhs_of;
using kflow::test::to_host;
using kflow::test::to_space;
using kflow::test::cg::diffusion_op;
using kflow::test::cg::f2;
using kflow::test::cg::neumann_op;

la::SolveControl control(double tol) {
  la::SolveControl s;
  s.tolerance = tol;
  s.max_iterations = 50000;
  s.check_every = 10;
  return s;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("kk_sor: the known solution, over-relaxation, red-black SOR's sweeps",
                        "[unit][sor][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  const auto g = grid2(33, 21);
  const auto hop = diffusion_op(g, [](double x, double) { return x < 16 ? 1.0 : 20.0; });
  const F2 exact = random_field(g, 5);
  const F2 b = rhs_of(hop, exact);
  TestType space;
  const auto op = op_to_space<TestType>(hop);
  using Op = std::remove_const_t<decltype(op)>;
  int sweeps[2] = {0, 0};
  for (double omega : {1.0, 1.8}) {
    la::KkMulticolorSor<TestType, Op> s(space, op, omega);
    auto x = to_space<TestType>(f2(g));
    const auto st = s.solve(x, to_space<TestType>(b), control(1e-10));
    const double e = error(hop, to_host(x), exact, false);
    // Red-black SOR at the same omega, from the same start.
    la::RedBlackSOR<TestType, Op> rb(space, op, la::SorOptions{omega});
    auto y = to_space<TestType>(f2(g));
    const auto sr = rb.solve(y, to_space<TestType>(b), control(1e-10));
    INFO("omega " << omega << ": kk_sor " << st.iterations << " sweeps, error " << e
                  << "; red-black SOR " << sr.iterations);
    CHECK(st.converged);
    CHECK(st.criterion <= 1e-10);
    CHECK(e < 1e-5);
    CHECK(sr.converged);
    CHECK(st.iterations <= 2 * sr.iterations);
    CHECK(sr.iterations <= 2 * st.iterations);
    sweeps[omega > 1] = st.iterations;
  }
  INFO("Gauss-Seidel " << sweeps[0] << ", SOR " << sweeps[1]);
  CHECK(2 * sweeps[1] < sweeps[0]);
}

TEMPLATE_LIST_TEST_CASE("kk_sor: a singular Neumann Laplacian with an obstacle",
                        "[unit][sor][kokkos-kernels]", kflow::test::ExecutionSpaces) {
  const auto g = grid2(20, 14);
  const auto hop = neumann_op(g, false);
  const F2 exact = random_field(g, 3);
  const F2 b = rhs_of(hop, exact);
  F2 x0 = f2(g);
  x0(7, 6) = 123.0;  // an obstacle value: must stay untouched
  TestType space;
  const auto op = op_to_space<TestType>(hop);
  la::KkMulticolorSor<TestType, std::remove_const_t<decltype(op)>> s(space, op, 1.7);
  auto x = to_space<TestType>(x0);
  const auto st = s.solve(x, to_space<TestType>(b), control(1e-10));
  const F2 xh = to_host(x);
  INFO(st.iterations << " sweeps");
  CHECK(st.converged);
  CHECK(xh(7, 6) == 123.0);
  CHECK(error(hop, xh, exact, true) < 1e-6);
}

TEMPLATE_LIST_TEST_CASE("kk_sor: rejections", "[unit][sor][kokkos-kernels]",
                        kflow::test::ExecutionSpaces) {
  const auto g = grid2(8, 8);
  TestType space;
  const auto op = op_to_space<TestType>(diffusion_op(g, kflow::test::cg::unit_k));
  using Op = std::remove_const_t<decltype(op)>;
  CHECK_THROWS_AS((la::KkMulticolorSor<TestType, Op>(space, op, 2.0)), std::invalid_argument);
  CHECK_THROWS_AS((la::KkMulticolorSor<TestType, Op>(space, op, 0.0)), std::invalid_argument);
  la::KkMulticolorSor<TestType, Op> s(space, op, 1.5);
  auto x = to_space<TestType>(f2(g));
  auto c = control(1e-8);
  c.criterion = la::Criterion::change;
  CHECK_THROWS_AS(s.solve(x, to_space<TestType>(f2(g)), c), std::invalid_argument);
}
