// physics/lbm's outflows (lbm_outflow.hpp): the pressure outflow, which holds
// the side's density, and the characteristic one, which lets pressure waves
// leave.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "unit/helpers.hpp"

using kflow::test::field;
using kflow::test::prepare_text;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {

// A column of the run's log.csv from time t0 on.
std::vector<double> log_column(const std::string& dir, const std::string& name, double t0) {
  std::ifstream in(dir + "/log.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  {
    std::stringstream s(line);
    for (std::string n; std::getline(s, n, ',');) names.push_back(n);
  }
  const auto col = [&](const std::string& n) {
    const auto it = std::find(names.begin(), names.end(), n);
    REQUIRE(it != names.end());
    return std::size_t(it - names.begin());
  };
  const std::size_t ct = col("time"), cv = col(name);
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream s(line);
    for (std::string x; std::getline(s, x, ',');) v.push_back(std::stod(x));
    if (v[ct] >= t0) out.push_back(v[cv]);
  }
  return out;
}

// A series' total variation beyond its net change: 0 for a monotone one.
double ringing(const std::vector<double>& v) {
  REQUIRE(v.size() > 1);
  double total = 0;
  for (std::size_t k = 1; k < v.size(); ++k) total += std::fabs(v[k] - v[k - 1]);
  return total - std::fabs(v.back() - v.front());
}

}  // namespace

TEST_CASE("lbm characteristic outflow: a channel keeps its parabola and the inflow's mass flux",
          "[unit]") {
  // Plane Poiseuille flow (height 1, parabolic inflow, Um = 1.5) leaving
  // through the characteristic outflow: in the middle column the profile's
  // shape against the parabola's and the mass flux sum rho u dy against the
  // inflow's U H = 1 (rho0 = 1), as the pressure outflow's test
  // (test_lbm_bodies.cpp: measured shape 0.0041) checks them; both
  // streaming schemes the same bits.
  const char* const toml = R"([case]
model = "lbm"
[grid]
cells = [48, 16]
length = [3.0, 1.0]
[lattice]
collision = "trt"
velocity = 0.05
[physics]
reynolds = 10.0
[boundary]
west = { type = "inflow", profile = "parabolic", max_velocity = 1.5 }
east = { type = "outflow", condition = "characteristic" }
[time]
end = 60.0
[output]
fields = ["velocity", "density"]
)";
  std::vector<double> first;
  for (const char* scheme : {"lattice.streaming=\"two_grid\"", "lattice.streaming=\"in_place\""}) {
    const auto r = run_text(toml, "", {scheme}, "", true);
    const auto u = field(r, "velocity");
    const auto rho = field(r, "density");
    double mean = 0, flux = 0;
    for (int j = 0; j < 16; ++j) {
      const std::size_t k = std::size_t(24 + 48 * j);
      mean += u.values[3 * k] / 16;
      flux += rho.values[k] * u.values[3 * k] / 16;
    }
    double shape = 0;
    for (int j = 0; j < 16; ++j) {
      const double y = (j + 0.5) / 16;
      shape = std::max(shape,
                       std::fabs(u.values[3 * std::size_t(24 + 48 * j)] / mean - 6 * y * (1 - y)));
    }
    WARN(scheme << ": shape error " << shape << ", mass flux " << flux << " (inflow 1)");
    CHECK(shape < 5e-3);
    CHECK(std::fabs(flux - 1) < 1e-4);
    if (first.empty())
      first = u.values;
    else
      CHECK(u.values == first);
  }
}

TEST_CASE("lbm characteristic outflow: the start's pressure wave leaves the channel", "[unit]") {
  // A uniform inflow started at once into fluid at rest (a channel periodic
  // across, 200 x 4 cells, 50 long) sends a pressure wave of rho0 U / c down
  // the channel (a density step of 0.087 here).  The pressure outflow
  // reflects it (R = -1) and the velocity inflow reflects it back: the
  // channel's mean density rings with period 4 L / c (17 time units) and
  // little damping.  The characteristic outflow lets the wave out: the level
  // the wave left then relaxes to the side's over N / (sigma c) steps (17
  // time units) without ringing.  Measured over t = 20..60: the mean
  // density's variation beyond its net change (0 for a monotone approach).
  // Pressure outflow: 0.323; characteristic: 0 (monotone).
  const char* const toml = R"([case]
model = "lbm"
[grid]
cells = [200, 4]
length = [50.0, 1.0]
[lattice]
velocity = 0.05
[physics]
reynolds = 10.0
[boundary]
west = { type = "inflow", velocity = [1.0, 0.0] }
north = "periodic"
south = "periodic"
[time]
end = 60.0
[output]
every = 100.0
log_every = 20
fields = ["density"]
)";
  TempDir tmp("lbm-outflow-wave");
  run_text(toml, tmp.str() + "/p", {"boundary.east={type=\"outflow\"}"});
  run_text(toml, tmp.str() + "/c",
           {"boundary.east={type=\"outflow\",condition=\"characteristic\"}"});
  const double p = ringing(log_column(tmp.str() + "/p", "mean_density", 20.0));
  const double c = ringing(log_column(tmp.str() + "/c", "mean_density", 20.0));
  const double wave = 0.05 * std::sqrt(3.0);  // rho0 U / c in lattice units
  WARN("mean density's variation beyond its net change over t = 20..60: pressure outflow "
       << p << ", characteristic " << c << " (the wave: " << wave << ")");
  CHECK(p > wave);  // the pressure outflow rings
  CHECK(c < 0.01 * p);
}

TEST_CASE("lbm characteristic outflow: bad keys are named", "[unit]") {
  const char* const base = R"([case]
model = "lbm"
[grid]
cells = [48, 16]
length = [3.0, 1.0]
[physics]
reynolds = 10.0
[time]
end = 1.0
[boundary]
west = { type = "inflow", velocity = [1.0, 0.0] }
)";
  const auto fails = [&](const std::string& east, const std::string& what) {
    INFO(east);
    CHECK_THROWS_WITH(prepare_text(std::string(base) + "east = " + east + "\n"),
                      Catch::Matchers::ContainsSubstring(what));
  };
  fails(R"({ type = "outflow", condition = "zero" })", "condition");
  fails(R"({ type = "outflow", sigma = 0.5 })", "sigma belongs to condition = \"characteristic\"");
  fails(R"({ type = "outflow", condition = "characteristic", sigma = 0 })", "sigma");
  fails(R"({ type = "outflow", condition = "characteristic", sigma = 3 })", "sigma");
  CHECK_THROWS_WITH(
      prepare_text(std::string(base) + "east = \"outflow\"\nnorth = { type = \"moving_wall\", "
                                       "velocity = [1.0, 0.0], condition = \"characteristic\" }\n"),
      Catch::Matchers::ContainsSubstring("only an outflow side takes condition"));
}
