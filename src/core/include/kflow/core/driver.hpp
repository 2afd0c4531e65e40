#pragma once
// The run driver: case validation (prepare, prepare.cpp), then the time loop
// (run, driver.cpp) on a TimeControl clock, writing through io::RunOutput,
// with progress, checkpoints and Ctrl-C handling.

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "kflow/io/lines.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/model.hpp"
#include "kflow/model/registry.hpp"

namespace kflow {

struct RunOptions {
  std::string case_path;
  std::vector<std::string> overrides;  // --set key=value
  std::string backend;                 // overrides [run] backend when not empty
  std::string output_dir;              // overrides [output] directory when not empty
  std::string restart;                 // checkpoint to continue from
  bool write_output = true;            // false: no files at all (compare, bench)
  bool keep_final_fields = false;      // RunResult::fields holds every field at the end
  bool quiet = false;                  // no progress lines
};

// time.steady: stop once the case's flow stops changing.  Every `every` of
// model time the run compares `field` with its value one check earlier; the
// residual is the largest change per unit of model time relative to the
// field's largest magnitude (1 / time units), and the run ends at the first
// check where it is at most `tolerance` (time.end stays the limit).
struct SteadySettings {
  double tolerance = 0;  // 0: off
  double every = 0;
  std::string field;
};

// Everything read from a case file, validated, before any work.
struct PreparedCase {
  explicit PreparedCase(Config c) : config(std::move(c)) {}
  Config config;
  const ModelInfo* model = nullptr;
  std::unique_ptr<ModelSetup> setup;
  std::string name, backend, precision;
  double end = 0;      // model time to reach (0: not set)
  long max_steps = 0;  // 0: no limit
  double safety = 0.9, fixed_dt = 0;
  std::string output_dir;
  double output_every = 0;  // model time between frames (0: unused)
  long output_every_steps = 0;
  std::string format;  // "vti" (VTK) | "kff" (field files, for 'kflow convert')
  std::vector<std::string> fields;
  std::vector<io::LineSpec> lines;
  long log_every = 1;
  double dt_floor = 1e-14;
  // time.clock = "float32": the model time is accumulated in single
  // precision and steps are not shortened to land on output times or the
  // end (the loop runs while t < end), as in Menenguci et al.'s GPU code;
  // it reproduces that paper's step counts (Table 1).
  bool float_clock = false;
  // time.device_dt: with an adaptive dt and a model that can choose it on
  // the device (Model::device_dt(), the DeviceDt capability), run the steps between log rows
  // and outputs in batches without a read-back per step (the same steps and
  // bits as reading dt back every step, which 'false' does).
  bool device_dt = true;
  SteadySettings steady;
  // Memory estimate (bytes): the model's state on its device, and the host
  // copies of one frame's fields.
  double state_bytes = 0, frame_bytes = 0;
  // [run] ranks: blocks per axis of a distributed run (empty: kflow's
  // choice, dist::choose_blocks); ranks_where: its place in the case file, for messages.
  std::vector<int> ranks;
  std::string ranks_where;
};

// Validates the case (and the options); throws kflow::Error.  No work, no files.
PreparedCase prepare(const RunOptions& opt);
// The blocks of a run over this job's ranks (parallel::size()): [run] ranks,
// or balanced ones; sets pc.setup->decomposition.  Refuses, before any
// work: several ranks for a model that runs on one, ranks that do not
// multiply to the job's, more blocks on an axis than it has cells.
void decompose(PreparedCase& pc);
// The same for a configuration already loaded (bench cases, tests).
PreparedCase prepare(Config config, const RunOptions& opt);

// Refuses (kflow::Error with the numbers) work that cannot fit: `device_bytes`
// in the memory of `backend` (the host's MemAvailable, a GPU's free memory)
// and `host_bytes` more on the host.  "<what> needs about 12 GB of host
// memory (<detail>), 8 GB are free here; <advice>".  Runs and benches call it
// before they allocate.
// ", 22.3 GB are free here" (and the process's own limit, ulimit -v), for
// messages about memory.
std::string free_memory_text(const std::string& backend);

void check_memory(double device_bytes, double host_bytes, const std::string& backend,
                  const std::string& what, const std::string& detail, const std::string& advice);
// The case's state and frames against the memory of its backend (check_memory):
// what run refuses before allocating, check refuses too.
void check_case_memory(const PreparedCase& pc);

// What a failure says to the user: a kflow::Error's message; an allocation
// that failed (std::bad_alloc, Kokkos' "failed to allocate") in kflow's
// words with what needed how much and what is free; else what().
std::string failure_message(const std::exception& e);

struct RunResult {
  std::string status;  // "completed" | "interrupted"
  // Interrupted by a second signal during a step: the state is mid-step, the
  // output's checkpoint is the last complete one, at restart_time.
  bool stopped_mid_step = false;
  double restart_time = -1;
  std::string output_dir;
  long steps = 0;
  long device_dt_steps = 0;  // steps run in device-dt batches (time.device_dt)
  double time = 0, wall_seconds = 0, step_seconds = 0;
  double cell_updates_per_second = 0, bandwidth_bytes_per_second = 0;
  Diagnostics diagnostics;
  std::vector<HostField> fields;  // when RunOptions::keep_final_fields
};

// Runs a prepared case.  Throws kflow::Error on failure (blow-up included);
// `log` receives progress and messages.  Interrupted runs (SIGINT, SIGTERM,
// SIGHUP) return status "interrupted" after writing a last frame and a
// checkpoint; a second signal (0.25 s or more after the first) stops the
// step's solves at once and keeps the last complete checkpoint.
RunResult run(PreparedCase& pc, const RunOptions& opt, std::ostream& log);

}  // namespace kflow
