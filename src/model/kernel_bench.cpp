// Kernel benchmarks' parameters (kflow/model/kernel_bench.hpp): the --set
// values, read and checked by type.
#include "kflow/model/kernel_bench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kflow/model/config.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/printable.hpp"

namespace kflow {

BenchParams::BenchParams(const std::vector<std::string>& sets) {
  for (const auto& kv : sets) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("bench: --set expects KEY=VALUE, got '" + kv + "'");
    auto value = kv.substr(eq + 1);
    // Accept TOML-style quoting and lists: "thomas", [512, 256].
    value.erase(std::remove_if(value.begin(), value.end(),
                               [](char c) { return c == '"' || c == '[' || c == ']' || c == ' '; }),
                value.end());
    values_[kv.substr(0, eq)] = value;
  }
}

const std::string* BenchParams::raw(const std::string& key) const {
  used_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

namespace {
[[noreturn]] void bad_param(const std::string& key, const std::string& value,
                            const std::string& expected) {
  throw Error("bench: --set " + printable(key, 60) + "=" + printable(value, 60) + ": expected " +
              expected);
}

// An integer (or b^k) in [min_value, max_value]; a value beyond a long
// (stol's out_of_range, b^k that overflows) is out of range, not wrapped.
long to_long(const std::string& key, const std::string& text, long min_value, long max_value) {
  const std::string range =
      "an integer (or 2^k) from " + std::to_string(min_value) + " to " + std::to_string(max_value);
  std::size_t pos = 0;
  long v = 0;
  bool too_big = false;
  try {
    // Accept 2^k as well as plain integers.
    const auto caret = text.find('^');
    if (caret != std::string::npos) {
      const long base = std::stol(text.substr(0, caret), &pos);
      if (pos != caret) throw 0;
      const long e = std::stol(text.substr(caret + 1), &pos);
      if (pos != text.size() - caret - 1 || e < 0 || e > 62) throw 0;
      v = 1;
      for (long k = 0; k < e && !too_big; ++k) too_big = __builtin_mul_overflow(v, base, &v);
      pos = text.size();
    } else {
      v = std::stol(text, &pos);
    }
  } catch (const std::out_of_range&) {
    too_big = true;
    pos = text.size();
  } catch (...) {
    pos = 0;
  }
  if (text.empty() || pos != text.size()) bad_param(key, text, range);
  if (too_big || v < min_value || v > max_value) bad_param(key, text, range);
  return v;
}
}  // namespace

// Every integer parameter at most INT_MAX: benchmarks keep counts in int.
constexpr long most_param = std::numeric_limits<int>::max();

long BenchParams::get_int(const std::string& key, long fallback, long min_value) const {
  const auto* v = raw(key);
  return v ? to_long(key, *v, min_value, most_param) : fallback;
}

double BenchParams::get_double(const std::string& key, double fallback) const {
  const auto* v = raw(key);
  if (!v) return fallback;
  std::size_t pos = 0;
  double d = 0;
  try {
    d = std::stod(*v, &pos);
  } catch (...) {
    pos = 0;
  }
  if (v->empty() || pos != v->size() || !std::isfinite(d)) bad_param(key, *v, "a number");
  return d;
}

std::string BenchParams::get_choice(const std::string& key, const std::string& fallback,
                                    const std::vector<std::string>& choices) const {
  const auto* v = raw(key);
  if (!v) return fallback;
  if (std::find(choices.begin(), choices.end(), *v) == choices.end()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    bad_param(key, *v, "one of " + list);
  }
  return *v;
}

std::vector<std::string> BenchParams::get_choices(const std::string& key,
                                                  const std::string& fallback,
                                                  const std::vector<std::string>& choices) const {
  const auto* v = raw(key);
  const std::string text = v ? *v : fallback;
  if (text == "all") return choices;
  std::vector<std::string> r;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (std::find(choices.begin(), choices.end(), item) == choices.end()) {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      bad_param(key, text, "a comma-separated list of " + list + " (or all)");
    }
    r.push_back(item);
  }
  if (r.empty()) bad_param(key, text, "at least one entry");
  return r;
}

std::vector<long> BenchParams::get_ints(const std::string& key, const std::vector<long>& fallback,
                                        long min_value) const {
  const auto* v = raw(key);
  if (!v) return fallback;
  std::vector<long> r;
  std::stringstream in(*v);
  std::string item;
  while (std::getline(in, item, ',')) r.push_back(to_long(key, item, min_value, most_param));
  if (r.empty()) bad_param(key, *v, "a comma-separated list of integers");
  return r;
}

void BenchParams::check_unknown(const std::string& bench) const {
  std::vector<std::string> known(used_.begin(), used_.end());
  for (const auto& [key, value] : values_)
    if (!used_.count(key)) {
      const auto guess = closest(key, known);
      throw Error("bench " + bench + ": unknown parameter --set " + printable(key, 60) + "=" +
                  printable(value, 60) +
                  (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                  "; 'kflow bench --help' lists each benchmark's parameters");
    }
}

}  // namespace kflow
