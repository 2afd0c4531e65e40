#pragma once
// A run's output directory.  Everything is written into "<dir>.running";
// only when the run ends does it take its final name (<dir> when completed,
// <dir>.interrupted, <dir>.failed), so an earlier <dir> is replaced only by
// a finished run.  Contents: frame_NNNNN.vti|.kff (+ run.pvd for .vti),
// log.csv, line_<name>.csv, checkpoint.kfc, summary.json and case.toml.

#include <fstream>
#include <string>
#include <vector>

#include "kflow/core/model.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/lines.hpp"
#include "kflow/io/pvd.hpp"
#include "kflow/linalg/grid.hpp"

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
};

class RunOutput {
 public:
  // Creates the staging directory "<directory>.running" (replacing a stale one).
  // format: "vti" | "kff".
  RunOutput(std::string directory, std::string format, std::vector<LineSpec> lines);

  // A restarted run continues the output of the run it restarts from (the
  // directory `from`): the frames before the checkpoint (next_frame), the log
  // rows up to its step and the line samples up to its time are copied, so
  // the new .pvd covers the whole run.
  void carry_over(const std::string& from, long step, double t, long next_frame);

  // One log.csv row; the header comes from the first row's diagnostics.
  void log_row(long step, double t, double dt, double wall, const Diagnostics& d);

  // Frame number `index` at time t: the output fields, .pvd, and a row per
  // line (a line's field is looked up in `fields`, then in `line_fields`).
  void frame(long index, double t, long step, const linalg::Grid& grid,
             const std::vector<HostField>& fields, const std::vector<HostField>& line_fields);

  void checkpoint(const FieldFile& ck);     // checkpoint.kfc, atomic
  void write_summary(const RunSummary& s);  // summary.json and case.toml

  // Closes the log and renames the staging directory to `target`.
  void finish(const std::string& target);

  const std::string& directory() const { return final_dir_; }
  std::size_t frames() const { return frames_.size(); }

 private:
  std::string final_dir_, dir_, format_;
  std::vector<LineSpec> lines_;
  FrameList frames_;
  std::ofstream log_;
  bool log_header_ = false;
};

}  // namespace kflow::io
