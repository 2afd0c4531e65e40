#pragma once
// The definition behind kk_krylov.hpp, included only by the generated
// translation units kk_krylov_<backend>_<precision>.cpp (CMakeLists.txt).

#include "kflow/linalg/kk_cg.hpp"
#include "kflow/linalg/kk_gmres.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/linalg/stencil7.hpp"
#include "kk_krylov.hpp"

namespace kflow::kk {

template <class ExecSpace, class Op>
auto Krylov<ExecSpace, Op>::make(const ExecSpace& space, const Op& op, const KrylovOptions& o)
    -> SolverPtr {
  if (o.gmres)
    return std::make_unique<linalg::KkGmres<ExecSpace, Op>>(
        space, op, linalg::KkGmresOptions{o.preconditioner, o.restart, o.ilu_level});
  return std::make_unique<linalg::KkConjugateGradient<ExecSpace, Op>>(space, op, o.preconditioner);
}

}  // namespace kflow::kk
