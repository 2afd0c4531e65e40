#pragma once
// One reader for the sides of a flow model's box ([boundary] west, east,
// ..., through kflow::parse_sides): a wall at rest (no_slip, free_slip), a
// moving wall, an inflow, an outflow, a periodic side, and the thermal keys
// of a model that carries a temperature.  Each model says which of these it
// takes (Rules) and maps the side as read (Side) to its own boundary struct;
// the checks (a moving wall's velocity, an inflow's profile, range and
// velocity, the thermal keys) and their messages are the same for every
// model.  A key a model does not take is never asked for, so the case's
// check reports it as unknown.

#include <array>
#include <vector>

#include "kflow/linalg/grid.hpp"
#include "kflow/model/config.hpp"

namespace kflow::sides {

enum class Kind { no_slip, free_slip, moving_wall, inflow, outflow, periodic };
// An inflow's profile of the velocity into the domain: uniform; a parabola
// (2D: over its range; 3D: over the side's rectangle); the duct's developed
// profile (3D); a table of points along the side (2D).
enum class Profile { uniform, parabolic, duct, table };

// What a model takes.  The lists name the kinds and profiles in the order
// the messages list them; the first kind is no_slip, the default.
struct Rules {
  std::vector<Kind> kinds;
  std::vector<Profile> profiles{Profile::uniform};
  // The key of a non-uniform profile's peak velocity (its value on the
  // centre line): "max_velocity" or (split3d) "centre_velocity".
  const char* peak_key = "max_velocity";
  // An inflow's velocity is a speed > 0 into the domain; otherwise any sign
  // (a negative one is a prescribed outflow).
  bool inflow_positive = false;
  // An inflow also takes tangential_velocity (mac2d).
  bool inflow_tangential = false;
  // The thermal keys, on every side but a periodic one: temperature = T (a
  // fixed temperature) or adiabatic = true (zero heat flux).
  bool thermal = false;
  // An outflow side may say adiabatic = true (its zero normal gradient of T
  // is that); otherwise it takes no thermal key.
  bool outflow_adiabatic = false;
  // An inflow may be adiabatic; otherwise it carries a fixed temperature.
  bool inflow_adiabatic = false;
  // The temperature of a side that gives none (Side::temperature): the
  // case's initial.temperature, where sides default to it (split3d).
  double initial_temperature = 0;
};

// A side as the case gives it.  In 2D a side is a segment: a moving wall's
// velocity is a number along it and an inflow covers [lo, hi] of it (key
// range); in 3D a side is a rectangle: a moving wall's velocity is
// [u, v, w] (its normal component 0) and an inflow covers all of it.
struct Side {
  Kind kind = Kind::no_slip;
  // 2D moving wall: its velocity along the side; inflow: tangential_velocity
  double tangential = 0;
  std::array<double, 3> velocity{0, 0, 0};  // 3D moving wall
  // inflow: the velocity into the domain (uniform) or the profile's peak
  // (parabolic, duct); a table's points (s along the side, u into the domain).
  Profile profile = Profile::uniform;
  double normal = 0;
  double lo = 0, hi = 0;  // 2D inflow: its range along the side
  std::vector<double> table_s, table_u;
  // thermal: the keys given (both is an error), the temperature
  // (Rules::initial_temperature where none is given).
  bool fixed = false, adiabatic = false;
  double temperature = 0;
};

// Reads side `high` (0 low, 1 high) of `axis` from the [boundary] section
// `boundary`: what parse_sides' callback does for a flow model.  `domain` is
// the case's box (its dim says 2D or 3D; its extent along a 2D side bounds
// an inflow's range).  Problems are recorded or thrown as Config::Section's
// readers do, so a case's check reports them with the rest.
Side read(const Config::Section& boundary, int axis, int high, const linalg::Grid& domain,
          const Rules& rules);

}  // namespace kflow::sides
