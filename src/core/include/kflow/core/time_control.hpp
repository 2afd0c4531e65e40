#pragma once
// The run's clock: where it ends, when a log row and a frame are due, how a
// step lands on output times and on the end, and how many device-chosen
// steps may run in one batch without passing any of those.

#include "kflow/model/model.hpp"

namespace kflow {

// The [time] and [output] keys that drive the clock (see PreparedCase).
struct TimeSettings {
  double end = 0;      // model time to reach (0: not set)
  long max_steps = 0;  // 0: no limit
  double output_every = 0;
  long output_every_steps = 0, log_every = 1;
  double safety = 0.9, fixed_dt = 0, dt_floor = 1e-14;
  bool float_clock = false;  // time.clock = "float32"
  double model_dt = 0;       // Model::fixed_dt(): the model steps by exactly this
};

class TimeControl {
 public:
  TimeControl(const TimeSettings& s, double t, long step);

  double time() const { return t_; }
  long step() const { return step_; }
  double dt() const { return dt_; }  // the last step's dt
  bool running() const;              // before the end and the step limit
  bool at_end() const;               // the end or the step limit reached

  // After a step (at_output: it landed on an output time): what is due.
  bool output_due(bool at_output) const;
  bool log_due(bool at_output) const;
  void output_written() { next_output_ = next_output_time(); }

  // The next step: dt from the model (fixed, time.dt or safety * stable_dt),
  // checked and shortened to land on an output time or the end.
  struct Step {
    double dt = 0, t_new = 0;
    bool at_output = false;
  };
  Step plan(const Model& model) const;
  void advance(const Step& s);

  // Device-chosen steps: how many may run before the next output time, end,
  // log row or output step (0 or 1: step one at a time), and the clock's
  // advance by one of them (the dt read back afterwards).
  long batch_length(double max_stable_dt) const;
  void advance_device(double dt);

 private:
  double next_output_time() const;
  double advance_clock(double from, double d) const;
  void check_dt(double d) const;

  TimeSettings s_;
  double t_, dt_ = 0, next_output_;
  long step_, step0_;
  double end_tol_;  // a fixed-step model's t = steps * dt may fall a rounding short of the end
};

}  // namespace kflow
