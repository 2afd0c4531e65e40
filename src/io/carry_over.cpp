// RunOutput::carry_over: what a restart takes from the run it restarts
// from (the frames before the checkpoint, the rows of log.csv and of the
// line CSVs up to it), each CSV value checked as a number first.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "kflow/io/run_output.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/input_file.hpp"
#include "kflow/model/printable.hpp"
#include "output_names.hpp"

namespace fs = std::filesystem;

namespace kflow::io {

namespace {

// A value as a message shows it: at most 40 characters, control characters
// escaped.
std::string shown(const std::string& v) {
  return printable(v, 40);
}

// A whole number as strtod reads it (kflow writes %.17g: "nan" and "inf"
// included, for a diagnostic that is one).
bool number(const std::string& v, double& x) {
  char* end = nullptr;
  x = std::strtod(v.c_str(), &end);
  return !v.empty() && !std::isspace(static_cast<unsigned char>(v[0])) && *end == '\0';
}

// One CSV output of the run restarted from, `path` (log.csv: rows keyed by
// their step; line_<name>.csv: by their time).  Every row must have the
// header's columns and begin with a finite key; every row carried (key at
// most `last`) must hold numbers in all its columns.  Otherwise an Error
// names the file, line, column and value.  `out`: where the header and the
// rows carried go (nullptr: checked only).
void carry_csv(const fs::path& path, double last, std::ostream* out, bool drop_last = false) {
  if (const auto problem = input_file_problem(
          path.string(), "the earlier run's " + path.filename().string(), max_field_file_bytes);
      !problem.empty())
    throw Error(problem + "; a restart carries it over");
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path.string() + " to carry it over");
  // drop_last: the rows of the last key up to `last` (a stop's line samples)
  // are not carried
  double drop_key = -std::numeric_limits<double>::infinity();
  if (drop_last) {
    std::ifstream scan(path);
    std::string row;
    std::getline(scan, row);  // (the header)
    while (std::getline(scan, row)) {
      double key = 0;
      if (number(row.substr(0, row.find(',')), key) && key <= last && key > drop_key)
        drop_key = key;
    }
  }
  const bool is_log = path.filename() == "log.csv";
  const std::string file = path.string();
  const std::string advice =
      " (a damaged or edited file); repair or delete that line, then "
      "restart again";
  std::string line;
  std::vector<std::string> names;  // the header's
  if (std::getline(in, line)) {
    if (out) *out << line << "\n";
    std::size_t from = 0;
    for (auto comma = line.find(',');; comma = line.find(',', from)) {
      names.push_back(line.substr(from, comma == std::string::npos ? comma : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  std::vector<std::string> cells;
  for (std::size_t row = 2; std::getline(in, line); ++row) {
    cells.clear();
    std::size_t from = 0;
    for (auto comma = line.find(',');; comma = line.find(',', from)) {
      cells.push_back(line.substr(from, comma == std::string::npos ? comma : comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    const std::string at = file + ":" + std::to_string(row) + ": ";
    if (cells.size() != names.size())
      throw Error(at + "\"" + shown(line) + "\" has " + std::to_string(cells.size()) + " column" +
                  (cells.size() == 1 ? "" : "s") + ", the header " + std::to_string(names.size()) +
                  advice);
    auto bad = [&](std::size_t c, const char* expected) {
      return Error(at + "column " + std::to_string(c + 1) + " (" + shown(names[c]) + ") is \"" +
                   shown(cells[c]) + "\"; expected " + expected + advice);
    };
    double key = 0;
    if (!number(cells[0], key) || !std::isfinite(key))
      throw bad(0, is_log ? "a step number" : "a time");
    if (key > last || (drop_last && key == drop_key)) continue;  // past the checkpoint: not carried
    for (std::size_t c = 1; c < cells.size(); ++c) {
      double x = 0;
      if (!number(cells[c], x)) throw bad(c, "a number");
    }
    if (out) *out << line << "\n";
  }
}

}  // namespace

std::vector<std::string> RunOutput::carry_over(long step, double t, long next_frame,
                                               bool stop_frame, bool stop_row) {
  // (a stop's log row is at the checkpoint's step; its line samples are the
  // last time the line files hold up to the checkpoint)
  const double last_step = double(step) - (stop_row ? 1 : 0);
  std::vector<std::string> notes;
  const fs::path from(restart_from_);
  if (from.empty() || !fs::is_directory(from)) return notes;
  // The CSV outputs (log.csv, line_<name>.csv): every one checked whole
  // before anything is carried over, so that a damaged one stops the restart
  // with nothing written.
  std::vector<fs::path> csvs;
  for (const auto& e : fs::directory_iterator(from)) {
    const auto name = e.path().filename().string();
    if (name == "log.csv" || (name.rfind("line_", 0) == 0 && e.path().extension() == ".csv"))
      csvs.push_back(e.path());
  }
  std::sort(csvs.begin(), csvs.end());
  for (const auto& p : csvs) {
    const bool log = p.filename() == "log.csv";
    carry_csv(p, log ? last_step : t, nullptr, !log && stop_frame);
  }
  const std::string pvd = (from / "run.pvd").string();
  const bool had_pvd = fs::exists(pvd);
  std::map<std::string, double> pvd_times;  // file name -> time, from the earlier run's .pvd
  for (const auto& [time, file] : read_pvd(pvd)) pvd_times[file] = time;
  // A frame is frame_NNNNN.vti|.kff, or (several ranks) frame_NNNNN.pvti
  // and its pieces frame_NNNNN_rRRRR.vti.
  std::map<std::string, bool> copy;  // name -> listed in the .pvd
  for (const auto& e : fs::directory_iterator(from)) {
    const auto name = e.path().filename().string();
    long k = -1;
    char rest[32] = "";
    if (std::sscanf(name.c_str(), "frame_%5ld%31s", &k, rest) != 2 || k < 0 || k >= next_frame)
      continue;
    const std::string r = rest;
    if (r == ".vti" || r == ".kff" || r == ".pvti")
      copy[name] = true;
    else if (r.size() == 10 && r.rfind("_r", 0) == 0 && r.substr(6) == ".vti")
      copy[name] = false;
  }
  for (const auto& [name, listed] : copy) {
    std::error_code ec;
    record(name);
    fs::copy_file(from / name, fs::path(dir_) / name, ec);
    if (ec) throw Error("cannot copy " + (from / name).string() + ": " + ec.message());
    if (auto it = pvd_times.find(name); listed && it != pvd_times.end())
      frames_.emplace_back(it->second, name);
  }
  std::sort(frames_.begin(), frames_.end());
  // Frames before the checkpoint that are gone (deleted by hand): the .pvd's
  // entries, or (no .pvd) every number below next_frame.
  std::vector<std::string> missing;
  if (had_pvd) {
    for (const auto& [file, time] : pvd_times) {
      long k = -1;
      if (std::sscanf(file.c_str(), "frame_%5ld", &k) == 1 && k < next_frame && !copy.count(file))
        missing.push_back(file);
    }
  } else {
    for (long k = 0; k < next_frame; ++k) {
      const auto stem = frame_name(k, "");
      bool found = false;
      for (const char* ext : {".vti", ".kff", ".pvti"}) found = found || copy.count(stem + ext);
      if (!found) missing.push_back(stem + (format_ == "vti" ? ".vti" : ".kff"));
    }
  }
  if (!missing.empty())
    notes.push_back(std::to_string(missing.size()) + " frame" + (missing.size() == 1 ? "" : "s") +
                    " before the checkpoint " + (missing.size() == 1 ? "is" : "are") +
                    " missing from " + from.string() +
                    (had_pvd ? " (its run.pvd lists them)" : "") + ": " + list_of(missing) +
                    "; the new output goes on without " + (missing.size() == 1 ? "it" : "them"));
  // Then each with its header and the rows up to the checkpoint.
  for (const auto& p : csvs) {
    const auto name = p.filename().string();
    record(name);
    std::ofstream o(fs::path(dir_) / name);
    const bool log = name == "log.csv";
    carry_csv(p, log ? last_step : t, &o, !log && stop_frame);
    if (!(o << std::flush)) throw Error("cannot write " + (fs::path(dir_) / name).string());
  }
  return notes;
}

}  // namespace kflow::io
