#pragma once
// The interface of iterative solvers for A x = b with a 5-point operator
// (stencil.hpp): red-black SOR (rbsor.hpp), SIP (sip.hpp), CG (cg.hpp), and
// multigrid behind the same interface later.  A solver is built once for an operator on an
// execution-space instance and then called every time step.

#include <string>

#include "kflow/linalg/field.hpp"

namespace kflow::linalg {

// What "converged" means.
enum class Criterion {
  change,   // max |x^(k) - x^(k-1)| over one iteration (the paper's criterion)
  residual  // max |b - A x^(k)| / max |b| (absolute where b = 0)
};

struct SolveControl {
  // Tolerance on the criterion (absolute for "change", relative to max |b|
  // for "residual"); 0 runs exactly
  // max_iterations with no convergence check (no host synchronisation).
  double tolerance = 1e-6;
  int max_iterations = 10000;
  // The criterion is evaluated every `check_every` iterations (and after the
  // last one), as in the paper's step problem (every 5).
  int check_every = 5;
  Criterion criterion = Criterion::residual;
};

struct SolveStats {
  int iterations = 0;
  double criterion = -1;  // last value measured (-1: never measured)
  bool converged = false;
};

template <class ExecSpace, class Real>
class Solver2 {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using X = Field<Real, 2, memory_space>;
  using B = Field<const Real, 2, memory_space>;
  virtual ~Solver2() = default;
  // Improves x (initial guess in, solution out) for right-hand side b.
  virtual SolveStats solve(const X& x, const B& b, const SolveControl& control) = 0;
  virtual std::string name() const = 0;
};

}  // namespace kflow::linalg

namespace kflow::linalg {

// The same interface for 3D operators (stencil7.hpp): SIP 3D now.
template <class ExecSpace, class Real>
class Solver3 {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using X = Field<Real, 3, memory_space>;
  using B = Field<const Real, 3, memory_space>;
  virtual ~Solver3() = default;
  virtual SolveStats solve(const X& x, const B& b, const SolveControl& control) = 0;
  virtual std::string name() const = 0;
};

}  // namespace kflow::linalg
