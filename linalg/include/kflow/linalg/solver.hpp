#pragma once
// The interface of the iterative solvers for A x = b on a structured grid
// (operator.hpp), in 2D and 3D alike: red-black SOR (rbsor.hpp), SIP
// (sip.hpp), CG (cg.hpp).  A solver is built once for an operator on an
// execution-space instance, with its options, and then called every time
// step.

#include <csignal>
#include <stdexcept>
#include <string>

#include "kflow/linalg/field.hpp"

namespace kflow::linalg {

// A solve stopped by its caller's flag (SolveControl::stop), x partly updated.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("the solve was stopped (SolveControl::stop)") {}
};

// What "converged" means.
enum class Criterion {
  change,   // max |x^(k) - x^(k-1)| over one iteration (the paper's criterion)
  residual  // max |b - A x^(k)| / max |b| (absolute where b = 0)
};

struct SolveControl {
  // Tolerance on the criterion (absolute for "change", relative to max |b|
  // for "residual"); 0 runs exactly max_iterations with no convergence check
  // (no host synchronisation).
  double tolerance = 1e-6;
  int max_iterations = 10000;
  // The criterion is evaluated every `check_every` iterations (and after the
  // last one), as in the paper's step problem (every 5).
  int check_every = 5;
  Criterion criterion = Criterion::residual;
  // A stop request the caller owns (a signal handler may set it: kflow's
  // driver does on a second Ctrl-C), or none.  Solves read it between
  // iterations and throw Cancelled once it is set.
  const volatile std::sig_atomic_t* stop = nullptr;
};

// Throws Cancelled when the caller's flag asks the solve to stop.
inline void check_stop(const SolveControl& c) {
  if (c.stop && *c.stop) throw Cancelled();
}

struct SolveStats {
  int iterations = 0;
  double criterion = -1;  // last value measured (-1: never measured)
  bool converged = false;
};

template <class ExecSpace, class Real, int Dim>
class Solver {
 public:
  static_assert(Dim == 2 || Dim == 3);
  using memory_space = typename ExecSpace::memory_space;
  using X = Field<Real, Dim, memory_space>;
  using B = Field<const Real, Dim, memory_space>;
  static constexpr int dim = Dim;
  virtual ~Solver() = default;
  // Improves x (initial guess in, solution out) for right-hand side b.
  virtual SolveStats solve(const X& x, const B& b, const SolveControl& control) = 0;
  virtual std::string name() const = 0;
};

}  // namespace kflow::linalg
