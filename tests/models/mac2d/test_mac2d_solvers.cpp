// physics/mac2d's pressure solvers against red-black SOR on the same runs:
// SIP, multigrid, CG (with Jacobi and multigrid) and, where it is in the
// build, Kokkos Kernels' CG and GMRES.

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "models/mac2d/mac2d_cases.hpp"
#include "unit/helpers.hpp"

using kflow::test::diag;
using kflow::test::field;
using kflow::test::run_text;
using namespace kflow::test::mac2d_cases;

TEST_CASE("mac2d with SIP as the pressure solver agrees with red-black SOR", "[unit]") {
  // Both solve (8) to a relative residual of 1e-9 each step; the velocities
  // then agree to about that level (the solvers' leftovers differ).
  const std::vector<std::string> tight = {"time.end=0.5", "solver.pressure.tolerance=1e-9"};
  auto sip = tight;
  sip.push_back("solver.pressure.method=\"sip\"");
  const auto a = run_text(cavity, "", tight, "", true);
  const auto b = run_text(cavity, "", sip, "", true);
  const auto ua = field(a, "velocity").values;
  const auto ub = field(b, "velocity").values;
  const double diff = max_abs_diff(ua, ub);
  INFO("max |u_sor - u_sip| = " << diff
                                << "; iterations in the last step: " << diag(a, "sor_iterations")
                                << " (rbsor), " << diag(b, "sor_iterations") << " (sip)");
  CHECK(diff < 1e-6);
  CHECK(diag(b, "divergence_max") < 1e-5);
}

TEST_CASE("mac2d with multigrid as the pressure solver agrees with red-black SOR",
          "[unit][multigrid]") {
  // As for SIP and CG: every solver reaches a relative residual of 1e-9 each
  // step on the walled cavity (singular: multigrid projects the right-hand
  // side); multigrid alone (V- and F-cycles) and as CG's preconditioner.
  const std::vector<std::string> tight = {"time.end=0.5", "solver.pressure.tolerance=1e-9"};
  const auto a = run_text(cavity, "", tight, "", true);
  const std::vector<std::vector<std::string>> variants = {
      {"solver.pressure.method=\"mg\""},
      {"solver.pressure.method=\"mg\"", "solver.pressure.cycle=\"F\""},
      {"solver.pressure.method=\"cg\"", "solver.pressure.preconditioner=\"mg\""}};
  for (const auto& v : variants) {
    auto o = tight;
    o.insert(o.end(), v.begin(), v.end());
    const auto b = run_text(cavity, "", o, "", true);
    const auto ua = field(a, "velocity").values;
    const auto ub = field(b, "velocity").values;
    const double diff = max_abs_diff(ua, ub);
    INFO(v.back() << ": max |u_sor - u_mg| = " << diff << "; iterations in the last step: "
                  << diag(a, "sor_iterations") << " (rbsor), " << diag(b, "sor_iterations"));
    CHECK(diff < 1e-6);
    CHECK(diag(b, "divergence_max") < 1e-5);
  }
}

TEST_CASE("mac2d with CG as the pressure solver agrees with red-black SOR", "[unit][cg]") {
  // As for SIP: every solver reaches a relative residual of 1e-9 each step,
  // so the velocities agree to about that level; 1e-6 leaves room for the
  // different leftovers accumulated over the steps.  Both preconditioners on
  // the walled cavity (singular: CG projects the right-hand side), and the
  // doubly periodic Taylor-Green vortex (where SIP cannot run) at the case's
  // tolerance of 1e-10: velocities within 1e-8.
  const std::vector<std::string> tight = {"time.end=0.5", "solver.pressure.tolerance=1e-9"};
  const auto a = run_text(cavity, "", tight, "", true);
  for (const char* pre : {"jacobi", "none"}) {
    auto cg = tight;
    cg.push_back("solver.pressure.method=\"cg\"");
    cg.push_back(std::string("solver.pressure.preconditioner=\"") + pre + "\"");
    const auto b = run_text(cavity, "", cg, "", true);
    const auto ua = field(a, "velocity").values;
    const auto ub = field(b, "velocity").values;
    const double diff = max_abs_diff(ua, ub);
    INFO(pre << ": max |u_sor - u_cg| = " << diff << "; iterations in the last step: "
             << diag(a, "sor_iterations") << " (rbsor), " << diag(b, "sor_iterations") << " (cg)");
    CHECK(diff < 1e-6);
    CHECK(diag(b, "divergence_max") < 1e-5);
  }
  const std::vector<std::string> tg = {"time.end=0.2", "grid.cells=[16,16]"};
  auto tgcg = tg;
  tgcg.push_back("solver.pressure.method=\"cg\"");
  const auto c = run_text(taylor_green, "", tg, "", true);
  const auto d = run_text(taylor_green, "", tgcg, "", true);
  const auto uc = field(c, "velocity").values;
  const auto ud = field(d, "velocity").values;
  const double diff = max_abs_diff(uc, ud);
  INFO("Taylor-Green: max |u_sor - u_cg| = " << diff);
  CHECK(diff < 1e-8);
  CHECK(std::fabs(diag(c, "error_u_max") - diag(d, "error_u_max")) < 1e-8);
}

#if defined(KFLOW_HAVE_KOKKOSKERNELS)
TEST_CASE("mac2d over Kokkos Kernels (kk_cg, kk_gmres) agrees with the matrix-free CG",
          "[unit][cg][gmres][kokkos-kernels]") {
  // kk_cg is the same iteration in exact arithmetic (linalg/kk_cg.hpp) and
  // kk_gmres another Krylov method to the same residual rule: each step's
  // solve reaches the same tolerance, so the velocities agree to about it
  // (the bounds of the CG-versus-SOR test above), on the walled cavity
  // (singular) with both preconditioners and on the doubly periodic
  // Taylor-Green vortex.
  const std::vector<std::string> tight = {"time.end=0.5", "solver.pressure.tolerance=1e-9"};
  for (const char* method : {"kk_cg", "kk_gmres"})
    for (const char* pre : {"jacobi", "none", "ilu"}) {
      if (std::string(pre) == "ilu" && std::string(method) == "kk_cg") continue;
      auto cg = tight;
      auto kk = cg;
      cg.push_back(std::string("solver.pressure.preconditioner=\"") +
                   (std::string(pre) == "ilu" ? "jacobi" : pre) + "\"");
      kk.push_back(std::string("solver.pressure.preconditioner=\"") + pre + "\"");
      cg.push_back("solver.pressure.method=\"cg\"");
      kk.push_back(std::string("solver.pressure.method=\"") + method + "\"");
      const auto a = run_text(cavity, "", cg, "", true);
      const auto b = run_text(cavity, "", kk, "", true);
      const auto ua = field(a, "velocity").values;
      const auto ub = field(b, "velocity").values;
      const double diff = max_abs_diff(ua, ub);
      INFO(method << ", " << pre << ": max |u_cg - u_kk| = " << diff
                  << "; iterations in the last step: " << diag(a, "sor_iterations") << " (cg), "
                  << diag(b, "sor_iterations") << " (" << method << ")");
      CHECK(diff < 1e-6);
      CHECK(diag(b, "divergence_max") < 1e-5);
    }
  const std::vector<std::string> tg = {"time.end=0.2", "grid.cells=[16,16]"};
  for (const char* method : {"kk_cg", "kk_gmres"}) {
    auto tgcg = tg, tgkk = tg;
    tgcg.push_back("solver.pressure.method=\"cg\"");
    tgkk.push_back(std::string("solver.pressure.method=\"") + method + "\"");
    const auto c = run_text(taylor_green, "", tgcg, "", true);
    const auto d = run_text(taylor_green, "", tgkk, "", true);
    const auto uc = field(c, "velocity").values;
    const auto ud = field(d, "velocity").values;
    const double diff = max_abs_diff(uc, ud);
    INFO(method << ", Taylor-Green: max |u_cg - u_kk| = " << diff);
    CHECK(diff < 1e-8);
  }
}
#endif
