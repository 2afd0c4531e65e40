#include "kflow/io/run_output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "kflow/io/files.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/model/error.hpp"
#include "output_names.hpp"

namespace fs = std::filesystem;

namespace kflow::io {

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

std::string lock_path(const std::string& dir) {
  return output_directory(dir) + ".lock";
}

namespace {

// The marker: a line that says what it is, then the files of the run, one a
// line (a name counts once its line is complete).
const char* const marker_intro = "written by kflow run; kflow may replace this directory\n";
const char* const marker_list =
    "files of the run (kflow deletes only these when it replaces this directory):\n";

// Named like a file of a kflow run (the rule for markers without a list).
bool kflow_name(const std::string& n) {
  static const std::regex re(
      R"((\.kflow-run|run\.pvd|log\.csv|checkpoint\.kfc|summary\.json|case\.toml|)"
      R"(frame_[0-9]{5,}(_r[0-9]{4,})?\.(vti|kff|pvti)|line_[^/]+\.csv))");
  return std::regex_match(n, re);
}

// What a run directory's marker says kflow wrote there.
struct Manifest {
  bool listed = false;  // a marker with a list (else: the names of kflow_name)
  std::set<std::string> names;
  bool holds(const std::string& n) const {
    if (listed ? names.count(n) > 0 : kflow_name(n)) return true;
    // a temporary of write_atomic ("NAME.tmp-PID") or of convert ("NAME.convert-PID")
    for (const char* tmp : {".tmp-", ".convert-"})
      if (const auto at = n.rfind(tmp); at != std::string::npos && at > 0) {
        const auto pid = n.substr(at + std::strlen(tmp));
        if (!pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos)
          return holds(n.substr(0, at));
      }
    return false;
  }
};

Manifest read_manifest(const fs::path& dir) {
  Manifest m;
  std::ifstream in(dir / run_marker);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find(marker_list);
  if (at == std::string::npos) return m;
  m.listed = true;
  m.names.insert(run_marker);
  std::size_t from = at + std::strlen(marker_list);
  for (auto nl = text.find('\n', from); nl != std::string::npos; nl = text.find('\n', from)) {
    if (nl > from) m.names.insert(text.substr(from, nl - from));
    from = nl + 1;
  }
  return m;
}

bool written_by_kflow(const fs::path& p) {
  // (summary.json, checkpoint.kfc: the output of a kflow from before the marker)
  return fs::exists(p / run_marker) || fs::exists(p / "summary.json") ||
         fs::exists(p / "checkpoint.kfc");
}

// Deletes the files a run wrote in `dir` (its marker's list), then `dir`
// when nothing else is left in it; returns what is left (never a user's file).
std::vector<std::string> remove_run_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) return {};
  const auto m = read_manifest(dir);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (name == run_marker) continue;  // last: it says what the rest is
    if (m.holds(name) && !e.is_directory(ec))
      fs::remove(e.path(), ec);
    else
      left.push_back(name);
  }
  if (left.empty()) {
    fs::remove(dir / run_marker, ec);
    fs::remove(dir, ec);
  }
  return left;
}

// "a directory", "a symbolic link", ... for messages.
std::string kind_of(const struct stat& st) {
  return S_ISDIR(st.st_mode)   ? "a directory"
         : S_ISLNK(st.st_mode) ? "a symbolic link"
         : S_ISREG(st.st_mode) ? "a file"
                               : "a special file";
}

// kflow's lock files begin with this line (an older kflow's held its
// process id alone).
const char* const lock_intro = "kflow run lock";

std::string read_start(int fd) {
  char buf[512];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

bool kflow_lock_text(const std::string& t) {
  if (t.rfind(lock_intro, 0) == 0) return true;
  return t.size() >= 2 && t.size() <= 21 && t.back() == '\n' &&
         t.find_first_not_of("0123456789") == t.size() - 1;
}

long lock_holder(const std::string& t) {
  const auto at = t.find("\nprocess ");
  return std::atol(at == std::string::npos ? t.c_str() : t.c_str() + at + 9);
}

std::string foreign_lock_message(const std::string& lock, const std::string& what) {
  return lock + " exists and is not a kflow lock (" + what + "); kflow takes " + lock +
         " while a run writes that output and never deletes a file it did not create: "
         "move it, or choose another output directory";
}

// Why `lock` is in the way: "" when it is absent or a kflow lock file.
std::string lock_problem(const std::string& lock) {
  struct stat st {};
  if (::lstat(lock.c_str(), &st) != 0) return "";
  if (!S_ISREG(st.st_mode)) return foreign_lock_message(lock, kind_of(st));
  const int fd = ::open(lock.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return foreign_lock_message(lock, std::string("unreadable: ") + std::strerror(errno));
  const auto text = read_start(fd);
  ::close(fd);
  return kflow_lock_text(text) ? ""
         : text.empty()        ? foreign_lock_message(lock, "an empty file")
                               : foreign_lock_message(lock, "a file of other contents");
}

bool write_all(int fd, const std::string& s) {
  return ::pwrite(fd, s.data(), s.size(), 0) == ssize_t(s.size());
}

bool same_file(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

// Takes the flock of lock file `lock` for output `dir`; returns its
// descriptor.  A new lock file appears whole and locked (written under a
// temporary name, locked, then linked into place), so no other run can see
// it empty or unlocked.
int take_lock(const std::string& lock, const std::string& dir) {
  const std::string text = std::string(lock_intro) + "\nprocess " + std::to_string(::getpid()) +
                           "\noutput " + dir + "\n";
  for (int attempt = 0; attempt < 16; ++attempt) {
    int fd = ::open(lock.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
      const std::string tmp = lock + ".tmp-" + std::to_string(::getpid());
      ::unlink(tmp.c_str());  // (this process's own name)
      fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0) throw Error("cannot create the lock " + lock + ": " + std::strerror(errno));
      int e = 0;
      if (!write_all(fd, text) || ::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
          ::link(tmp.c_str(), lock.c_str()) != 0)
        e = errno ? errno : EIO;
      ::unlink(tmp.c_str());
      if (e == 0) return fd;
      ::close(fd);
      if (e == EEXIST) continue;  // another run was quicker: its lock is looked at next
      throw Error("cannot create the lock " + lock + ": " + std::strerror(e));
    }
    if (fd < 0) {
      if (errno == ELOOP || errno == EISDIR)
        throw Error("output " + dir + ": " + lock_problem(lock));
      throw Error("cannot open the lock " + lock + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !kflow_lock_text(read_start(fd))) {
      ::close(fd);
      throw Error("output " + dir + ": " + lock_problem(lock));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const long holder = lock_holder(read_start(fd));
      ::close(fd);
      throw Error("output " + dir + " is being written by another kflow run (" +
                  (holder > 0 ? "process " + std::to_string(holder) + ", " : "") + "lock " + lock +
                  "); wait for it to end or choose another output directory");
    }
    // Its run may have ended (and removed it) between open and flock.
    if (!same_file(fd, lock)) {
      ::close(fd);
      continue;
    }
    // A lock nobody holds (its run was killed): taken over.
    if (::ftruncate(fd, 0) != 0 || !write_all(fd, text)) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw Error("cannot write the lock " + lock + ": " + why);
    }
    return fd;
  }
  throw Error("cannot take the lock " + lock + " (other runs keep taking and releasing it)");
}

// True for an empty directory or one an earlier run created and holds only
// its own files.
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
  if (fs::is_empty(p, ec)) return true;
  if (!written_by_kflow(p)) {
    why = p.string() +
          " holds files kflow did not write; kflow replaces only an earlier run's "
          "output (a directory with a " +
          std::string(run_marker) +
          " file) or an empty directory: choose another output directory or move those files";
    return false;
  }
  const auto foreign = foreign_entries(p.string());
  if (foreign.empty()) return true;
  why = p.string() + " holds files kflow did not write (" + list_of(foreign) +
        ") beside an earlier run's output; kflow deletes only the files a run wrote: move "
        "them, or choose another output directory";
  return false;
}

}  // namespace

std::vector<std::string> foreign_entries(const std::string& dir) {
  std::vector<std::string> r;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) return r;
  const auto m = read_manifest(dir);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    const bool is_dir = e.is_directory(ec) && !e.is_symlink(ec);
    if (is_dir || !m.holds(name)) r.push_back(name + (is_dir ? "/" : ""));
  }
  std::sort(r.begin(), r.end());
  return r;
}

void record_run_files(const std::string& dir, const std::vector<std::string>& names) {
  const auto m = read_manifest(dir);
  if (!m.listed) return;
  std::string add;
  for (const auto& n : names)
    if (!m.names.count(n)) add += n + "\n";
  if (add.empty()) return;
  const std::string marker = dir + "/" + run_marker;
  const int fd = ::open(marker.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  const bool ok = fd >= 0 && ::write(fd, add.data(), add.size()) == ssize_t(add.size());
  if (fd >= 0) ::close(fd);
  if (!ok) throw Error("cannot add to " + marker + " (disk full?)");
}

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
  return lock_problem(lock_path(d));
}

RunOutput::RunOutput(std::string directory, std::string format, std::vector<LineSpec> lines)
    : final_dir_(output_directory(directory)),
      dir_(staging_directory(final_dir_)),
      format_(std::move(format)),
      lock_(lock_path(final_dir_)),
      lines_(std::move(lines)) {
  if (const auto why = output_problem(final_dir_); !why.empty())
    throw Error("output " + final_dir_ + ": " + why);
  std::error_code ec;
  const auto parent = fs::path(final_dir_).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw Error("cannot create " + parent.string() + ": " + ec.message());
  lock_fd_ = take_lock(lock_, final_dir_);
  // A staging directory that another process holds: a run whose lock file
  // was deleted under it, or a kflow convert.
  bool busy = false;
  try {
    busy = fs::is_directory(fs::symlink_status(dir_, ec)) && !DirectoryLock(dir_, false).held();
  } catch (const Error&) {
    release_lock();
    throw;
  }
  if (busy) {
    release_lock();
    throw Error("output " + final_dir_ + ": " + dir_ +
                " is in use by another kflow process (a run whose lock " + lock_ +
                " was deleted, or a kflow convert); wait for it to end or choose another output "
                "directory");
  }
}

void RunOutput::release_lock() {
  if (lock_fd_ < 0) return;
  if (same_file(lock_fd_, lock_)) ::unlink(lock_.c_str());  // (still locked: no one takes it now)
  ::close(lock_fd_);
  lock_fd_ = -1;
}

RunOutput::~RunOutput() {
  std::error_code ec;
  if (manifest_fd_ >= 0) ::close(manifest_fd_);
  if (staged_ && !finished_) {
    log_.close();
    remove_run_files(dir_);
    if (!moved_aside_.empty() && !fs::exists(dir_)) fs::rename(moved_aside_, dir_, ec);
  }
  dir_lock_ = DirectoryLock();
  release_lock();
}

void RunOutput::stage(const std::string& restart_dir) {
  std::error_code ec;
  restart_from_ = restart_dir;
  DirectoryLock old;
  if (fs::is_directory(fs::symlink_status(dir_, ec))) {
    old = DirectoryLock(dir_, false);
    if (!old.held())
      throw Error("output " + final_dir_ + ": " + dir_ + " is in use by another kflow process");
  }
  if (!restart_dir.empty() && fs::exists(dir_) && fs::equivalent(restart_dir, dir_, ec)) {
    moved_aside_ = dir_ + ".restart-" + std::to_string(::getpid());
    fs::rename(dir_, moved_aside_, ec);
    if (ec) throw Error("cannot move " + dir_ + " aside: " + ec.message());
    restart_from_ = moved_aside_;
  }
  // A stale staging directory (a killed run's): its files go, anything else stays.
  if (const auto left = remove_run_files(dir_); !left.empty())
    throw Error("output " + final_dir_ + ": " + dir_ + " holds files kflow did not write (" +
                list_of(left) + "); move them, or choose another output directory");
  old = DirectoryLock();
  fs::create_directories(dir_, ec);
  if (ec) throw Error("cannot create the output directory " + dir_ + ": " + ec.message());
  staged_ = true;
  dir_lock_ = DirectoryLock(dir_, false);
  if (!dir_lock_.held())
    throw Error("output " + final_dir_ + ": " + dir_ + " is in use by another kflow process");
  write_text_atomic(dir_ + "/" + run_marker,
                    std::string(marker_intro) + marker_list + run_marker + "\n");
  const std::string marker = dir_ + "/" + run_marker;
  manifest_fd_ = ::open(marker.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (manifest_fd_ < 0) throw Error("cannot open " + marker + ": " + std::strerror(errno));
  recorded_ = {run_marker};
}

void RunOutput::record(const std::string& name) {
  if (manifest_fd_ < 0 || !recorded_.insert(name).second) return;
  const std::string line = name + "\n";
  if (::write(manifest_fd_, line.data(), line.size()) != ssize_t(line.size())) {
    recorded_.erase(name);
    throw Error("writing " + dir_ + "/" + run_marker + " failed (disk full?)");
  }
}

void RunOutput::record(const std::vector<std::string>& names) {
  for (const auto& n : names) record(n);
}

void RunOutput::frame(long index, double t, long step, const linalg::Grid& grid,
                      const std::vector<HostField>& fields,
                      const std::vector<std::vector<double>>& line_values) {
  const std::string file = frame_name(index, "." + format_);
  record(file);
  if (format_ == "vti")
    write_vti(dir_ + "/" + file, grid, fields, t);
  else
    write_frame_file(dir_ + "/" + file, grid, fields, t, step);
  frames_.emplace_back(t, file);
  if (format_ == "vti") {
    record("run.pvd");
    write_pvd(dir_ + "/run.pvd", frames_);
  }
  for (std::size_t k = 0; k < lines_.size(); ++k) {
    record("line_" + lines_[k].name + ".csv");
    append_line_csv(dir_ + "/line_" + lines_[k].name + ".csv", lines_[k], t, line_values.at(k));
  }
}

void RunOutput::parallel_frame(long index, double t, const linalg::Grid& grid,
                               const std::vector<HostField>& fields,
                               const std::vector<Block>& blocks,
                               const std::vector<std::vector<double>>& line_values) {
  std::vector<std::string> pieces;
  for (std::size_t r = 0; r < blocks.size(); ++r) pieces.push_back(piece_name(index, int(r)));
  const std::string file = frame_name(index, ".pvti");
  record(file);
  write_pvti(dir_ + "/" + file, grid, fields, blocks, pieces);
  frames_.emplace_back(t, file);
  record("run.pvd");
  write_pvd(dir_ + "/run.pvd", frames_);
  for (std::size_t k = 0; k < lines_.size(); ++k) {
    record("line_" + lines_[k].name + ".csv");
    append_line_csv(dir_ + "/line_" + lines_[k].name + ".csv", lines_[k], t, line_values.at(k));
  }
}

void RunOutput::checkpoint(const FieldFile& ck) {
  record("checkpoint.kfc");
  write_field_file(dir_ + "/checkpoint.kfc", ck);
}

void RunOutput::body_surface(const std::string& stl) {
  record("body.stl");
  write_atomic(
      dir_ + "/body.stl", [&](std::ostream& o) { o << stl; }, true);
}

void RunOutput::finish(const std::string& target) {
  log_.close();
  if (manifest_fd_ >= 0) ::close(manifest_fd_);
  manifest_fd_ = -1;
  finished_ = true;
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target, ec))) {
    if (!fs::is_directory(fs::symlink_status(target, ec)))
      throw Error("cannot replace " + target + ": it is no longer a directory; the output is in " +
                  dir_);
    // An earlier output: moved aside (waiting for a kflow convert in it to
    // end), the new one put in its place, then the earlier run's files
    // deleted; anything else in it moves into the new output.
    const std::string old = target + ".old-" + std::to_string(::getpid());
    {
      DirectoryLock convert(target, true);
      fs::rename(target, old, ec);
    }
    if (ec) throw Error("cannot replace " + target + ": " + ec.message());
    fs::rename(dir_, target, ec);
    if (ec) throw Error("cannot rename " + dir_ + " to " + target + ": " + ec.message());
    std::vector<std::string> moved;
    for (const auto& name : foreign_entries(old)) {
      const auto bare = name.back() == '/' ? name.substr(0, name.size() - 1) : name;
      std::error_code e2;
      if (!fs::exists(fs::symlink_status(fs::path(target) / bare, e2))) {
        fs::rename(fs::path(old) / bare, fs::path(target) / bare, e2);
        if (!e2) moved.push_back(name);
      }
    }
    if (!moved.empty())
      notes_.push_back("kept " + list_of(moved) + " (not written by kflow, added to " + target +
                       " during this run) in the new " + target);
    if (const auto left = remove_run_files(old); !left.empty())
      notes_.push_back("kept " + list_of(left) + " (not written by kflow) in " + old +
                       ": the new output has files of the same names");
  } else {
    fs::rename(dir_, target, ec);
    if (ec) throw Error("cannot rename " + dir_ + " to " + target + ": " + ec.message());
  }
  if (!moved_aside_.empty())  // carried over
    if (const auto left = remove_run_files(moved_aside_); !left.empty())
      notes_.push_back("kept " + list_of(left) + " (not written by kflow) in " + moved_aside_);
}

}  // namespace kflow::io
