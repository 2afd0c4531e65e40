// The run's clock (TimeControl): landing on output times and the end, the
// fixed-step models' step count, dt checks, and device-dt batch lengths.

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <vector>

#include "kflow/core/time_control.hpp"
#include "kflow/model/error.hpp"

using kflow::TimeControl;
using kflow::TimeSettings;

namespace {
// A model that only answers stable_dt.
struct ClockModel : kflow::Model {
  double dt = 0.07;
  kflow::linalg::Grid g;
  const kflow::linalg::Grid& grid() const override { return g; }
  double stable_dt(double) const override { return dt; }
  void step(double, double) override {}
  kflow::Diagnostics diagnostics(double) override { return {}; }
  kflow::HostField field(const std::string&, double) override { return {}; }
  std::vector<kflow::StateArray> save_state() override { return {}; }
  void restore_state(const std::vector<kflow::StateArray>&) override {}
  double bytes_per_cell_step() const override { return 0; }
  void fence() override {}
};

// Runs the clock to the end; returns the times at which output was due.
std::vector<double> outputs(TimeControl& c, const ClockModel& m) {
  std::vector<double> at;
  while (c.running()) {
    const auto s = c.plan(m);
    c.advance(s);
    if (c.output_due(s.at_output)) {
      at.push_back(c.time());
      c.output_written();
    }
  }
  return at;
}
}  // namespace

TEST_CASE("an adaptive dt lands exactly on every output time and on the end", "[unit]") {
  TimeSettings s;
  s.end = 1.0;
  s.output_every = 0.3;
  ClockModel m;
  TimeControl c(s, 0.0, 0);
  const auto at = outputs(c, m);
  REQUIRE(at.size() == 4);
  for (int k = 0; k < 3; ++k) CHECK(at[k] == (k + 1) * 0.3);  // k * every, as scheduled
  CHECK(at[3] == 1.0);
  CHECK(c.time() == 1.0);
  CHECK(c.at_end());
}

TEST_CASE("a model's fixed step is never shortened and reaches the end in whole steps", "[unit]") {
  TimeSettings s;
  s.end = 1.0;
  s.output_every = 0.25;
  s.model_dt = 0.1;  // 10 * 0.1 falls a rounding short of 1
  ClockModel m;
  TimeControl c(s, 0.0, 0);
  const auto at = outputs(c, m);
  CHECK(c.step() == 10);
  CHECK(c.dt() == 0.1);
  // Output at the first step at or after 0.25, 0.5, 0.75 and the end.
  REQUIRE(at.size() == 4);
  CHECK(at[0] == 3 * 0.1);
  CHECK(at[1] == 5 * 0.1);
  CHECK(at[2] == 8 * 0.1);
}

TEST_CASE("the clock refuses an unstable time.dt and a dt below the floor", "[unit]") {
  ClockModel m;
  TimeSettings s;
  s.end = 1.0;
  s.fixed_dt = 0.1;  // above the stable 0.07
  CHECK_THROWS_AS(TimeControl(s, 0.0, 0).plan(m), kflow::Error);
  s.fixed_dt = 0;
  m.dt = 1e-20;
  CHECK_THROWS_AS(TimeControl(s, 0.0, 0).plan(m), kflow::Error);
  TimeControl c(s, 0.0, 0);
  CHECK_THROWS_AS(c.advance_device(std::nan("")), kflow::Error);
}

TEST_CASE("a device-dt batch stops before the next output time, log row and step limit", "[unit]") {
  TimeSettings s;
  s.end = 10.0;
  s.output_every = 1.0;
  s.log_every = 1000;
  s.safety = 0.5;
  TimeControl c(s, 0.0, 0);
  const double max_dt = 1e-3;
  const long m = c.batch_length(max_dt);
  CHECK(m >= 2);
  CHECK(m <= kflow::DeviceDt::kDeviceDtBatch);
  for (long k = 0; k < m; ++k) c.advance_device(s.safety * max_dt);  // the largest possible steps
  CHECK(c.time() < 1.0);
  CHECK(!c.output_due(false));
  // Close to the output time: one step at a time.
  TimeControl near(s, 1.0 - 1e-4, 0);
  CHECK(near.batch_length(max_dt) < 2);
  // A log row every 10 steps bounds the batch.
  s.log_every = 10;
  CHECK(TimeControl(s, 0.0, 3).batch_length(max_dt) == 7);
  s.max_steps = 5;
  CHECK(TimeControl(s, 0.0, 3).batch_length(max_dt) == 2);
}
