#include "kflow/io/run_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "kflow/core/error.hpp"
#include "kflow/io/files.hpp"
#include "kflow/io/vtk.hpp"

namespace fs = std::filesystem;

namespace kflow::io {

namespace {

std::string frame_name(long index, const std::string& ext) {
  char base[32];
  std::snprintf(base, sizeof base, "frame_%05ld", index);
  return std::string(base) + ext;
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\', r += c;
    else if (c == '\n')
      r += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      r += ' ';
    else
      r += c;
  }
  return r;
}

std::string json_number(double v) {
  return std::isfinite(v) ? exact(v) : "null";
}

}  // namespace

std::string output_directory(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d;
}

std::string staging_directory(const std::string& dir) {
  return output_directory(dir) + ".running";
}

std::string piece_name(long index, int rank) {
  char r[16];
  std::snprintf(r, sizeof r, "_r%04d", rank);
  return frame_name(index, std::string(r) + ".vti");
}

namespace {

// True for an empty directory or one an earlier run created.
bool replaceable(const fs::path& p, std::string& why) {
  std::error_code ec;
  const auto st = fs::symlink_status(p, ec);
  if (ec || !fs::exists(st)) return true;
  if (!fs::is_directory(st)) {
    why = p.string() +
          " exists and is not a directory; kflow writes a run's output into a "
          "directory of its own";
    return false;
  }
  // (summary.json, checkpoint.kfc: the output of a kflow from before the marker)
  if (fs::exists(p / run_marker) || fs::exists(p / "summary.json") ||
      fs::exists(p / "checkpoint.kfc") || fs::is_empty(p, ec))
    return true;
  why = p.string() +
        " holds files kflow did not write; kflow replaces only an earlier run's "
        "output (a directory with a " +
        std::string(run_marker) +
        " file) or an empty directory: choose another output directory or move those files";
  return false;
}

}  // namespace

std::string output_problem(const std::string& dir) {
  const std::string d = output_directory(dir);
  if (d.empty()) return "expected a directory name, got \"\"";
  const fs::path p(d);
  const auto name = p.filename().string();
  if (name.empty() || name == "." || name == ".." || p == p.root_path())
    return "\"" + dir +
           "\" names no directory of its own (., .. and / are refused: kflow "
           "would replace what is there); give a new or an earlier output's directory";
  // Inside tools/in-root.sh's toolchain root only the host directories it
  // lists outlive the run: output anywhere else would vanish with the root.
  if (const char* shared = std::getenv("KFLOW_ROOT_BINDS"); shared && *shared) {
    const auto abs = fs::absolute(p).lexically_normal().string() + "/";
    bool visible = false;
    std::string list = shared, dirs;
    for (std::size_t at = 0; at <= list.size();) {
      const auto end = std::min(list.find(':', at), list.size());
      const std::string dir_k = list.substr(at, end - at);
      if (!dir_k.empty() && abs.rfind(dir_k + "/", 0) == 0) visible = true;
      dirs += (dirs.empty() ? "" : ", ") + dir_k;
      at = end + 1;
    }
    if (!visible)
      return d + " is outside the host directories this toolchain root shares (" + dirs +
             "): its files would be lost when the run ends; use tools/kflow (it shares the "
             "directories of the paths on its command line), write below one of those, or "
             "build natively (KFLOW_NATIVE=1)";
  }
  std::string why;
  for (const char* suffix : {"", ".running", ".interrupted", ".failed"})
    if (!replaceable(fs::path(d + suffix), why)) return why;
  return "";
}

RunOutput::RunOutput(std::string directory, std::string format, std::vector<LineSpec> lines)
    : final_dir_(output_directory(directory)),
      dir_(staging_directory(final_dir_)),
      format_(std::move(format)),
      lock_(final_dir_ + ".lock"),
      lines_(std::move(lines)) {
  if (const auto why = output_problem(final_dir_); !why.empty())
    throw Error("output " + final_dir_ + ": " + why);
  std::error_code ec;
  const auto parent = fs::path(final_dir_).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw Error("cannot create " + parent.string() + ": " + ec.message());
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(lock_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      const bool ok = ::write(fd, pid.data(), pid.size()) == ssize_t(pid.size());
      ::close(fd);
      if (!ok) {
        std::remove(lock_.c_str());
        throw Error("cannot write the lock " + lock_);
      }
      return;
    }
    if (errno != EEXIST)
      throw Error("cannot create the lock " + lock_ + ": " + std::strerror(errno));
    long holder = 0;
    std::ifstream(lock_) >> holder;
    if (holder > 0 && (::kill(pid_t(holder), 0) == 0 || errno == EPERM))
      throw Error("output " + final_dir_ + " is being written by another kflow run (process " +
                  std::to_string(holder) + ", lock " + lock_ +
                  "); wait for it to end or choose another output directory");
    std::remove(lock_.c_str());  // its process is gone: a stale lock
  }
  throw Error("cannot take the lock " + lock_);
}

RunOutput::~RunOutput() {
  std::error_code ec;
  if (staged_ && !finished_) {
    log_.close();
    fs::remove_all(dir_, ec);
    if (!moved_aside_.empty()) fs::rename(moved_aside_, dir_, ec);
  }
  std::remove(lock_.c_str());
}

void RunOutput::stage(const std::string& restart_dir) {
  std::error_code ec;
  restart_from_ = restart_dir;
  if (!restart_dir.empty() && fs::exists(dir_) && fs::equivalent(restart_dir, dir_, ec)) {
    moved_aside_ = dir_ + ".restart-" + std::to_string(::getpid());
    fs::rename(dir_, moved_aside_, ec);
    if (ec) throw Error("cannot move " + dir_ + " aside: " + ec.message());
    restart_from_ = moved_aside_;
  }
  fs::remove_all(dir_, ec);  // a stale staging directory (checked: kflow's own)
  fs::create_directories(dir_, ec);
  if (ec) throw Error("cannot create the output directory " + dir_ + ": " + ec.message());
  staged_ = true;
  write_text_atomic(dir_ + "/" + run_marker,
                    "written by kflow run; kflow may replace this directory\n");
}

void RunOutput::carry_over(long step, double t, long next_frame) {
  const fs::path from(restart_from_);
  if (from.empty() || !fs::is_directory(from)) return;
  std::map<std::string, double> pvd_times;  // file name -> time, from the earlier run's .pvd
  for (const auto& [time, file] : read_pvd((from / "run.pvd").string())) pvd_times[file] = time;
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
    fs::copy_file(from / name, fs::path(dir_) / name, ec);
    if (ec) throw Error("cannot copy " + (from / name).string() + ": " + ec.message());
    if (auto it = pvd_times.find(name); listed && it != pvd_times.end())
      frames_.emplace_back(it->second, name);
  }
  std::sort(frames_.begin(), frames_.end());
  // CSV files: keep the header and the rows whose first column (step for the
  // log, time for lines) does not pass the checkpoint.
  for (const auto& e : fs::directory_iterator(from)) {
    const auto name = e.path().filename().string();
    const bool is_log = name == "log.csv";
    if (!is_log && !(name.rfind("line_", 0) == 0 && e.path().extension() == ".csv")) continue;
    std::ifstream in(e.path());
    std::ofstream o(fs::path(dir_) / name);
    std::string line;
    if (std::getline(in, line)) o << line << "\n";
    while (std::getline(in, line)) {
      const double key = std::stod(line.substr(0, line.find(',')));
      if (is_log ? key <= double(step) : key <= t) o << line << "\n";
    }
    if (!o) throw Error("cannot write " + (fs::path(dir_) / name).string());
  }
}

void RunOutput::log_row(long step, double t, double dt, double wall, const Diagnostics& d) {
  if (!log_.is_open()) {
    const std::string path = dir_ + "/log.csv";
    log_.open(path, std::ios::app);
    if (!log_) throw Error("cannot write " + path);
    log_header_ = fs::file_size(path) > 0;  // carried over from the run restarted from
  }
  if (!log_header_) {
    log_ << "step,time,dt,wall";
    for (const auto& [k, v] : d) log_ << "," << k;
    log_ << "\n";
    log_header_ = true;
  }
  char w[64];
  std::snprintf(w, sizeof w, "%.6g", wall);
  log_ << step << "," << exact(t) << "," << exact(dt) << "," << w;
  for (const auto& [k, v] : d) log_ << "," << exact(v);
  log_ << "\n";
  log_.flush();
  if (!log_) throw Error("writing " + dir_ + "/log.csv failed (disk full?)");
}

void RunOutput::frame(long index, double t, long step, const linalg::Grid& grid,
                      const std::vector<HostField>& fields,
                      const std::vector<std::vector<double>>& line_values) {
  const std::string file = frame_name(index, "." + format_);
  if (format_ == "vti")
    write_vti(dir_ + "/" + file, grid, fields, t);
  else
    write_frame_file(dir_ + "/" + file, grid, fields, t, step);
  frames_.emplace_back(t, file);
  if (format_ == "vti") write_pvd(dir_ + "/run.pvd", frames_);
  for (std::size_t k = 0; k < lines_.size(); ++k)
    append_line_csv(dir_ + "/line_" + lines_[k].name + ".csv", lines_[k], t, line_values.at(k));
}

void RunOutput::parallel_frame(long index, double t, const linalg::Grid& grid,
                               const std::vector<HostField>& fields,
                               const std::vector<Block>& blocks,
                               const std::vector<std::vector<double>>& line_values) {
  std::vector<std::string> pieces;
  for (std::size_t r = 0; r < blocks.size(); ++r) pieces.push_back(piece_name(index, int(r)));
  const std::string file = frame_name(index, ".pvti");
  write_pvti(dir_ + "/" + file, grid, fields, blocks, pieces);
  frames_.emplace_back(t, file);
  write_pvd(dir_ + "/run.pvd", frames_);
  for (std::size_t k = 0; k < lines_.size(); ++k)
    append_line_csv(dir_ + "/line_" + lines_[k].name + ".csv", lines_[k], t, line_values.at(k));
}

void RunOutput::checkpoint(const FieldFile& ck) {
  write_field_file(dir_ + "/checkpoint.kfc", ck);
}

void RunOutput::write_summary(const RunSummary& r) {
  const auto& g = r.grid;
  std::ostringstream s;
  s << "{\n  \"kflow\": \"" << r.version << "\",\n  \"build\": {";
  for (std::size_t k = 0; k < r.build.size(); ++k)
    s << (k ? ", " : "") << "\"" << r.build[k].first << "\": \"" << json_escape(r.build[k].second)
      << "\"";
  s << "},\n"
    << "  \"case\": \"" << json_escape(r.case_name) << "\",\n"
    << "  \"case_file\": \"" << json_escape(r.case_file) << "\",\n"
    << "  \"model\": \"" << r.model << "\",\n"
    << "  \"backend\": \"" << r.backend << "\",\n"
    << "  \"device\": \"" << json_escape(r.device) << "\",\n"
    << "  \"precision\": \"" << r.precision << "\",\n"
    << "  \"status\": \"" << r.status << "\",\n"
    << "  \"restart\": \"" << json_escape(r.restart) << "\",\n"
    << "  \"grid\": {\"dim\": " << g.dim << ", \"cells\": [" << g.cells[0] << ", " << g.cells[1]
    << ", " << g.cells[2] << "], \"length\": [" << json_number(g.length[0]) << ", "
    << json_number(g.length[1]) << ", " << json_number(g.length[2]) << "]},\n"
    << "  \"steps\": " << r.steps << ",\n  \"steps_this_run\": " << r.steps_this_run << ",\n"
    << "  \"device_dt_steps\": " << r.device_dt_steps << ",\n"
    << "  \"time\": " << json_number(r.time) << ",\n"
    << "  \"frames\": " << frames_.size() << ",\n"
    << "  \"wall_seconds\": {\"total\": " << json_number(r.wall_total)
    << ", \"setup\": " << json_number(r.wall_setup)
    << ", \"stepping\": " << json_number(r.wall_stepping)
    << ", \"output\": " << json_number(r.wall_output) << "},\n"
    << "  \"performance\": {\"cells\": " << json_number(r.cells)
    << ", \"cell_updates_per_second\": " << json_number(r.cell_updates_per_second)
    << ", \"bytes_per_cell_step\": " << json_number(r.bytes_per_cell_step)
    << ", \"effective_bandwidth_bytes_per_second\": " << json_number(r.bandwidth_bytes_per_second)
    << "},\n"
    << "  \"diagnostics\": {";
  for (std::size_t k = 0; k < r.diagnostics.size(); ++k)
    s << (k ? ", " : "") << "\"" << r.diagnostics[k].first
      << "\": " << json_number(r.diagnostics[k].second);
  s << "},\n";
  if (!r.rank_wall_total.empty()) {
    // A distributed run: its blocks and each rank's times; the exchange
    // share is the halo exchanges' part of the stepping time.
    auto list = [&](const std::vector<double>& v) {
      std::string t = "[";
      for (std::size_t k = 0; k < v.size(); ++k) t += (k ? ", " : "") + json_number(v[k]);
      return t + "]";
    };
    std::vector<double> share;
    for (std::size_t k = 0; k < r.rank_wall_stepping.size(); ++k)
      share.push_back(
          r.rank_wall_stepping[k] > 0 ? r.rank_wall_exchange[k] / r.rank_wall_stepping[k] : 0.0);
    s << "  \"ranks\": {\"count\": " << r.rank_wall_total.size() << ", \"blocks\": [" << r.ranks[0]
      << ", " << r.ranks[1] << ", " << r.ranks[2] << "], \"halo\": \"" << json_escape(r.halo)
      << "\""
      << ", \"wall_seconds_total\": " << list(r.rank_wall_total)
      << ", \"wall_seconds_stepping\": " << list(r.rank_wall_stepping)
      << ", \"wall_seconds_exchange\": " << list(r.rank_wall_exchange)
      << ", \"exchange_share_of_stepping\": " << list(share) << "},\n";
  }
  s << "  \"lines\": [";
  for (std::size_t k = 0; k < lines_.size(); ++k) {
    const auto& l = lines_[k];
    s << (k ? ", " : "") << "{\"name\": \"" << json_escape(l.name) << "\", \"field\": \""
      << json_escape(l.field) << "\", \"file\": \"line_" << json_escape(l.name)
      << ".csv\", \"reference\": \""
      << json_escape(l.reference.empty() ? "" : fs::absolute(l.reference).string()) << "\"}";
  }
  s << "],\n  \"config\": " << r.config_json << "\n}\n";
  write_text_atomic(dir_ + "/summary.json", s.str());
  write_text_atomic(dir_ + "/case.toml", r.config_toml + "\n");
}

void RunOutput::finish(const std::string& target) {
  log_.close();
  finished_ = true;
  std::error_code ec;
  if (target == final_dir_ && fs::exists(target)) {
    const std::string old = target + ".old-" + std::to_string(::getpid());
    fs::rename(target, old, ec);
    if (ec) throw Error("cannot replace " + target + ": " + ec.message());
    fs::rename(dir_, target, ec);
    if (ec) throw Error("cannot rename " + dir_ + " to " + target + ": " + ec.message());
    fs::remove_all(old, ec);
  } else {
    fs::remove_all(target, ec);
    fs::rename(dir_, target, ec);
    if (ec) throw Error("cannot rename " + dir_ + " to " + target + ": " + ec.message());
  }
  if (!moved_aside_.empty()) fs::remove_all(moved_aside_, ec);  // carried over
}

}  // namespace kflow::io
