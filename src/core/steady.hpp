#pragma once
// The steady-state stop (time.steady; internal to the driver): the relative
// change of one field per unit of model time, measured between snapshots
// `every` model time apart, against a tolerance.

#include <vector>

#include "kflow/core/driver.hpp"
#include "kflow/model/model.hpp"

namespace kflow {

class SteadyCheck {
 public:
  // From time t0 (the run's start or its restart): the first snapshot is
  // taken there, the first residual `every` later.
  SteadyCheck(const SteadySettings& s, double t0);

  bool on() const { return s_.tolerance > 0; }
  // A check is due after the step that reached t (the first step at or past
  // the next check time).
  bool due(double t) const { return on() && t >= next_; }
  // Takes the snapshot (this rank's block of the field) and, from the second
  // one on, the residual: max |f(t) - f(t_last)| / ((t - t_last) max |f(t)|),
  // over every rank's cells and components.  Returns it (or -1 at the first).
  double check(const HostField& f, double t);

  double residual() const { return residual_; }  // the last one (-1: none yet)
  bool converged() const { return residual_ >= 0 && residual_ <= s_.tolerance; }
  const SteadySettings& settings() const { return s_; }

 private:
  SteadySettings s_;
  std::vector<double> last_;
  double t_last_ = 0, next_ = 0, residual_ = -1;
  bool have_last_ = false;
};

}  // namespace kflow
