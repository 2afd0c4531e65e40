#include "progress.hpp"
#include "kflow/model/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace kflow {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string hms(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  char b[64];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%ldh%02ldm%02lds", t / 3600, (t / 60) % 60, t % 60);
  else if (t >= 60)
    std::snprintf(b, sizeof b, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%.1fs", s);
  return b;
}

Progress::Progress(std::ostream& out, bool quiet, bool tty)
    : out_(out), quiet_(quiet), tty_(tty), interval_(tty ? 0.5 : 10.0) {}

void Progress::update(long step, double t, double dt, double end, long max_steps, double wall,
                      double t0, long step0) {
  if (quiet_ || wall - last_ < interval_) return;
  last_ = wall;
  double frac = 0;
  if (end > 0) frac = (t - t0) / (end - t0);
  if (max_steps > 0) frac = std::max(frac, double(step - step0) / double(max_steps - step0));
  const double eta = frac > 0 ? wall * (1 - frac) / frac : -1;
  std::ostringstream s;
  s << "step " << step << "  t = " << number_text(t) << "  dt = " << number_text(dt, 4) << "  wall "
    << hms(wall) << "  left ~" << hms(eta) << "  (" << number_text(100 * frac, 3) << "%)";
  if (tty_)
    out_ << "\r" << s.str() << "\033[K" << std::flush;
  else
    out_ << s.str() << "\n" << std::flush;
  dirty_ = tty_;
}

void Progress::done() {
  if (dirty_) out_ << "\n";
  dirty_ = false;
}

}  // namespace kflow
