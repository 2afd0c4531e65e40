#include "kflow/model/case_solver.hpp"

namespace kflow {

void require_kokkos_kernels(const Config::Section& s, const std::string& key, Method method) {
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
  (void)s, (void)key, (void)method;
#else
  if (over_kokkos_kernels(method))
    s.fail(key, "\"" + std::string(name(method)) +
                    "\" (over Kokkos Kernels) needs Kokkos Kernels, which this build does not "
                    "have ('kflow info'); use \"cg\"");
#endif
}

linalg::MgOptions parse_mg_options(const Config::Section& s, bool preconditioner,
                                   bool fixed_count) {
  linalg::MgOptions o;
  o.cycle = read_option(s, "cycle", linalg::MgCycle::v);
  o.smoother = read_option(s, "smoother", linalg::MgSmoother::rbgs);
  o.pre_sweeps = o.post_sweeps = int(s.get_int("sweeps", 2, 1, 100));
  o.smoother_omega = s.get("smoother_omega", o.smoother_omega, Range::positive().at_most(2));
  if (!(o.smoother_omega < 2.0))
    s.fail("smoother_omega", "red-black Gauss-Seidel smoothing converges only for 0 < omega < 2");
  o.coarse = read_option(s, "coarse", o.coarse);
  o.team_cells = s.get_int("team_cells", o.team_cells, -1, 1L << 24);
  if (preconditioner && o.smoother == linalg::MgSmoother::jacobi)
    s.fail("smoother",
           "CG's multigrid preconditioner needs smoother = \"rbgs\" or \"chebyshev\" "
           "(symmetric cycles, tested)");
  if (preconditioner && fixed_count)
    s.fail("preconditioner",
           "\"mg\" with tolerance = 0 (a fixed iteration count): CG with the multigrid "
           "preconditioner converges in a few iterations and then iterates on rounding noise, "
           "which can diverge; give a tolerance, or use method = \"mg\"");
  return o;
}

}  // namespace kflow
