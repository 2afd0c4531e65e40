// physics/common: the sides of a flow model's box as the case gives them
// (sides.hpp).

#include "sides.hpp"

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <utility>

#include "kflow/model/case_grid.hpp"
#include "kflow/model/number_text.hpp"

namespace kflow::sides {

namespace {

// The words of the case files, in one table each.
const std::pair<const char*, Kind> kind_names[] = {
    {"no_slip", Kind::no_slip}, {"free_slip", Kind::free_slip}, {"moving_wall", Kind::moving_wall},
    {"inflow", Kind::inflow},   {"outflow", Kind::outflow},     {"periodic", Kind::periodic}};
const std::pair<const char*, Profile> profile_names[] = {{"uniform", Profile::uniform},
                                                         {"parabolic", Profile::parabolic},
                                                         {"duct", Profile::duct},
                                                         {"table", Profile::table}};

template <class E, std::size_t N>
const char* name_of(const std::pair<const char*, E> (&names)[N], E value) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return "";
}

void read_moving_wall(Side& b, const Config::Section& bs, const std::string& key, int axis,
                      int dim) {
  const auto t = bs.section(key);
  if (dim == 2) {
    if (!t.has("velocity"))
      bs.fail(key, "a moving_wall needs { type = \"moving_wall\", velocity = U } (the wall's " +
                       std::string(axis == 1 ? "x" : "y") + " velocity)");
    b.tangential = t.get("velocity", 0.0);
    return;
  }
  if (!t.has("velocity"))
    bs.fail(key, "a moving_wall needs { type = \"moving_wall\", velocity = [u, v, w] }");
  const auto v = t.get_numbers("velocity", 3, 3, {0, 0, 0});
  if (v[std::size_t(axis)] != 0)
    t.fail("velocity", "a wall moves along itself: its normal component (" +
                           std::string(1, "uvw"[axis]) + " = " + number_text(v[std::size_t(axis)]) +
                           ") must be 0");
  b.velocity = {v[0], v[1], v[2]};
}

// 2D: the inflow's range [lo, hi] along the side, inside the side.
void read_range(Side& b, const Config::Section& t, const std::string& key, int axis,
                const linalg::Grid& domain) {
  const int along = 1 - axis;
  const double s0 = domain.origin[along], s1 = s0 + domain.length[along];
  const auto range = t.get_numbers("range", 2, 2, {s0, s1});
  b.lo = range[0], b.hi = range[1];
  if (!(b.lo < b.hi) || b.lo < s0 - 1e-12 * std::fabs(s1) || b.hi > s1 + 1e-12 * std::fabs(s1))
    t.fail("range", "expected [lo, hi] with " + number_text(s0) + " <= lo < hi <= " +
                        number_text(s1) + " (the extent of the " + key + " side)");
}

void read_inflow(Side& b, const Config::Section& bs, const std::string& key, int axis,
                 const linalg::Grid& domain, const Rules& rules) {
  const auto t = bs.section(key);
  std::vector<std::pair<std::string, Profile>> profiles;
  for (const Profile p : rules.profiles) profiles.emplace_back(name_of(profile_names, p), p);
  b.profile = t.get_enum("profile", profiles, Profile::uniform);
  if (rules.inflow_tangential) b.tangential = t.get("tangential_velocity", 0.0);
  if (domain.dim == 2) read_range(b, t, key, axis, domain);
  if (b.profile == Profile::table) {
    b.table_s = t.get_numbers("s", 2, 1u << 20, {});
    b.table_u = t.get_numbers("u", 2, 1u << 20, {});
    if (b.table_s.empty() || b.table_u.size() != b.table_s.size())
      t.fail("u",
             "profile = \"table\" needs arrays s (positions along the side) and u "
             "(inflow velocity) of the same length, at least 2 points");
    for (std::size_t k = 1; k < b.table_s.size(); ++k)
      if (!(b.table_s[k] > b.table_s[k - 1])) t.fail("s", "expected increasing positions");
    return;
  }
  const bool uniform = b.profile == Profile::uniform;
  const std::string vkey = uniform ? "velocity" : rules.peak_key;
  if (!t.has(vkey))
    bs.fail(key, "an inflow with profile \"" + std::string(name_of(profile_names, b.profile)) +
                     "\" needs " + vkey + " = U (" +
                     (uniform ? "the velocity into the domain"
                              : "the profile's peak velocity into the domain, on its centre "
                                "line") +
                     (rules.inflow_positive ? ", > 0" : "; negative: a prescribed outflow") + ")");
  b.normal = rules.inflow_positive ? t.get(vkey, 1.0, Range::positive()) : t.get(vkey, 0.0);
}

// temperature = T or adiabatic = true, where the side takes them.
void read_thermal(Side& b, const Config::Section& t, const Rules& rules) {
  const bool fixed = t.has("temperature"), adiabatic = t.has("adiabatic");
  if (b.kind == Kind::outflow && (fixed || (adiabatic && !rules.outflow_adiabatic)))
    t.fail(fixed ? "temperature" : "adiabatic",
           std::string("an outflow side carries the temperature out (zero normal gradient); it "
                       "takes no ") +
               (rules.outflow_adiabatic ? "fixed temperature" : "thermal condition"));
  if (fixed && adiabatic)
    t.fail("adiabatic", "give either temperature (fixed) or adiabatic = true, not both");
  if (adiabatic) {
    if (b.kind == Kind::inflow && !rules.inflow_adiabatic)
      t.fail("adiabatic",
             "an inflow carries a fixed temperature (temperature = T; default: "
             "initial.temperature)");
    if (!t.get_bool("adiabatic", true))
      t.fail("adiabatic", "expected true (or give temperature = T for a fixed temperature)");
  }
  if (fixed) b.temperature = t.get("temperature", rules.initial_temperature);
  b.fixed = fixed, b.adiabatic = adiabatic;
}

}  // namespace

Side read(const Config::Section& boundary, int axis, int high, const linalg::Grid& domain,
          const Rules& rules) {
  const std::string key = side_names[axis][high];
  // (get_kind reads a word or a table's type: each word maps to its Kind)
  std::vector<std::string> words;
  for (const Kind k : rules.kinds) words.push_back(name_of(kind_names, k));
  const std::string word = boundary.get_kind(key, words, "no_slip");
  Side b;
  for (const Kind k : rules.kinds)
    if (word == name_of(kind_names, k)) b.kind = k;
  b.temperature = rules.initial_temperature;
  if (b.kind == Kind::periodic) return b;
  if (b.kind == Kind::moving_wall) read_moving_wall(b, boundary, key, axis, domain.dim);
  if (b.kind == Kind::inflow) read_inflow(b, boundary, key, axis, domain, rules);
  if (rules.thermal) read_thermal(b, boundary.section(key), rules);
  return b;
}

}  // namespace kflow::sides
