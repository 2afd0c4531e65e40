#include "kflow/core/time_control.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"

namespace kflow {

TimeControl::TimeControl(const TimeSettings& s, double t, long step)
    : s_(s), t_(t), step_(step), step0_(step), end_tol_(s.model_dt > 0 ? 1e-12 : 0.0) {
  next_output_ = next_output_time();
}

bool TimeControl::running() const {
  return (s_.end <= 0 || t_ < s_.end * (1 - end_tol_)) &&
         (s_.max_steps <= 0 || step_ < s_.max_steps);
}

bool TimeControl::at_end() const {
  return (s_.end > 0 && t_ >= s_.end * (1 - end_tol_)) ||
         (s_.max_steps > 0 && step_ >= s_.max_steps);
}

bool TimeControl::output_due(bool at_output) const {
  return at_output || (s_.output_every_steps > 0 && step_ % s_.output_every_steps == 0) || at_end();
}

bool TimeControl::log_due(bool at_output) const {
  return step_ % s_.log_every == 0 || output_due(at_output);
}

double TimeControl::next_output_time() const {
  if (s_.output_every <= 0) return std::numeric_limits<double>::infinity();
  const double k = std::floor(t_ / s_.output_every + 1e-9) + 1;
  return k * s_.output_every;
}

// time.clock = "float32" accumulates t in single precision.
double TimeControl::advance_clock(double from, double d) const {
  return s_.float_clock ? double(float(float(from) + float(d))) : from + d;
}

void TimeControl::check_dt(double d) const {
  if (!std::isfinite(d) || d < s_.dt_floor)
    throw Error("blow-up at step " + std::to_string(step_) + ", t = " + number_text(t_) +
                ": the time step " + number_text(d) +
                " is below time.dt_floor = " + number_text(s_.dt_floor));
}

TimeControl::Step TimeControl::plan(const Model& model) const {
  const double model_dt = s_.model_dt;
  Step s;
  s.dt = model_dt > 0 ? model_dt : s_.fixed_dt > 0 ? s_.fixed_dt : s_.safety * model.stable_dt(t_);
  if (model_dt <= 0 && s_.fixed_dt > 0 && step_ == step0_) {
    const double limit = model.stable_dt(t_);
    if (s_.fixed_dt > limit)
      throw Error("time.dt = " + number_text(s_.fixed_dt) + " exceeds the stable step " +
                  number_text(limit) + " of this case; lower time.dt or use time.safety_factor");
  }
  check_dt(s.dt);
  // Land exactly on output times and the end.
  // (A fixed-step model is not clamped: t = steps * dt.)
  s.t_new = model_dt > 0 ? double(step_ + 1) * model_dt : t_ + s.dt;
  if (s_.float_clock && model_dt <= 0) {
    s.t_new = advance_clock(t_, s.dt);
    s.at_output = s.t_new >= next_output_;
  } else {
    if (s.t_new >= next_output_ * (1 - 1e-12)) {
      if (model_dt <= 0) s.t_new = next_output_;
      s.at_output = true;
    }
    if (model_dt <= 0) {
      if (s_.end > 0 && s.t_new >= s_.end * (1 - 1e-12)) s.t_new = s_.end;
      if (s.t_new != t_ + s.dt) s.dt = s.t_new - t_;  // landing; otherwise dt as chosen
    }
  }
  return s;
}

void TimeControl::advance(const Step& s) {
  dt_ = s.dt;
  t_ = s.t_new;
  ++step_;
}

// A batch provably reaches no output time, no end and no step with a log row
// or output before its last step: t advances by at most safety *
// max_stable_dt (plus the clock's rounding) per step, and the batch covers
// at most half of the distance to the next target.  Near a target the loop
// falls back to one step at a time, which lands exactly as before.
long TimeControl::batch_length(double max_stable_dt) const {
  const double target =
      std::min(next_output_, s_.end > 0 ? s_.end : std::numeric_limits<double>::infinity());
  const double ulp = s_.float_clock ? double(std::nextafter(float(target), 3e38f)) - target
                                    : 4 * std::abs(target) * 1.2e-16;
  const double per_step = s_.safety * max_stable_dt * (1 + 1e-9) + ulp;
  long m = DeviceDt::kDeviceDtBatch;
  if (std::isfinite(target)) {
    const double reach = 0.5 * (target - t_) / per_step;
    m = target - t_ > 4e-12 * std::abs(target) ? long(std::min(reach, double(m))) : 0;
  }
  long next_event = (step_ / s_.log_every + 1) * s_.log_every;
  if (s_.output_every_steps > 0)
    next_event = std::min(next_event, (step_ / s_.output_every_steps + 1) * s_.output_every_steps);
  if (s_.max_steps > 0) next_event = std::min(next_event, s_.max_steps);
  return std::min(m, next_event - step_);
}

void TimeControl::advance_device(double dt) {
  dt_ = dt;
  check_dt(dt_);
  t_ = advance_clock(t_, dt_);
  ++step_;
}

}  // namespace kflow
