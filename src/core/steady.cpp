#include "steady.hpp"

#include <algorithm>
#include <cmath>

#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"

namespace kflow {

SteadyCheck::SteadyCheck(const SteadySettings& s, double t0) : s_(s), next_(t0) {}

double SteadyCheck::check(const HostField& f, double t) {
  double change = 0, size = 0;
  if (have_last_) {
    if (last_.size() != f.values.size())
      throw Error("steady check: field " + f.name + " changed size during the run");
    for (std::size_t i = 0; i < f.values.size(); ++i) {
      change = std::max(change, std::abs(f.values[i] - last_[i]));
      size = std::max(size, std::abs(f.values[i]));
    }
    change = parallel::max(change);
    size = parallel::max(size);
    const double span = t - t_last_;
    // A field that is zero everywhere and stays so is steady.
    residual_ = change == 0 ? 0 : size > 0 && span > 0 ? change / (span * size) : HUGE_VAL;
  }
  last_ = f.values;
  t_last_ = t;
  have_last_ = true;
  next_ = t + s_.every;
  return residual_;
}

}  // namespace kflow
