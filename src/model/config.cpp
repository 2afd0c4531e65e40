#include "kflow/model/config.hpp"

#include "config_text.hpp"

#include <toml++/toml.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kflow/model/error.hpp"
#include "kflow/model/input_file.hpp"
#include "kflow/model/printable.hpp"

namespace kflow {

namespace detail {

std::string describe(const toml::node& n) {
  std::ostringstream s;
  switch (n.type()) {
    case toml::node_type::string:
      s << '"' << printable(n.as_string()->get()) << '"';  // (a newline as \n)
      break;
    case toml::node_type::table:
      s << "a table";
      break;
    case toml::node_type::array: {
      // short arrays as written, long ones by their length
      const auto& a = *n.as_array();
      bool plain = a.size() <= 8;
      for (auto&& e : a) plain = plain && !e.is_array() && !e.is_table();
      if (plain) {
        s << "[";
        for (std::size_t k = 0; k < a.size(); ++k) s << (k ? ", " : "") << describe(*a.get(k));
        s << "]";
      } else {
        s << "an array of " << a.size() << " element" << (a.size() == 1 ? "" : "s");
      }
      break;
    }
    default:
      n.visit([&](auto&& v) { s << v; });
  }
  return s.str();
}

std::string join_list(const std::vector<std::string>& v) {
  std::string r;
  for (const auto& s : v) r += (r.empty() ? "" : ", ") + s;
  return r;
}

}  // namespace detail

namespace {

using detail::describe;
using detail::join_list;

std::string parent_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}
std::string leaf_of(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}
// "output.lines[3].name" -> "output.lines[].name": array elements share keys.
std::string generic(const std::string& key) {
  std::string r;
  bool skip = false;
  for (char c : key) {
    if (c == '[') {
      skip = true;
      r += "[]";
    } else if (c == ']') {
      skip = false;
    } else if (!skip) {
      r += c;
    }
  }
  return r;
}

}  // namespace

Config::Config() : table_(std::make_unique<toml::table>()) {}
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;
Config::~Config() = default;

Config Config::load(const std::string& path, const std::vector<std::string>& overrides) {
  Config c;
  c.path_ = path;
  // A case file is a regular, readable file of text (toml++ reads a
  // directory, /dev/null or a FIFO as an empty case, or waits on it).
  if (auto problem = input_file_problem(path, "the case file", max_case_file_bytes);
      !problem.empty()) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
      problem += "; expected a TOML case file";
    else if (std::getenv("KFLOW_ROOT_BINDS"))  // inside tools/in-root.sh's toolchain root
      problem += std::string(" (inside the toolchain root only ") +
                 std::getenv("KFLOW_ROOT_BINDS") +
                 " are shared with the host; tools/kflow shares the directories of the paths "
                 "on its command line)";
    throw Error(problem);
  }
  try {
    *c.table_ = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::ostringstream s;
    if (e.source().begin.line == 0)  // toml++ reports a file it cannot read this way
      s << path << ": cannot read the case file: " << e.description();
    else
      s << path << ":" << e.source().begin.line << ":" << e.source().begin.column
        << ": malformed TOML: " << e.description();
    throw Error(s.str());
  }
  for (const auto& o : overrides) c.apply_override(o);
  return c;
}

Config Config::parse(const std::string& text, const std::string& name,
                     const std::vector<std::string>& overrides) {
  Config c;
  c.path_ = name;
  try {
    *c.table_ = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    std::ostringstream s;
    s << name << ":" << e.source().begin.line << ":" << e.source().begin.column
      << ": malformed TOML: " << e.description();
    throw Error(s.str());
  }
  for (const auto& o : overrides) c.apply_override(o);
  return c;
}

std::string Config::directory() const {
  const auto slash = path_.rfind('/');
  return slash == std::string::npos ? "." : path_.substr(0, slash);
}

void Config::apply_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  const std::string key = eq == std::string::npos ? "" : assignment.substr(0, eq);
  const bool key_ok = !key.empty() && key.find_first_of(" []\"'") == std::string::npos &&
                      key.front() != '.' && key.back() != '.' &&
                      key.find("..") == std::string::npos;
  if (eq == std::string::npos || !key_ok)
    throw Error("--set " + assignment +
                ": expected KEY=VALUE with a dotted key such as time.end=2.5 or "
                "run.backend=openmp");
  const std::string value = assignment.substr(eq + 1);
  if (value.empty()) throw Error("--set " + assignment + ": the value after '=' is empty");
  // The value in TOML syntax (3, 2.5, true, "text", [1, 2]); a bare word that
  // is not valid TOML is taken as a string, so --set run.backend=cuda works.
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    if (value.find_first_of("[]{}\"'=") != std::string::npos)
      throw Error("--set " + assignment + ": the value '" + value + "' is not valid TOML");
    parsed.insert("v", value);
  }
  toml::table* t = table_.get();
  std::string rest = key;
  for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
    const std::string part = rest.substr(0, dot);
    rest = rest.substr(dot + 1);
    auto* child = t->get(part);
    if (!child) {
      t->insert(part, toml::table{});
      child = t->get(part);
    }
    if (!child->is_table())
      throw Error("--set " + assignment + ": '" + part + "' in '" + key +
                  "' is a value, not a table");
    t = child->as_table();
  }
  // A value in place of a section ([time] replaced by --set time=1) would
  // drop every key of it unnoticed: refused.  (A table in place of a table,
  // --set time={ ... }, replaces it as written; a key below the top level
  // may take a table or a value, as a side's boundary.west="outflow" does.)
  if (const auto* old = t->get(rest);
      old && old->is_table() && t == table_.get() && !parsed.get("v")->is_table()) {
    const auto& table = *old->as_table();
    std::string keys, first = "KEY";
    for (auto&& [k, v] : table) {
      keys += (keys.empty() ? "" : ", ") + key + "." + std::string(k.str());
      if (first == "KEY") first = std::string(k.str());
    }
    const auto line = old->source().begin.line;
    throw Error("--set " + assignment + ": '" + key + "' is a section of the case ([" + key + "]" +
                (line > 0 ? ", " + path_ + ":" + std::to_string(line) : "") + ")" +
                (keys.empty() ? "" : " with " + keys) +
                ", not a value: --set sets one key of it, such as --set " + key + "." + first +
                "=" + value);
  }
  t->insert_or_assign(rest, *parsed.get("v"));
  overridden_[key] = assignment;
}

const toml::node* Config::find(const std::string& key) const {
  known_.insert(key);
  // Every enclosing table is known too (for the unknown-key walk).
  for (auto p = parent_of(key); !p.empty(); p = parent_of(p)) known_.insert(p);
  return table_->at_path(key).node();
}

std::string Config::where_of(const std::string& key) const {
  // The key, or a table around it, set on the command line: that --set
  // (--set time={ steps = 5 } for a missing time.end).
  for (std::string k = key; !k.empty(); k = parent_of(k))
    if (auto it = overridden_.find(k); it != overridden_.end()) return "--set " + it->second;
  const toml::node* n = table_->at_path(key).node();
  for (std::string k = key; !n && !k.empty(); k = parent_of(k)) n = table_->at_path(k).node();
  if (n && n->source().begin.line > 0) return path_ + ":" + std::to_string(n->source().begin.line);
  return path_;
}

void Config::fail_at(const std::string& key, const std::string& what) const {
  throw_all(key, message_at(key, what));
}

void Config::record_at(const std::string& key, const std::string& what) const {
  problems_.emplace_back(key, message_at(key, what));
}

// `key` itself or a key inside it ("body[1]" covers "body[1].radius",
// "body" covers "body[0].shape"): a check about a table combines its keys,
// so a problem inside it makes the check's result moot.  (The whole case,
// key "", is no such table: only "" itself.)
bool Config::reported(const std::string& key) const {
  for (const auto& [k, m] : problems_)
    if (k == key || (!key.empty() && k.size() > key.size() && k.compare(0, key.size(), key) == 0 &&
                     (k[key.size()] == '.' || k[key.size()] == '[')))
      return true;
  return false;
}

void Config::throw_problems() const {
  if (problems_.empty()) return;
  std::string all;
  for (const auto& [k, m] : problems_) all += (all.empty() ? "" : "\nkflow: error: ") + m;
  problems_.clear();
  throw Error(all);
}

// Every recorded problem, one per line, then `last` unless a problem was
// recorded for its key or a key inside it (reported(): a check that failed
// on a fallback value, such as "the obstacles cover the whole domain" after
// a bad obstacle radius).
void Config::throw_all(const std::string& key, const std::string& last) const {
  if (!reported(key)) problems_.emplace_back(key, last);
  throw_problems();
  throw Error(last);  // (not reached: there is one problem at least)
}

std::string Config::message_at(const std::string& key, const std::string& what) const {
  std::string hint;
  if (what.rfind("missing", 0) == 0) {
    // A missing key is often a misspelt one: name the unknown neighbour.
    const auto parent = parent_of(key);
    const toml::node* p = parent.empty() ? table_.get() : table_->at_path(parent).node();
    if (p && p->is_table())
      for (auto&& [k, v] : *p->as_table()) {
        const std::string name(k.str());
        const std::string full = parent.empty() ? name : parent + "." + name;
        if (!known_.count(full) && !closest(name, {leaf_of(key)}).empty())
          hint = " (the file has '" + full + "': did you mean '" + leaf_of(key) + "'?)";
      }
  }
  return where_of(key) + ": key '" + key + "': " + what + hint;
}

void Config::check_unknown() const {
  record_unknown("");
  throw_problems();
}

void Config::record_unknown(const std::string& under) const {
  std::vector<std::string> generic_known;
  for (const auto& k : known_) generic_known.push_back(generic(k));
  auto is_known = [&](const std::string& key) {
    return std::find(generic_known.begin(), generic_known.end(), generic(key)) !=
           generic_known.end();
  };
  std::function<void(const toml::table&, const std::string&)> walk;
  auto check = [&](const toml::node& n, const std::string& key) {
    if (!is_known(key)) {
      if (reported(key)) return;  // (by an earlier report_unknown)
      std::vector<std::string> siblings;
      const auto parent = generic(parent_of(key));
      for (const auto& k : generic_known)
        if (generic(parent_of(k)) == parent && leaf_of(k).find('[') == std::string::npos)
          siblings.push_back(leaf_of(k));
      std::sort(siblings.begin(), siblings.end());
      siblings.erase(std::unique(siblings.begin(), siblings.end()), siblings.end());
      std::string msg = "unknown key";
      const auto guess = closest(leaf_of(key), siblings);
      if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
      if (!siblings.empty())
        msg += "; valid keys " +
               (parent.empty() ? std::string("at the top level") : "in [" + parent + "]") + ": " +
               join_list(siblings);
      else
        msg += "; [" + parent + "] takes no keys";
      record_at(key, msg);
      return;  // (its own keys are unknown with it)
    }
    if (auto* t = n.as_table()) walk(*t, key);
    if (auto* a = n.as_array())
      for (std::size_t i = 0; i < a->size(); ++i)
        if (auto* et = a->get(i)->as_table()) walk(*et, key + "[" + std::to_string(i) + "]");
  };
  walk = [&](const toml::table& t, const std::string& prefix) {
    for (auto&& [k, v] : t) {
      const std::string name(k.str());
      const std::string key = prefix.empty() ? name : prefix + "." + name;
      // A quoted key with '.', '[' or ']' in its name ("time.end" = 99) is
      // one key of that name, which kflow never reads (it reads dotted
      // paths): unknown however it is written, also where the path it
      // spells is a key kflow reads.
      if (name.empty() || name.find_first_of(".[] \t\"'") != std::string::npos) {
        const auto line = v.source().begin.line;
        const std::string shown = (prefix.empty() ? "" : prefix + ".") + "\"" + name + "\"";
        if (reported(shown)) continue;  // (by an earlier report_unknown)
        problems_.emplace_back(
            shown, (line > 0 ? path_ + ":" + std::to_string(line) : path_) + ": key '" + shown +
                       "': unknown key: a quoted key is one key of that name, not a dotted path, "
                       "and kflow reads no key named \"" +
                       name + "\"" +
                       (is_known(key) ? "; for the key " + key + " write " + key +
                                            " = ... unquoted, or the key in its table"
                                      : ""));
        continue;
      }
      check(v, key);
    }
  };
  if (under.empty()) {
    walk(*table_, "");
  } else if (const toml::node* n = table_->at_path(under).node()) {
    check(*n, under);
  }
}

std::string Config::to_toml() const {
  std::ostringstream s;
  s << *table_;
  return s.str();
}

std::string Config::to_json() const {
  std::ostringstream s;
  s << toml::json_formatter{*table_};
  return s.str();
}

}  // namespace kflow
