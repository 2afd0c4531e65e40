#pragma once
// Shared test helpers: temporary directories and in-process runs of a case
// given as TOML text.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include "kflow/core/backend.hpp"
#include "kflow/core/driver.hpp"

namespace kflow::test {

// The source tree (cases/ lives there) and the tests' scratch directory in
// the build tree (tests/unit/main.cpp).
std::string source_dir();
std::string scratch_dir();

// A fresh directory under the system temporary directory, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    // Under the build tree: a run refuses output the toolchain root would lose.
    path =
        std::filesystem::path(scratch_dir()) /
        ("kflow-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

// A FIFO (named pipe) at `path` that nobody writes: code that opens it for
// reading would wait for ever.  While this object lives, a thread opens it
// for writing whenever a reader waits (a non-blocking attempt every
// millisecond) and closes it at once, counting those times in `opened`: a
// reader that should never have opened the FIFO then sees an empty file, and
// its test fails instead of hanging.
struct Fifo {
  std::string path;
  std::atomic<bool> done{false};
  std::atomic<int> opened{0};
  std::thread writer;
  explicit Fifo(std::string p) : path(std::move(p)) {
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    writer = std::thread([this] {
      while (!done) {
        if (const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC); fd >= 0) {
          ++opened;
          ::close(fd);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;
  ~Fifo() {
    done = true;
    writer.join();
    ::unlink(path.c_str());
  }
};

inline PreparedCase prepare_text(const std::string& toml, std::vector<std::string> sets = {},
                                 RunOptions opt = {}) {
  opt.case_path = "test.toml";
  opt.overrides = sets;
  return prepare(Config::parse(toml, "test.toml", sets), opt);
}

// Runs a case given as text; output to `dir` ("" for none).
inline RunResult run_text(const std::string& toml, const std::string& dir,
                          std::vector<std::string> sets = {}, const std::string& restart = "",
                          bool keep_fields = false) {
  RunOptions opt;
  opt.case_path = "test.toml";
  opt.overrides = sets;
  opt.output_dir = dir;
  opt.write_output = !dir.empty();
  opt.restart = restart;
  opt.quiet = true;
  opt.keep_final_fields = keep_fields;
  auto pc = prepare(Config::parse(toml, "test.toml", sets), opt);
  std::ostringstream log;
  return run(pc, opt, log);
}

// A diagnostic or a field of a run's result, by name (fails the test when absent).
inline double diag(const RunResult& r, const std::string& name) {
  for (const auto& [k, v] : r.diagnostics)
    if (k == name) return v;
  FAIL("no diagnostic " << name);
  return 0;
}

inline HostField field(const RunResult& r, const std::string& name) {
  for (const auto& f : r.fields)
    if (f.name == name) return f;
  FAIL("no field " << name);
  return {};
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last frame's rows of a line sample's CSV (`kflow run`'s line_<name>.csv:
// a header, then rows whose first column is the frame's time), split at
// commas; fails if the file cannot be opened.
inline std::vector<std::vector<double>> last_frame_rows(const std::string& path) {
  std::ifstream in(path);
  INFO("line file " << path);
  REQUIRE(in);
  std::vector<std::vector<double>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<double> r;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) r.push_back(std::stod(cell));
    if (!rows.empty() && r.at(0) != rows.back()[0]) rows.clear();  // a later frame
    rows.push_back(r);
  }
  return rows;
}

// The text of the case file cases/<path> (e.g. "mac2d/cavity-re100.toml");
// fails if it cannot be opened.
inline std::string case_text(const std::string& path) {
  const std::string full = source_dir() + "/cases/" + path;
  INFO("case file " << full);
  REQUIRE(std::ifstream(full));
  return read_file(full);
}

// One published number from cases/reference/<file>: column `column` of the
// first row that begins with `key` (rows "case,quantity,lower,upper,
// reference,source" or "quantity,value,..."); fails when there is none.
inline double reference_value(const std::string& file, const std::string& key, int column) {
  std::ifstream in(source_dir() + "/cases/reference/" + file);
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind(key, 0) != 0) continue;
    std::stringstream s(line);
    std::string cell;
    for (int c = 0; std::getline(s, cell, ','); ++c)
      if (c == column) return std::stod(cell);
  }
  FAIL("no row '" << key << "' in " << file);
  return 0;
}

// Two runs' kept fields, value for value.
inline void check_identical(const RunResult& a, const RunResult& b) {
  REQUIRE(a.fields.size() == b.fields.size());
  for (std::size_t k = 0; k < a.fields.size(); ++k) {
    INFO("field " << a.fields[k].name);
    CHECK(a.fields[k].values == b.fields[k].values);
  }
}

// The rows of a literature table from cases/reference/<file> (the one copy
// of every table the tests compare with), split at commas, after the '#'
// comment lines and the column header.  Fails unless it read exactly `rows`
// rows, so a missing, empty or truncated table cannot pass.
inline std::vector<std::vector<std::string>> reference_rows(const std::string& file,
                                                            std::size_t rows) {
  std::ifstream in(source_dir() + "/cases/reference/" + file);
  INFO("reference table cases/reference/" << file);
  REQUIRE(in);
  std::vector<std::vector<std::string>> r;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string c; std::getline(fields, c, ',');) f.push_back(c);
    r.push_back(f);
  }
  REQUIRE(r.size() == rows);
  return r;
}

// Its first two columns as "coordinate,value" pairs.
inline std::vector<std::pair<double, double>> reference_table(const std::string& file,
                                                              std::size_t rows) {
  std::vector<std::pair<double, double>> r;
  for (const auto& f : reference_rows(file, rows)) {
    INFO("reference table cases/reference/" << file);
    REQUIRE(f.size() >= 2);
    r.emplace_back(std::stod(f[0]), std::stod(f[1]));
  }
  return r;
}

}  // namespace kflow::test
