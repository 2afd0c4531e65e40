#pragma once
// A run's output directory.  Everything is written into "<dir>.running";
// only when the run ends does it take its final name (<dir> when completed,
// <dir>.interrupted, <dir>.failed), so an earlier <dir> is replaced only by
// a finished run.  Contents: frame_NNNNN.vti|.kff (+ run.pvd for .vti;
// several ranks: frame_NNNNN.pvti and a piece frame_NNNNN_rRRRR.vti a rank),
// log.csv, line_<name>.csv, checkpoint.kfc, summary.json, case.toml and the
// marker file .kflow-run, which lists every file the run wrote (a name is
// added before its file is created).
//
// What kflow promises (docs/safety.md): it replaces only directories an
// earlier run created (they hold .kflow-run) or empty ones, and deletes only
// the files the marker lists; one run at a time writes to a directory (it
// holds a flock on <dir>.lock and on <dir>.running while it lives); every
// file is complete or absent; a restart from any checkpoint, <dir>.running's
// included, carries over everything up to it.

#include <array>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kflow/io/fieldfile.hpp"
#include "kflow/io/files.hpp"
#include "kflow/io/lines.hpp"
#include "kflow/io/pvd.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/model/model.hpp"

namespace kflow::io {

// What summary.json records about a run (written by RunOutput::write_summary).
struct RunSummary {
  std::string version, case_name, case_file, model, backend, device, precision;
  std::string status, restart;  // status: completed | interrupted
  linalg::Grid grid;
  long steps = 0, steps_this_run = 0, device_dt_steps = 0;
  double time = 0;
  double wall_total = 0, wall_setup = 0, wall_stepping = 0, wall_output = 0;
  double cells = 0, cell_updates_per_second = 0, bytes_per_cell_step = 0,
         bandwidth_bytes_per_second = 0;
  Diagnostics diagnostics;
  std::string config_json, config_toml;  // the case as run (every default filled in)
  // Distributed runs: blocks per axis, and per rank the wall time in total,
  // stepping (output excluded) and halo exchange (part of stepping).
  std::array<int, 3> ranks{1, 1, 1};
  std::vector<double> rank_wall_total, rank_wall_stepping, rank_wall_exchange;
  std::string halo;  // how the halo's buffers travelled (parallel::transport_name)
  // time.steady: the field checked, its tolerance (0: no steady check), the
  // last residual (-1: none yet) and the model time it was measured at.
  std::string steady_field;
  double steady_tolerance = 0, steady_residual = -1, steady_time = 0;
  // What the program was built with (kflow::build_info): (item, version).
  std::vector<std::pair<std::string, std::string>> build;
};

// The marker file of every directory kflow writes.
inline constexpr const char* run_marker = ".kflow-run";

// The output directory as kflow uses it (trailing slashes removed).
std::string output_directory(const std::string& dir);
// Where a run writes until it ends: "<output_directory(dir)>.running".
std::string staging_directory(const std::string& dir);
// The piece of frame `index` that rank `rank` writes (several ranks, .vti).
std::string piece_name(long index, int rank);

// The lock file of the output `dir`: "<output_directory(dir)>.lock".
std::string lock_path(const std::string& dir);

// Why kflow must not write a run's output to `dir` (and its .running,
// .interrupted, .failed siblings), or "" when it may: it must name a
// directory below some parent ("", ".", "..", "/" do not), whatever is
// there must be an empty directory or one an earlier run created holding
// only the files that run wrote, and <dir>.lock, when there, must be
// kflow's.
std::string output_problem(const std::string& dir);

// The entries of directory `dir` that no kflow run wrote there, sorted
// (directories end in "/"): what its marker file does not list (a marker
// without a list, from an older kflow: what is not named like kflow's
// files).  Empty when `dir` is no directory.
std::vector<std::string> foreign_entries(const std::string& dir);

// Adds `names` to the list of files in the marker of run directory `dir`
// (a directory without a marker, or an older marker, is left as it is).
void record_run_files(const std::string& dir, const std::vector<std::string>& names);

class RunOutput {
 public:
  // Takes the output's lock "<directory>.lock": a flock held until the
  // object dies (refused while another process holds it; the file of a
  // killed run is taken over; a file that is not kflow's is refused, never
  // removed).  format: "vti" | "kff".
  RunOutput(std::string directory, std::string format, std::vector<LineSpec> lines);
  // Releases the lock; a run that never finished removes what it wrote in
  // its staging directory and puts back the one it restarted from.
  ~RunOutput();
  RunOutput(const RunOutput&) = delete;
  RunOutput& operator=(const RunOutput&) = delete;

  // Creates the staging directory "<directory>.running".  restart_dir: the
  // directory of the checkpoint a restart continues from ("" for none); when
  // it is the staging directory itself (a run killed without a word), that is
  // moved aside first and carried over from there.
  void stage(const std::string& restart_dir);

  // A restarted run continues the output of the run it restarts from: the
  // frames before the checkpoint (next_frame), the log rows up to its step
  // and the line samples up to its time are copied, so the new .pvd covers
  // the whole run.  Returns notes for the user (frames before the
  // checkpoint that are missing); a damaged CSV row is an error naming it.
  // stop_frame, stop_row: the checkpoint's frame (with its line samples) and
  // log row were a stop's, not an output time's: not carried.
  std::vector<std::string> carry_over(long step, double t, long next_frame, bool stop_frame = false,
                                      bool stop_row = false);

  // Adds files that are about to be written into the staging directory by
  // others (a distributed run's pieces) to its list of files.
  void record(const std::vector<std::string>& names);

  // One log.csv row, flushed; the header comes from the first row's diagnostics.
  void log_row(long step, double t, double dt, double wall, const Diagnostics& d);

  // Frame number `index` at time t: the output fields, .pvd, and a row per
  // line (line_values[k]: the samples of line k).
  void frame(long index, double t, long step, const linalg::Grid& grid,
             const std::vector<HostField>& fields,
             const std::vector<std::vector<double>>& line_values);
  // The same for a frame whose ranks wrote their blocks as pieces
  // (piece_name): the .pvti that joins them (`fields`: names and
  // components), the .pvd and the line rows.
  void parallel_frame(long index, double t, const linalg::Grid& grid,
                      const std::vector<HostField>& fields, const std::vector<Block>& blocks,
                      const std::vector<std::vector<double>>& line_values);

  void checkpoint(const FieldFile& ck);       // checkpoint.kfc, atomic
  void body_surface(const std::string& stl);  // body.stl (the bytes of an STL file), atomic
  void write_summary(const RunSummary& s);    // summary.json and case.toml

  // Closes the log and renames the staging directory to `target`.  An
  // earlier run's output there is replaced: the files it wrote are deleted,
  // anything else in it (added while this run ran) moves into the new
  // output, and notes() says so.
  void finish(const std::string& target);

  const std::string& directory() const { return final_dir_; }
  std::size_t frames() const { return frames_.size(); }
  // What finish() has to tell the user (files it kept).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void record(const std::string& name);
  void release_lock();

  std::string final_dir_, dir_, format_, lock_, restart_from_, moved_aside_;
  bool staged_ = false, finished_ = false;
  int lock_fd_ = -1;        // <dir>.lock, flocked
  DirectoryLock dir_lock_;  // the staging directory's
  int manifest_fd_ = -1;    // the marker file, appended to
  std::set<std::string> recorded_;
  std::vector<std::string> notes_;
  std::vector<LineSpec> lines_;
  FrameList frames_;
  std::ofstream log_;
  bool log_header_ = false;
  std::vector<std::string> log_columns_;  // log.csv's header
  std::vector<std::string> merge_log_columns(const std::string& path,
                                             const std::vector<std::string>& now);
};

}  // namespace kflow::io
