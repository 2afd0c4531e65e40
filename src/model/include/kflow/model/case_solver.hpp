#pragma once
// Case plumbing every model with an elliptic solve shares: the multigrid
// keys of a solver table (cycle, smoother, sweeps, smoother_omega, coarse, team_cells), read and
// checked the same way in mac2d's [solver.pressure] and vorticity2d's [solver], and the
// check that a method over Kokkos Kernels has it in this build (mac2d, vorticity2d, split3d).

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kflow/linalg/mg_options.hpp"
#include "kflow/linalg/options.hpp"
#include "kflow/model/config.hpp"

namespace kflow {

// The elliptic solvers a model's solver table names (method = "..."): red-black
// SOR, Stone's SIP, CG, geometric multigrid, and CG or GMRES over Kokkos Kernels.
enum class Method { rbsor, sip, cg, mg, kk_cg, kk_gmres };
// Their preconditioners (preconditioner = "..."); "ilu" is Kokkos Kernels' ILU(k).
enum class Preconditioner { jacobi, none, mg, ilu };

}  // namespace kflow

template <>
struct kflow::linalg::EnumNames<kflow::Method> {
  static constexpr const char* what = "method";
  static constexpr std::pair<kflow::Method, const char*> table[] = {
      {kflow::Method::rbsor, "rbsor"}, {kflow::Method::sip, "sip"},
      {kflow::Method::cg, "cg"},       {kflow::Method::mg, "mg"},
      {kflow::Method::kk_cg, "kk_cg"}, {kflow::Method::kk_gmres, "kk_gmres"}};
};

template <>
struct kflow::linalg::EnumNames<kflow::Preconditioner> {
  static constexpr const char* what = "preconditioner";
  static constexpr std::pair<kflow::Preconditioner, const char*> table[] = {
      {kflow::Preconditioner::jacobi, "jacobi"},
      {kflow::Preconditioner::none, "none"},
      {kflow::Preconditioner::mg, "mg"},
      {kflow::Preconditioner::ilu, "ilu"}};
};

namespace kflow {

using linalg::name;

// An option read into its enum through the enum's one name table
// (linalg::EnumNames), among `offered` (every value when empty):
//   s->method = read_option(ss, "method", Method::cg, {Method::cg, Method::mg});
template <class E>
E read_option(const Config::Section& s, const std::string& key, E fallback,
              const std::vector<E>& offered = {}) {
  std::vector<std::pair<std::string, E>> table;
  for (const auto& [value, text] : linalg::EnumNames<E>::table)
    if (offered.empty() || std::find(offered.begin(), offered.end(), value) != offered.end())
      table.emplace_back(text, value);
  return s.get_enum(key, table, fallback);
}

inline bool over_kokkos_kernels(Method m) {
  return m == Method::kk_cg || m == Method::kk_gmres;
}

// CG's and GMRES's preconditioner in linalg's terms, C = linalg::CgPreconditioner
// (a parameter: this header stays clear of cg.hpp); ilu, GMRES's own over
// Kokkos Kernels, is none there: the Krylov wrapper sets the ILU up.
template <class C>
C cg_preconditioner(Preconditioner p) {
  return p == Preconditioner::jacobi ? C::jacobi : p == Preconditioner::mg ? C::mg : C::none;
}

// cycle = "V" | "W" | "F" (V), smoother = "rbgs" | "jacobi" | "chebyshev"
// (rbgs), sweeps = pre- and post-smoothing sweeps (Chebyshev: the degree)
// per level (2), smoother_omega = rbgs's relaxation factor in (0, 2) (1.15),
// coarse = "sweeps" | "cg" (the coarsest level's solve;
// sweeps), team_cells = N (the levels from the first with at most N cells
// down are cycled by one team in one kernel; 0 = none; -1, the default:
// 1024 on GPUs, 0 on CPUs).  As CG's preconditioner (`preconditioner`
// true) the cycle must be symmetric (rbgs or chebyshev, the tested ones), and a fixed iteration
// count (`fixed_count`: tolerance = 0) is refused: measured in mac2d, a doubly periodic box with 20
// fixed CG + multigrid iterations per step diverged (converged after about 8, then iterating on
// rounding noise), while 10, or a tolerance of 1e-10, were fine.
linalg::MgOptions parse_mg_options(const Config::Section& solver, bool preconditioner,
                                   bool fixed_count);

// A solver over Kokkos Kernels ("kk_cg", "kk_gmres", ...) named by `key` in a
// build without Kokkos Kernels: the configuration error (naming the file,
// key and value, and 'kflow info').  Call it after the keys such a method
// takes, so that a case's other mistakes are named alike in every build.
void require_kokkos_kernels(const Config::Section& solver, const std::string& key, Method method);

}  // namespace kflow
