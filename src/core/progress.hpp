#pragma once
// Progress of a long run on the terminal (internal to the driver).

#include <chrono>
#include <iosfwd>
#include <string>

namespace kflow {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0);

std::string hms(double seconds);  // 1h02m03s, 4m05s, 6.7s; "?" when unknown

// One updating line on a terminal, a line every 10 seconds otherwise (logs, CI).
class Progress {
 public:
  Progress(std::ostream& out, bool quiet, bool tty);
  // Fraction done from model time (t0 -> end) and steps (step0 -> max_steps).
  void update(long step, double t, double dt, double end, long max_steps, double wall, double t0,
              long step0);
  void done();  // ends the terminal line

 private:
  std::ostream& out_;
  bool quiet_, tty_;
  double interval_, last_ = 0;
  bool dirty_ = false;
};

}  // namespace kflow
