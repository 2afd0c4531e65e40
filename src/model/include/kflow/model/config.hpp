#pragma once
// Case files: TOML loading, --set overrides and strict validation.
//
// Every key a model or the core may read is asked for through Config; each
// request registers the key as known.  After every reader has run,
// check_unknown() reports any key in the file that nobody asked for, with a
// "did you mean".  All errors name the file and line (or the --set argument),
// the key, the value found and what was expected.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace toml {
inline namespace v3 {
class table;
class node;
}  // namespace v3
}  // namespace toml

namespace kflow {

// The values a number key accepts, written as a user reads them:
//   s.get("tolerance", 1e-6, Range::at_least(0))      // >= 0
//   s.require("reynolds", Range::positive())           // > 0
//   s.get("gamma", 0.9, Range::between(0, 1))          // [0, 1]
//   s.get("omega", 1.7, Range::positive().at_most(2))  // (0, 2]
// An end that is not given is unbounded (infinite); messages print the range
// ("expected a number > 0", "expected a number in [0, 1]").
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  static Range any() { return {}; }
  static Range positive() { return above(0); }
  static Range at_least(double a) { return {a, std::numeric_limits<double>::infinity(), false}; }
  static Range above(double a) { return {a, std::numeric_limits<double>::infinity(), true}; }
  static Range between(double a, double b) { return {a, b, false}; }
  Range at_most(double b) const { return {min, b, min_open}; }
  bool contains(double v) const { return v >= min && v <= max && !(min_open && v == min); }
  std::string text() const;  // "a number > 0", "a number in (0, 2]", ...
};

class Config {
 public:
  // Parses `path` and applies `overrides` ("key=value", value in TOML syntax,
  // or a bare word taken as a string).  Throws kflow::Error.
  static Config load(const std::string& path, const std::vector<std::string>& overrides = {});
  // Parses TOML text; `name` stands for the file name in messages.
  static Config parse(const std::string& text, const std::string& name,
                      const std::vector<std::string>& overrides = {});

  Config(Config&&) noexcept;
  Config& operator=(Config&&) noexcept;
  ~Config();

  const std::string& path() const { return path_; }
  // Directory of the case file; relative paths in the case resolve against it.
  std::string directory() const;

  // A view of a table: "", "time", "output.lines[2]" ...
  class Section {
   public:
    Section(Config& c, std::string prefix) : c_(&c), prefix_(std::move(prefix)) {}
    Section section(const std::string& key) const { return Section(*c_, join(key)); }

    bool has(const std::string& key) const;
    // A number in `range` (Range below); `fallback` when the key is absent.
    double get(const std::string& key, double fallback, Range range = Range::any()) const;
    double require(const std::string& key, Range range = Range::any()) const;
    std::int64_t get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                         std::int64_t max) const;
    std::int64_t require_int(const std::string& key, std::int64_t min, std::int64_t max) const;
    // require_string: a missing key or another type is recorded (reported
    // with the rest by check_unknown) and "" returned.
    bool get_bool(const std::string& key, bool fallback) const;
    std::string get_string(const std::string& key, const std::string& fallback) const;
    std::string require_string(const std::string& key) const;
    // One of `choices`; "did you mean" on a near miss.
    std::string get_choice(const std::string& key, const std::vector<std::string>& choices,
                           const std::string& fallback) const;
    // get_choice into an enum through one table of (name, value):
    //   auto t = s.get_enum("type", {{"rest", Initial::rest}, {"taylor_green",
    //                                 Initial::taylor_green}}, Initial::rest);
    template <class E>
    E get_enum(const std::string& key, const std::vector<std::pair<std::string, E>>& table,
               E fallback) const {
      std::vector<std::string> names;
      std::string fallback_name;
      for (const auto& [name, value] : table) {
        names.push_back(name);
        if (value == fallback) fallback_name = name;
      }
      const auto chosen = get_choice(key, names, fallback_name);
      for (const auto& [name, value] : table)
        if (name == chosen) return value;
      return fallback;
    }
    std::vector<double> get_numbers(const std::string& key, std::size_t min_size,
                                    std::size_t max_size, std::vector<double> fallback) const;
    std::vector<std::int64_t> get_ints(const std::string& key, std::size_t min_size,
                                       std::size_t max_size, std::int64_t min, std::int64_t max,
                                       std::vector<std::int64_t> fallback) const;
    std::vector<std::string> get_strings(const std::string& key,
                                         std::vector<std::string> fallback) const;
    // An array of tables: one Section per element ("key[0]", "key[1]", ...).
    std::vector<Section> tables(const std::string& key) const;
    // A key that may be a string ("no_slip") or an inline table
    // ({ type = "moving_wall", ... }): returns the type word and the table
    // section (valid when the value is a table; its "type" key is read).
    std::string get_kind(const std::string& key, const std::vector<std::string>& kinds,
                         const std::string& fallback) const;

    // Throws an error about `key` (for checks that combine several keys),
    // with every problem found before it; only those, where one was about
    // `key` or a key inside it (reported(): a check on fallback values).
    [[noreturn]] void fail(const std::string& key, const std::string& what) const;
    // A problem with `key` that does not stop the reading: recorded (unless
    // one was recorded for the key already) and reported with the rest.
    void problem(const std::string& key, const std::string& what) const;
    // A problem was recorded for `key` or a key inside it ("" in a section:
    // any of its keys): a check that combines those keys is moot (it would
    // see a getter's fallback), and is skipped or dropped.
    bool reported(const std::string& key) const;
    // Records (for check_unknown's report) the keys in this section that no
    // reader asked for, once every reader of the section has run: for a
    // reader that stops the case early (fail, throw_problems), so that its
    // unknown keys are reported with its other problems.
    void report_unknown() const;
    std::string where(const std::string& key) const;
    std::string full(const std::string& key) const { return join(key); }

   private:
    std::string join(const std::string& key) const {
      return prefix_.empty() ? key : key.empty() ? prefix_ : prefix_ + "." + key;
    }
    Config* c_;
    std::string prefix_;
  };

  Section root() { return Section(*this, ""); }
  Section section(const std::string& key) { return Section(*this, key); }

  // Reports keys in the file that no reader asked for, and every problem
  // the readers found: a wrong type, range or choice, or a missing number,
  // is recorded and the reader goes on with the fallback, so one check
  // reports them all.  Throws kflow::Error (one line per problem).
  void check_unknown() const;
  // Throws the problems recorded so far, if any (where the reading cannot go
  // on: a case without a model).
  void throw_problems() const;

  // The configuration as run (after overrides), as TOML and as JSON.
  std::string to_toml() const;
  std::string to_json() const;

 private:
  Config();
  friend class Section;
  const toml::node* find(const std::string& key) const;
  std::string where_of(const std::string& key) const;
  [[noreturn]] void fail_at(const std::string& key, const std::string& what) const;
  std::string message_at(const std::string& key, const std::string& what) const;
  void record_at(const std::string& key, const std::string& what) const;  // and go on
  bool reported(const std::string& key) const;
  void record_unknown(const std::string& under) const;  // "": every key
  [[noreturn]] void throw_all(const std::string& key, const std::string& last) const;
  void apply_override(const std::string& assignment);

  std::string path_;
  std::unique_ptr<toml::table> table_;
  std::map<std::string, std::string> overridden_;  // key -> the --set argument
  mutable std::set<std::string> known_;            // keys some reader asked for
  // (key, message) recorded by readers, reported together
  mutable std::vector<std::pair<std::string, std::string>> problems_;
};

// Closest of `candidates` to `word` by edit distance, or "" when none is close.
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace kflow
