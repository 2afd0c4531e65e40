// The flow models' side reader (physics/common/sides.hpp): each model's
// rules take its kinds, profiles and keys only, and every problem names the
// key with a message that says what the side needs.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <array>
#include <string>

#include "kflow/model/config.hpp"
#include "kflow/model/error.hpp"
#include "sides.hpp"

using Catch::Matchers::ContainsSubstring;
using kflow::sides::Kind;
using kflow::sides::Profile;

namespace {

// The three flow models' rules (mac2d, vorticity2d, split3d).
kflow::sides::Rules mac2d_rules() {
  kflow::sides::Rules r;
  r.kinds = {Kind::no_slip, Kind::free_slip, Kind::moving_wall,
             Kind::inflow,  Kind::outflow,   Kind::periodic};
  r.profiles = {Profile::uniform, Profile::parabolic, Profile::table};
  r.inflow_tangential = true;
  return r;
}
kflow::sides::Rules vorticity2d_rules() {
  kflow::sides::Rules r;
  r.kinds = {Kind::no_slip, Kind::moving_wall, Kind::inflow, Kind::outflow};
  r.profiles = {Profile::uniform, Profile::parabolic};
  r.thermal = r.outflow_adiabatic = r.inflow_adiabatic = true;
  return r;
}
kflow::sides::Rules split3d_rules() {
  kflow::sides::Rules r;
  r.kinds = {Kind::no_slip, Kind::moving_wall, Kind::inflow, Kind::outflow, Kind::periodic};
  r.profiles = {Profile::uniform, Profile::duct, Profile::parabolic};
  r.peak_key = "centre_velocity";
  r.inflow_positive = true;
  r.thermal = true;
  r.initial_temperature = 1.5;
  return r;
}

// A box: 2D [0, 2] x [0, 1], or 3D [0, 2] x [0, 1] x [0, 1].
kflow::linalg::Grid box(int dim) {
  kflow::linalg::Grid g;
  g.dim = dim;
  g.length = {2, 1, 1};
  return g;
}

// Reads side (axis, high) of [boundary] `side_text`, then checks the case
// for unknown keys and recorded problems: the side, or the error's text.
struct Read {
  kflow::sides::Side side;
  std::string error;
};
Read read(const std::string& side_text, int axis, int high, const kflow::sides::Rules& rules,
          int dim = 2) {
  Read r;
  try {
    auto c = kflow::Config::parse("[boundary]\n" + side_text + "\n", "t.toml");
    r.side = kflow::sides::read(c.section("boundary"), axis, high, box(dim), rules);
    c.check_unknown();
  } catch (const kflow::Error& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace

TEST_CASE("sides: kinds, defaults and the model's list of kinds", "[unit]") {
  CHECK(read("", 0, 0, mac2d_rules()).side.kind == Kind::no_slip);
  CHECK(read("west = \"free_slip\"", 0, 0, mac2d_rules()).side.kind == Kind::free_slip);
  const auto periodic = read("top = \"periodic\"", 2, 1, split3d_rules(), 3);
  CHECK(periodic.side.kind == Kind::periodic);
  CHECK(periodic.side.temperature == 1.5);
  // A kind the model does not take: its list, in the model's order.
  CHECK_THAT(read("east = \"periodic\"", 0, 1, vorticity2d_rules()).error,
             ContainsSubstring("key 'boundary.east': expected one of no_slip, moving_wall, "
                               "inflow, outflow, got \"periodic\""));
  CHECK_THAT(read("east = { type = \"free_slp\" }", 0, 1, mac2d_rules()).error,
             ContainsSubstring("did you mean \"free_slip\""));
}

TEST_CASE("sides: a moving wall's velocity, 2D along the side and 3D in its plane", "[unit]") {
  const auto lid = read("north = { type = \"moving_wall\", velocity = 2.5 }", 1, 1, mac2d_rules());
  CHECK(lid.error.empty());
  CHECK(lid.side.kind == Kind::moving_wall);
  CHECK(lid.side.tangential == 2.5);
  CHECK_THAT(read("north = { type = \"moving_wall\" }", 1, 1, mac2d_rules()).error,
             ContainsSubstring("velocity = U } (the wall's x velocity)"));
  CHECK_THAT(read("west = { type = \"moving_wall\" }", 0, 0, vorticity2d_rules()).error,
             ContainsSubstring("(the wall's y velocity)"));
  const auto top = read("top = { type = \"moving_wall\", velocity = [1.0, 0.5, 0.0] }", 2, 1,
                        split3d_rules(), 3);
  CHECK(top.side.velocity == std::array<double, 3>{1.0, 0.5, 0.0});
  CHECK_THAT(
      read("top = { type = \"moving_wall\", velocity = [1.0, 0.0, 0.5] }", 2, 1, split3d_rules(), 3)
          .error,
      ContainsSubstring("boundary.top.velocity': a wall moves along itself: its normal "
                        "component (w = 0.5) must be 0"));
}

TEST_CASE("sides: an inflow's profile, range and velocity", "[unit]") {
  const auto in = read(
      "west = { type = \"inflow\", profile = \"parabolic\", max_velocity = 0.3, "
      "range = [0.25, 0.75], tangential_velocity = 0.1 }",
      0, 0, mac2d_rules());
  CHECK(in.error.empty());
  CHECK(in.side.profile == Profile::parabolic);
  CHECK(in.side.normal == 0.3);
  CHECK(in.side.lo == 0.25);
  CHECK(in.side.hi == 0.75);
  CHECK(in.side.tangential == 0.1);
  // The range defaults to the side; south's runs along x over [0, 2].
  const auto south = read("south = { type = \"inflow\", velocity = -1.0 }", 1, 0, mac2d_rules());
  CHECK(south.side.normal == -1.0);
  CHECK(south.side.hi == 2.0);
  CHECK_THAT(read("south = { type = \"inflow\", velocity = 1.0, range = [1.0, 3.0] }", 1, 0,
                  vorticity2d_rules())
                 .error,
             ContainsSubstring("boundary.south.range': expected [lo, hi] with 0 <= lo < hi <= 2 "
                               "(the extent of the south side)"));
  CHECK_THAT(
      read("west = { type = \"inflow\", profile = \"parabolic\" }", 0, 0, mac2d_rules()).error,
      ContainsSubstring("an inflow with profile \"parabolic\" needs max_velocity = U"));
  // Keys the model does not take are unknown: vorticity2d's inflow has no
  // tangential velocity, split3d's none of range.
  CHECK_THAT(read("west = { type = \"inflow\", velocity = 1.0, tangential_velocity = 0.1 }", 0, 0,
                  vorticity2d_rules())
                 .error,
             ContainsSubstring("boundary.west.tangential_velocity': unknown key"));
  CHECK_THAT(read("west = { type = \"inflow\", velocity = 1.0, range = [0.0, 1.0] }", 0, 0,
                  split3d_rules(), 3)
                 .error,
             ContainsSubstring("boundary.west.range': unknown key"));
  // split3d: a speed > 0, or a profile's centre velocity.
  const auto duct = read("east = { type = \"inflow\", profile = \"duct\", centre_velocity = 2.0 }",
                         0, 1, split3d_rules(), 3);
  CHECK(duct.side.profile == Profile::duct);
  CHECK(duct.side.normal == 2.0);
  CHECK_THAT(read("east = { type = \"inflow\", velocity = -1.0 }", 0, 1, split3d_rules(), 3).error,
             ContainsSubstring("boundary.east.velocity': expected a number > 0"));
  CHECK_THAT(
      read("east = { type = \"inflow\", profile = \"table\" }", 0, 1, split3d_rules(), 3).error,
      ContainsSubstring("expected one of uniform, duct, parabolic"));
}

TEST_CASE("sides: an inflow's table of points along the side", "[unit]") {
  const auto t = read(
      "west = { type = \"inflow\", profile = \"table\", s = [0.0, 0.5, 1.0], u = [0.0, 1.0, 0.0] }",
      0, 0, mac2d_rules());
  CHECK(t.error.empty());
  CHECK(t.side.table_s.size() == 3);
  CHECK_THAT(read("west = { type = \"inflow\", profile = \"table\", s = [0.0, 1.0], u = [1.0] }", 0,
                  0, mac2d_rules())
                 .error,
             ContainsSubstring("boundary.west.u"));
  CHECK_THAT(read("west = { type = \"inflow\", profile = \"table\", s = [0.5, 0.5], "
                  "u = [1.0, 1.0] }",
                  0, 0, mac2d_rules())
                 .error,
             ContainsSubstring("boundary.west.s': expected increasing positions"));
}

TEST_CASE("sides: the thermal keys, where the model carries a temperature", "[unit]") {
  const auto hot =
      read("west = { type = \"no_slip\", temperature = 0.5 }", 0, 0, vorticity2d_rules());
  CHECK(hot.side.fixed);
  CHECK(hot.side.temperature == 0.5);
  CHECK(read("north = { type = \"outflow\", adiabatic = true }", 1, 1, vorticity2d_rules())
            .error.empty());
  CHECK_THAT(
      read("north = { type = \"outflow\", temperature = 1.0 }", 1, 1, vorticity2d_rules()).error,
      ContainsSubstring("boundary.north.temperature': an outflow side carries the "
                        "temperature out (zero normal gradient); it takes no fixed "
                        "temperature"));
  CHECK_THAT(
      read("east = { type = \"outflow\", adiabatic = true }", 0, 1, split3d_rules(), 3).error,
      ContainsSubstring("boundary.east.adiabatic'"));
  CHECK_THAT(
      read("east = { type = \"outflow\", adiabatic = true }", 0, 1, split3d_rules(), 3).error,
      ContainsSubstring("takes no thermal condition"));
  CHECK_THAT(read("east = { temperature = 1.0, adiabatic = true }", 0, 1, split3d_rules(), 3).error,
             ContainsSubstring("give either temperature (fixed) or adiabatic = true, not both"));
  CHECK_THAT(read("west = { type = \"inflow\", velocity = 1.0, adiabatic = true }", 0, 0,
                  split3d_rules(), 3)
                 .error,
             ContainsSubstring("an inflow carries a fixed temperature"));
  CHECK_THAT(read("west = { adiabatic = false }", 0, 0, vorticity2d_rules()).error,
             ContainsSubstring("boundary.west.adiabatic': expected true"));
  // mac2d carries no temperature: the keys are unknown.
  CHECK_THAT(read("west = { type = \"no_slip\", temperature = 1.0 }", 0, 0, mac2d_rules()).error,
             ContainsSubstring("boundary.west.temperature': unknown key"));
  // split3d: a wall's temperature defaults to the initial one.
  const auto wall = read("west = \"no_slip\"", 0, 0, split3d_rules(), 3);
  CHECK(!wall.side.fixed);
  CHECK(wall.side.temperature == 1.5);
}
