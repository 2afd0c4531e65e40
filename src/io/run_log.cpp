// RunOutput's log.csv: a row per log step, and the one layout of a log
// carried over by a restart that changes its columns.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kflow/io/files.hpp"
#include "kflow/io/run_output.hpp"
#include "kflow/model/error.hpp"

namespace fs = std::filesystem;

namespace kflow::io {

// log.csv of the run restarted from, against this run's columns `now`: the
// union (its columns, then the new ones); where they differ the file is
// rewritten with empty values for the columns its rows lack, and a note says so.
std::vector<std::string> RunOutput::merge_log_columns(const std::string& path,
                                                      const std::vector<std::string>& now) {
  std::ifstream in(path);
  std::string header, line;
  std::getline(in, header);
  std::vector<std::string> old;
  {
    std::stringstream h(header);
    for (std::string c; std::getline(h, c, ',');) old.push_back(c);
  }
  std::vector<std::string> all = old, added, dropped;
  for (const auto& c : now)
    if (std::find(old.begin(), old.end(), c) == old.end()) {
      all.push_back(c);
      added.push_back(c);
    }
  for (const auto& c : old)
    if (std::find(now.begin(), now.end(), c) == now.end()) dropped.push_back(c);
  if (!added.empty()) {
    std::string text;
    for (std::size_t c = 0; c < all.size(); ++c) text += (c ? "," : "") + all[c];
    text += "\n";
    const std::string pad(added.size(), ',');
    while (std::getline(in, line))
      text += line + (line.empty() || line[0] == '#' ? "" : pad) + "\n";
    in.close();
    write_text_atomic(path, text);
  }
  const auto list = [](const std::vector<std::string>& v) {
    std::string t;
    for (const auto& c : v) t += (t.empty() ? "" : ", ") + c;
    return t;
  };
  if (!added.empty())
    notes_.push_back("log.csv: column" + std::string(added.size() > 1 ? "s " : " ") + list(added) +
                     " added by the restart (empty in the rows before it)");
  if (!dropped.empty())
    notes_.push_back("log.csv: column" + std::string(dropped.size() > 1 ? "s " : " ") +
                     list(dropped) + " not written by the restarted run (empty in its rows)");
  return all;
}

void RunOutput::log_row(long step, double t, double dt, double wall, const Diagnostics& d) {
  if (!log_.is_open()) {
    const std::string path = dir_ + "/log.csv";
    record("log.csv");
    std::vector<std::string> now{"step", "time", "dt", "wall"};
    for (const auto& [k, v] : d) now.push_back(k);
    log_columns_ = now;
    // Carried over from the run restarted from: a restart that changes the
    // columns (time.steady, a probe added) gets one layout, the union.
    if (fs::exists(path) && fs::file_size(path) > 0) {
      log_columns_ = merge_log_columns(path, now);
      log_header_ = true;
    }
    log_.open(path, std::ios::app);
    if (!log_) throw Error("cannot write " + path);
  }
  if (!log_header_) {
    for (std::size_t c = 0; c < log_columns_.size(); ++c) log_ << (c ? "," : "") << log_columns_[c];
    log_ << "\n";
    log_header_ = true;
  }
  char w[64];
  std::snprintf(w, sizeof w, "%.6g", wall);
  log_ << step << "," << exact(t) << "," << exact(dt) << "," << w;
  if (log_columns_.size() == d.size() + 4) {  // the usual case: the row's own order
    for (const auto& [k, v] : d) log_ << "," << exact(v);
  } else {  // a merged layout: each column by name, empty where this run has none
    for (std::size_t c = 4; c < log_columns_.size(); ++c) {
      log_ << ",";
      for (const auto& [k, v] : d)
        if (k == log_columns_[c]) {
          log_ << exact(v);
          break;
        }
    }
  }
  log_ << "\n";
  log_.flush();
  if (!log_) throw Error("writing " + dir_ + "/log.csv failed (disk full?)");
}

}  // namespace kflow::io
