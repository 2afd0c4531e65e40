// hypre_peer.hpp: hypre's Struct interface, PFMG and PCG + PFMG.
#include "hypre_peer.hpp"

#include <HYPRE_struct_ls.h>
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

namespace kflow::linsys {

namespace {
// A solve that stops at its iteration limit sets HYPRE_ERROR_CONV: not an
// error here (the caller reads the residual); anything else is.
void check(HYPRE_Int err, const char* what) {
  if (err & ~HYPRE_ERROR_CONV) {
    HYPRE_ClearAllErrors();
    throw std::runtime_error(std::string("hypre: ") + what + " failed (error " +
                             std::to_string(err) + ")");
  }
}

void initialise() {
  static bool done = false;
  if (done) return;
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag && MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
    throw std::runtime_error("hypre: MPI_Init failed (singleton start of one rank)");
  check(HYPRE_Initialize(), "HYPRE_Initialize");
  std::atexit([] {
    HYPRE_Finalize();
    int f = 0;
    MPI_Finalized(&f);
    if (!f) MPI_Finalize();
  });
  done = true;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

HypreResult hypre_solve2(int nx, int ny, const std::array<std::vector<double>, 5>& c,
                         const std::vector<double>& b, std::vector<double>& x, double tol,
                         bool pcg) {
  initialise();
  const MPI_Comm comm = MPI_COMM_WORLD;
  HYPRE_Int lo[2] = {1, 1}, hi[2] = {nx, ny};
  HYPRE_StructGrid grid;
  check(HYPRE_StructGridCreate(comm, 2, &grid), "StructGridCreate");
  check(HYPRE_StructGridSetExtents(grid, lo, hi), "StructGridSetExtents");
  check(HYPRE_StructGridAssemble(grid), "StructGridAssemble");
  HYPRE_StructStencil stencil;
  check(HYPRE_StructStencilCreate(2, 5, &stencil), "StructStencilCreate");
  HYPRE_Int offsets[5][2] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};  // p, w, e, s, n
  for (HYPRE_Int e = 0; e < 5; ++e)
    check(HYPRE_StructStencilSetElement(stencil, e, offsets[e]), "StructStencilSetElement");
  const std::size_t cells = std::size_t(nx) * ny;
  std::vector<double> values(5 * cells), rhs(cells);
  for (std::size_t k = 0; k < cells; ++k) {
    for (int e = 0; e < 5; ++e) values[5 * k + e] = -c[e][k];  // -A: positive definite
    rhs[k] = -b[k];
  }
  HYPRE_Int entries[5] = {0, 1, 2, 3, 4};
  HYPRE_StructMatrix A;
  HYPRE_StructVector hb, hx;
  check(HYPRE_StructMatrixCreate(comm, grid, stencil, &A), "StructMatrixCreate");
  check(HYPRE_StructMatrixInitialize(A), "StructMatrixInitialize");
  check(HYPRE_StructMatrixSetBoxValues(A, lo, hi, 5, entries, values.data()),
        "StructMatrixSetBoxValues");
  check(HYPRE_StructMatrixAssemble(A), "StructMatrixAssemble");
  check(HYPRE_StructVectorCreate(comm, grid, &hb), "StructVectorCreate");
  check(HYPRE_StructVectorCreate(comm, grid, &hx), "StructVectorCreate");
  check(HYPRE_StructVectorInitialize(hb), "StructVectorInitialize");
  check(HYPRE_StructVectorInitialize(hx), "StructVectorInitialize");
  check(HYPRE_StructVectorSetBoxValues(hb, lo, hi, rhs.data()), "StructVectorSetBoxValues");
  check(HYPRE_StructVectorSetBoxValues(hx, lo, hi, x.data()), "StructVectorSetBoxValues");
  check(HYPRE_StructVectorAssemble(hb), "StructVectorAssemble");
  check(HYPRE_StructVectorAssemble(hx), "StructVectorAssemble");

  HypreResult r;
  // PFMG: Galerkin coarse operators (RAP type 0), red-black Gauss-Seidel
  // (relax type 2, symmetric), 2 + 2 sweeps, as linalg's V(2,2).
  auto configure = [&](HYPRE_StructSolver pfmg, bool preconditioner) {
    check(HYPRE_StructPFMGSetRAPType(pfmg, 0), "PFMGSetRAPType");
    check(HYPRE_StructPFMGSetRelaxType(pfmg, 2), "PFMGSetRelaxType");
    check(HYPRE_StructPFMGSetNumPreRelax(pfmg, 2), "PFMGSetNumPreRelax");
    check(HYPRE_StructPFMGSetNumPostRelax(pfmg, 2), "PFMGSetNumPostRelax");
    check(HYPRE_StructPFMGSetSkipRelax(pfmg, 0), "PFMGSetSkipRelax");
    if (preconditioner) {
      check(HYPRE_StructPFMGSetMaxIter(pfmg, 1), "PFMGSetMaxIter");
      check(HYPRE_StructPFMGSetTol(pfmg, 0.0), "PFMGSetTol");
      check(HYPRE_StructPFMGSetZeroGuess(pfmg), "PFMGSetZeroGuess");
    } else {
      check(HYPRE_StructPFMGSetMaxIter(pfmg, 200), "PFMGSetMaxIter");
      check(HYPRE_StructPFMGSetTol(pfmg, tol), "PFMGSetTol");
      check(HYPRE_StructPFMGSetRelChange(pfmg, 0), "PFMGSetRelChange");
      check(HYPRE_StructPFMGSetLogging(pfmg, 1), "PFMGSetLogging");
    }
  };
  HYPRE_StructSolver pfmg;
  check(HYPRE_StructPFMGCreate(comm, &pfmg), "StructPFMGCreate");
  configure(pfmg, pcg);
  if (pcg) {
    HYPRE_StructSolver cg;
    check(HYPRE_StructPCGCreate(comm, &cg), "StructPCGCreate");
    check(HYPRE_StructPCGSetTol(cg, tol), "PCGSetTol");
    check(HYPRE_StructPCGSetTwoNorm(cg, 1), "PCGSetTwoNorm");
    check(HYPRE_StructPCGSetRelChange(cg, 0), "PCGSetRelChange");
    check(HYPRE_StructPCGSetMaxIter(cg, 200), "PCGSetMaxIter");
    check(HYPRE_StructPCGSetLogging(cg, 1), "PCGSetLogging");
    check(HYPRE_StructPCGSetPrecond(cg, HYPRE_StructPFMGSolve, HYPRE_StructPFMGSetup, pfmg),
          "PCGSetPrecond");
    double t = now();
    check(HYPRE_StructPCGSetup(cg, A, hb, hx), "StructPCGSetup");
    r.setup_seconds = now() - t;
    t = now();
    check(HYPRE_StructPCGSolve(cg, A, hb, hx), "StructPCGSolve");
    r.solve_seconds = now() - t;
    HYPRE_Int its = 0;
    check(HYPRE_StructPCGGetNumIterations(cg, &its), "PCGGetNumIterations");
    check(HYPRE_StructPCGGetFinalRelativeResidualNorm(cg, &r.relative_l2), "PCGGetFinal...");
    r.iterations = int(its);
    r.name = "hypre PCG + PFMG V(2,2) rbgs";
    HYPRE_StructPCGDestroy(cg);
  } else {
    double t = now();
    check(HYPRE_StructPFMGSetup(pfmg, A, hb, hx), "StructPFMGSetup");
    r.setup_seconds = now() - t;
    t = now();
    check(HYPRE_StructPFMGSolve(pfmg, A, hb, hx), "StructPFMGSolve");
    r.solve_seconds = now() - t;
    HYPRE_Int its = 0;
    check(HYPRE_StructPFMGGetNumIterations(pfmg, &its), "PFMGGetNumIterations");
    check(HYPRE_StructPFMGGetFinalRelativeResidualNorm(pfmg, &r.relative_l2), "PFMGGetFinal...");
    r.iterations = int(its);
    r.name = "hypre PFMG V(2,2) rbgs";
  }
  check(HYPRE_StructVectorGetBoxValues(hx, lo, hi, x.data()), "StructVectorGetBoxValues");
  HYPRE_StructPFMGDestroy(pfmg);
  HYPRE_StructVectorDestroy(hx);
  HYPRE_StructVectorDestroy(hb);
  HYPRE_StructMatrixDestroy(A);
  HYPRE_StructStencilDestroy(stencil);
  HYPRE_StructGridDestroy(grid);
  return r;
}

}  // namespace kflow::linsys
