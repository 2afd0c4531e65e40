// Config::Section: the typed reads of one table of a case (numbers with a
// Range, integers, booleans, strings, choices, arrays, tables), each problem
// recorded with the key and value and read on with the fallback.
#include <toml++/toml.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "config_text.hpp"
#include "kflow/model/config.hpp"

namespace kflow {

using detail::describe;
using detail::join_list;

std::string Range::text() const {
  std::ostringstream s;
  const bool low = std::isfinite(min), high = std::isfinite(max);
  if (low && high)
    s << "a number in " << (min_open ? "(" : "[") << min << ", " << max << "]";
  else if (low)
    s << "a number " << (min_open ? "> " : ">= ") << min;
  else if (high)
    s << "a number <= " << max;
  else
    s << "a number";
  return s.str();
}

bool Config::Section::has(const std::string& key) const {
  return c_->find(join(key)) != nullptr;
}

std::string Config::Section::where(const std::string& key) const {
  return c_->where_of(join(key));
}

void Config::Section::fail(const std::string& key, const std::string& what) const {
  c_->fail_at(join(key), what);
}

void Config::Section::problem(const std::string& key, const std::string& what) const {
  if (!c_->reported(join(key))) c_->record_at(join(key), what);
}

void Config::Section::report_unknown() const {
  c_->record_unknown(prefix_);
}

bool Config::Section::reported(const std::string& key) const {
  return c_->reported(join(key));
}

// A problem with one key's value: recorded (check_unknown reports it with the
// rest) and the reader goes on with `fallback`.
#define KFLOW_SOFT(key, what, fallback) \
  do {                                  \
    c_->record_at(join(key), what);     \
    return fallback;                    \
  } while (0)

double Config::Section::get(const std::string& key, double fallback, Range range) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  const std::string expect = range.text();
  double v;
  if (auto* f = n->as_floating_point())
    v = f->get();
  else if (auto* i = n->as_integer())
    v = static_cast<double>(i->get());
  else
    KFLOW_SOFT(key, "expected " + expect + ", got " + describe(*n), fallback);
  if (!std::isfinite(v) || !range.contains(v))
    KFLOW_SOFT(key, "expected " + expect + ", got " + describe(*n), fallback);
  // (the runs flush subnormal numbers to zero: such a value is not the one given)
  if (std::fpclassify(v) == FP_SUBNORMAL)
    KFLOW_SOFT(key,
               "got " + describe(*n) +
                   ", a subnormal number (below 2.2e-308 in magnitude), which the run's "
                   "arithmetic flushes to zero; expected " +
                   expect + " of normal magnitude",
               fallback);
  return v;
}

double Config::Section::require(const std::string& key, Range range) const {
  // (a value inside the range to go on with)
  const double inside = std::min(range.max, std::max(range.min, 1.0)) +
                        (range.min_open && range.min >= 1.0 ? 1.0 : 0.0);
  if (!has(key)) KFLOW_SOFT(key, "missing; expected " + range.text(), inside);
  return get(key, inside, range);
}

std::int64_t Config::Section::get_int(const std::string& key, std::int64_t fallback,
                                      std::int64_t min, std::int64_t max) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  const std::string expect =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  auto* i = n->as_integer();
  if (!i || i->get() < min || i->get() > max)
    KFLOW_SOFT(key, "expected " + expect + ", got " + describe(*n), fallback);
  return i->get();
}

std::int64_t Config::Section::require_int(const std::string& key, std::int64_t min,
                                          std::int64_t max) const {
  if (!has(key))
    KFLOW_SOFT(key,
               "missing; expected an integer in [" + std::to_string(min) + ", " +
                   std::to_string(max) + "]",
               min);
  return get_int(key, min, min, max);
}

bool Config::Section::get_bool(const std::string& key, bool fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  if (auto* b = n->as_boolean()) return b->get();
  KFLOW_SOFT(key, "expected true or false, got " + describe(*n), fallback);
}

std::string Config::Section::get_string(const std::string& key, const std::string& fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  if (auto* s = n->as_string()) return s->get();
  KFLOW_SOFT(key, "expected a string, got " + describe(*n), fallback);
}

std::string Config::Section::require_string(const std::string& key) const {
  if (!has(key)) KFLOW_SOFT(key, "missing; expected a string", "");
  const auto* n = c_->find(join(key));
  if (auto* s = n->as_string()) return s->get();
  KFLOW_SOFT(key, "expected a string, got " + describe(*n), "");
}

std::string Config::Section::get_choice(const std::string& key,
                                        const std::vector<std::string>& choices,
                                        const std::string& fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  const auto* s = n->as_string();
  if (s && std::find(choices.begin(), choices.end(), s->get()) != choices.end()) return s->get();
  std::string msg = "expected one of " + join_list(choices) + ", got " + describe(*n);
  if (s) {
    const auto guess = closest(s->get(), choices);
    if (!guess.empty()) msg += " (did you mean \"" + guess + "\"?)";
  }
  KFLOW_SOFT(key, msg, fallback);
}

// Arrays: a fallback of an allowed size lets the reader go on; otherwise stop.
std::vector<double> Config::Section::get_numbers(const std::string& key, std::size_t min_size,
                                                 std::size_t max_size,
                                                 std::vector<double> fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  const bool go_on = fallback.size() >= min_size && fallback.size() <= max_size;
  auto problem = [&](const std::string& what) {
    if (!go_on) fail(key, what);
    c_->record_at(join(key), what);
  };
  const std::string expect = min_size == max_size
                                 ? "an array of " + std::to_string(min_size) + " numbers"
                                 : "an array of " + std::to_string(min_size) + " to " +
                                       std::to_string(max_size) + " numbers";
  const auto* a = n->as_array();
  if (!a || a->size() < min_size || a->size() > max_size) {
    problem("expected " + expect + ", got " + describe(*n));
    return fallback;
  }
  std::vector<double> r;
  for (auto&& e : *a) {
    if (auto* f = e.as_floating_point())
      r.push_back(f->get());
    else if (auto* i = e.as_integer())
      r.push_back(static_cast<double>(i->get()));
    else {
      problem("expected " + expect + ", got an element " + describe(e));
      return fallback;
    }
    if (!std::isfinite(r.back())) {
      problem("expected finite numbers, got " + describe(e));
      return fallback;
    }
  }
  return r;
}

std::vector<std::int64_t> Config::Section::get_ints(const std::string& key, std::size_t min_size,
                                                    std::size_t max_size, std::int64_t min,
                                                    std::int64_t max,
                                                    std::vector<std::int64_t> fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  const bool go_on = fallback.size() >= min_size && fallback.size() <= max_size;
  auto problem = [&](const std::string& what) {
    if (!go_on) fail(key, what);
    c_->record_at(join(key), what);
  };
  const std::string expect =
      (min_size == max_size
           ? "an array of " + std::to_string(min_size)
           : "an array of " + std::to_string(min_size) + " to " + std::to_string(max_size)) +
      " integers in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  const auto* a = n->as_array();
  if (!a || a->size() < min_size || a->size() > max_size) {
    problem("expected " + expect + ", got " + describe(*n));
    return fallback;
  }
  std::vector<std::int64_t> r;
  for (auto&& e : *a) {
    auto* i = e.as_integer();
    if (!i || i->get() < min || i->get() > max) {
      problem("expected " + expect + ", got an element " + describe(e));
      return fallback;
    }
    r.push_back(i->get());
  }
  return r;
}

std::vector<std::string> Config::Section::get_strings(const std::string& key,
                                                      std::vector<std::string> fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  const auto* a = n->as_array();
  if (!a) fail(key, "expected an array of strings, got " + describe(*n));
  std::vector<std::string> r;
  for (auto&& e : *a) {
    auto* s = e.as_string();
    if (!s) fail(key, "expected an array of strings, got an element " + describe(e));
    r.push_back(s->get());
  }
  return r;
}

std::vector<Config::Section> Config::Section::tables(const std::string& key) const {
  const auto* n = c_->find(join(key));
  std::vector<Section> r;
  if (!n) return r;
  const auto* a = n->as_array();
  if (!a) fail(key, "expected an array of tables, got " + describe(*n));
  for (std::size_t i = 0; i < a->size(); ++i) {
    if (!a->get(i)->is_table())
      fail(key, "expected an array of tables, got an element " + describe(*a->get(i)));
    r.emplace_back(*c_, join(key) + "[" + std::to_string(i) + "]");
  }
  return r;
}

std::string Config::Section::get_kind(const std::string& key, const std::vector<std::string>& kinds,
                                      const std::string& fallback) const {
  const auto* n = c_->find(join(key));
  if (!n) return fallback;
  if (n->is_table()) return section(key).get_choice("type", kinds, fallback);
  if (n->is_string()) return get_choice(key, kinds, fallback);
  fail(key, "expected a boundary type (one of " + join_list(kinds) +
                ") or a table { type = ..., ... }, got " + describe(*n));
}

#undef KFLOW_SOFT

}  // namespace kflow
