#include "kflow/core/driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <set>
#include <sstream>

#include "kflow/core/backend.hpp"
#include "kflow/core/build_info.hpp"
#include "kflow/core/gather.hpp"
#include "kflow/core/time_control.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/run_output.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/linalg/solver.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/printable.hpp"
#include "progress.hpp"
#include "restart.hpp"
#include "signals.hpp"
#include "steady.hpp"

namespace fs = std::filesystem;

namespace kflow {

namespace {

// A line's samples: interpolated between cell centres, except at points on
// the domain's boundary whose value the boundary condition fixes (the lid of
// a cavity reads the lid's speed, not the nearest cell's).
std::vector<double> sample_with_boundary(const ModelSetup& setup, const HostField& f,
                                         const io::LineSpec& l) {
  const auto& g = setup.grid;
  auto v = io::sample_line(g, f, l);
  for (int p = 0; p < l.points; ++p) {
    const double s = double(p) / (l.points - 1);
    double x[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d) x[d] = l.from[d] + s * (l.to[d] - l.from[d]);
    for (int d = 0; d < g.dim; ++d) {
      const double tol = 1e-12 * g.length[d];
      const int side = std::abs(x[d] - g.origin[d]) <= tol                 ? 0
                       : std::abs(x[d] - g.origin[d] - g.length[d]) <= tol ? 1
                                                                           : -1;
      double b = 0;
      if (side >= 0 && setup.boundary_value(f.name, d, side, x, b)) {
        v[p] = b;
        break;
      }
    }
  }
  return v;
}

TimeSettings time_settings(const PreparedCase& pc, double model_dt) {
  TimeSettings s;
  s.end = pc.end;
  s.max_steps = pc.max_steps;
  s.output_every = pc.output_every;
  s.output_every_steps = pc.output_every_steps;
  s.log_every = pc.log_every;
  s.safety = pc.safety;
  s.fixed_dt = pc.fixed_dt;
  s.dt_floor = pc.dt_floor;
  s.float_clock = pc.float_clock;
  s.model_dt = model_dt;
  return s;
}

// One run: the model, its clock and its output, and what happens after a step.
class Run {
 public:
  Run(PreparedCase& pc, const RunOptions& opt, std::ostream& log, std::unique_ptr<Model> model,
      const Start& start, Clock::time_point t_start, std::unique_ptr<io::RunOutput> out)
      : pc_(pc),
        opt_(opt),
        model_(std::move(model)),
        clock_(time_settings(pc, model_->fixed_dt()), start.t, start.step),
        start_(start),
        frame_(start.next_frame),
        t_start_(t_start),
        progress_(log, opt.quiet, &log == &std::cerr && ::isatty(STDERR_FILENO)),
        out_(std::move(out)),
        last_frame_time_(opt.restart.empty() ? -1 : start.t),
        log_step_(opt.restart.empty() ? -1 : start.step),
        frame_step_(log_step_),
        log_(log),
        blocks_(linalg::dist::make_local_grid(pc.setup->grid, pc.setup->decomposition)),
        steady_(pc.steady, start.t) {}

  // The time loop; returns "completed" or "interrupted".  On an exception the
  // output so far is kept in <dir>.failed.
  std::string loop();
  RunResult finish(const std::string& status);

 private:
  void step_batch(DeviceDt& ddt, long m);
  void after_step(bool at_output);
  void write_log();
  void warn_unconverged();
  void check_steady();
  void write_frame();
  void write_frame_now();

  PreparedCase& pc_;
  const RunOptions& opt_;
  std::unique_ptr<Model> model_;
  TimeControl clock_;
  Start start_;
  long frame_;  // the next frame's number
  Clock::time_point t_start_;
  Progress progress_;
  std::unique_ptr<io::RunOutput> out_;  // null: no files (compare, bench)
  Diagnostics diag_;
  long device_dt_steps_ = 0;
  double loop_seconds_ = 0, output_seconds_ = 0;
  double last_frame_time_;  // of the last complete frame and its checkpoint (-1: none)
  bool stopped_mid_step_ = false;
  // The steps of the last log row and of the last frame with its checkpoint
  // (a restart's: its checkpoint's).
  long log_step_, frame_step_;
  // The last frame is a stop's (1), with its log row (2): not an output time's.
  int stop_output_ = 0;
  double warned_unconverged_ = 0;  // unconverged_solves at the last warning
  std::ostream& log_;
  // This rank's block: output gathers the blocks to rank 0, the only rank
  // with an out_ (several ranks).
  linalg::dist::LocalGrid blocks_;
  SteadyCheck steady_;  // time.steady
};

std::string Run::loop() {
  SignalGuard signals;
  std::string status = "completed";
  const auto t_loop = Clock::now();
  DeviceDt* ddt = model_->device_dt();
  const bool batching = pc_.device_dt && model_->fixed_dt() <= 0 && pc_.fixed_dt <= 0 && ddt &&
                        ddt->max_stable_dt() > 0;
  try {
    // (a restart's checkpoint comes with its frame and log row, carried over)
    if (clock_.step() == 0 && opt_.restart.empty()) {
      diag_ = model_->diagnostics(clock_.time());
      write_log();
      write_frame();
    }
    if (steady_.on()) check_steady();  // (the first snapshot)
    while (clock_.running() && !steady_.converged()) {
      if (interrupted()) {
        status = "interrupted";
        break;
      }
      // Steps with device-chosen dt between log rows and outputs, read back per batch.
      if (batching) {
        const long m = clock_.batch_length(ddt->max_stable_dt());
        if (m >= 2) {
          step_batch(*ddt, m);
          continue;
        }
      }
      const auto s = clock_.plan(*model_);
      model_->step(clock_.time(), s.dt);
      clock_.advance(s);
      after_step(s.at_output);
    }
    // The last step's frame and log row, unless they were written with the
    // step (a signal during its output) or the run starts here (a restart).
    if ((status == "interrupted" || steady_.converged()) && clock_.step() != frame_step_) {
      diag_ = model_->diagnostics(clock_.time());
      stop_output_ = clock_.step() != log_step_ ? 2 : 1;  // (the checkpoint says so)
      if (stop_output_ == 2) write_log();
      write_frame();
    }
    model_->fence();
  } catch (const linalg::Cancelled&) {  // a second signal during a step
    progress_.done();
    stopped_mid_step_ = true;
    model_->fence();
    loop_seconds_ = seconds_since(t_loop);
    return "interrupted";
  } catch (const std::exception& e) {  // kflow::Error, and Kokkos/CUDA or I/O failures
    progress_.done();
    std::string where, starved;
    // A time step that shrank to the floor after solves stopped short: a
    // starved solver rather than the physics.
    for (const auto& [k, v] : diag_)
      if (k == "unconverged_solves" && v > 0)
        starved = " (" + number_text(v) + " solve" + (v == 1 ? "" : "s") +
                  " had stopped at max_iterations before this: the solver may be starved; raise "
                  "its max_iterations)";
    if (out_) {
      const std::string target = out_->directory() + ".failed";
      try {
        out_->finish(target);
        where = "; the output so far is in " + target +
                (last_frame_time_ < 0 ? " (no complete frame)"
                                      : " (its last complete frame and checkpoint: t = " +
                                            number_text(last_frame_time_) + ")") +
                (fs::exists(out_->directory())
                     ? ", the previous output in " + out_->directory() + " is untouched"
                     : "");
      } catch (const Error&) {
      }
    }
    throw Error(failure_message(e) + starved + where);
  }
  progress_.done();
  loop_seconds_ = seconds_since(t_loop);
  return status;
}

void Run::step_batch(DeviceDt& ddt, long m) {
  for (long k = 0; k < m; ++k) {
    if (k > 0 && interrupted()) {  // a signal ends the batch after its step, as it ends a run
      m = k;
      break;
    }
    ddt.step_device_dt(pc_.safety);
  }
  device_dt_steps_ += m;
  for (const double d : ddt.device_dts(m)) clock_.advance_device(d);
  after_step(false);
}

// Everything after a step: log row, frame, progress.
void Run::after_step(bool at_output) {
  const double t = clock_.time();
  if (clock_.log_due(at_output)) {
    diag_ = model_->diagnostics(t);
    for (const auto& [k, v] : diag_)
      if (!std::isfinite(v))
        throw Error("blow-up at step " + std::to_string(clock_.step()) + ", t = " + number_text(t) +
                    ": " + k + " is " + number_text(v) + " (dt = " + number_text(clock_.dt()) +
                    "); " +
                    (model_->fixed_dt() > 0
                         ? "the model fixes its time step: try a finer grid or the model's own "
                           "stability parameters"
                         : "try a smaller time.safety_factor or a finer grid"));
    write_log();
    warn_unconverged();
  }
  if (clock_.output_due(at_output)) {
    write_frame();
    clock_.output_written();
  }
  if (steady_.due(t)) check_steady();
  progress_.update(clock_.step(), t, clock_.dt(), pc_.end, pc_.max_steps, seconds_since(t_start_),
                   start_.t, start_.step);
}

// A model's diagnostic "unconverged_solves" (solves stopped by their
// iteration limit, counted from the start): a warning the first time it grows
// and then at every 100 more.
void Run::warn_unconverged() {
  for (const auto& [k, v] : diag_)
    if (k == "unconverged_solves" && v >= warned_unconverged_ + (warned_unconverged_ ? 100 : 1)) {
      progress_.done();
      log_ << "kflow: warning: " << number_text(v) << " solve" << (v == 1 ? "" : "s")
           << " stopped at max_iterations before reaching the tolerance (by step " << clock_.step()
           << "; log.csv: unconverged_solves); raise max_iterations, or set on_unconverged = "
              "\"error\" to stop the run there\n";
      warned_unconverged_ = v;
    }
}

// time.steady: the residual since the last check; a message when it is
// reached, or when the run ends without it (finish()).
void Run::check_steady() {
  const auto& st = steady_.settings();
  const double r = steady_.check(model_->field(st.field, clock_.time()), clock_.time());
  if (steady_.converged()) {
    progress_.done();
    if (!opt_.quiet)
      log_ << "kflow: steady: the change of " << st.field << " fell to " << number_text(r, 3)
           << " per unit time (tolerance " << number_text(st.tolerance)
           << ") at t = " << number_text(clock_.time()) << ", step " << clock_.step() << "\n";
  }
}

void Run::write_log() {
  if (out_) {
    if (!steady_.on()) {
      out_->log_row(clock_.step(), clock_.time(), clock_.dt(), seconds_since(t_start_), diag_);
    } else {  // the last residual (nan before the first)
      auto d = diag_;
      d.emplace_back("steady_residual", steady_.residual() >= 0 ? steady_.residual() : NAN);
      out_->log_row(clock_.step(), clock_.time(), clock_.dt(), seconds_since(t_start_), d);
    }
  }
  log_step_ = clock_.step();
}

// A frame (with its line samples) and the checkpoint that restarts from it.
// Several ranks: every rank's block of each field goes to rank 0, which
// writes the frame and checkpoint on the global grid as one rank would.
void Run::write_frame() {
  try {
    write_frame_now();
  } catch (const std::bad_alloc&) {  // its host copies: named with the estimate
    throw Error(
        "out of memory: frame " + std::to_string(frame_) + " at t = " + number_text(clock_.time()) +
        " needs about " + number_text(pc_.frame_bytes / 1e9, 3) +
        " GB of host memory (its fields and the checkpoint's state)" + free_memory_text("openmp"));
  }
}

void Run::write_frame_now() {
  if (!opt_.write_output) return;
  const auto t_out = Clock::now();
  const double t = clock_.time();
  // Several ranks writing .vti: each rank writes its block as a piece, rank
  // 0 the .pvti that joins them (no gather); otherwise rank 0 writes the
  // gathered fields.
  const bool pieces = parallel::size() > 1 && pc_.format == "vti";
  std::vector<HostField> fields;
  for (const auto& name : pc_.fields) {
    HostField f = model_->field(name, t);
    fields.push_back(pieces ? std::move(f) : gather_field(f, blocks_));
  }
  if (pieces) {
    io::Block mine;
    for (int d = 0; d < 3; ++d) {
      mine.offset[d] = blocks_.offset[d];
      mine.cells[d] = d < blocks_.local.dim ? blocks_.local.cells[d] : 1;
    }
    // Rank 0 lists every rank's piece among the run's files before they exist.
    parallel::on_root([&] {
      std::vector<std::string> names;
      for (int r = 0; r < parallel::size(); ++r) names.push_back(io::piece_name(frame_, r));
      if (out_) out_->record(names);
    });
    io::write_vti_piece(
        io::staging_directory(pc_.output_dir) + "/" + io::piece_name(frame_, parallel::rank()),
        pc_.setup->grid, mine, fields, t);
  }
  std::vector<std::vector<double>> line_values;
  for (const auto& l : pc_.lines) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const HostField& f) { return f.name == l.field; });
    // A field of the frame is reused (gathered when the frame went out as
    // pieces), not computed again.
    const HostField f = it == fields.end() ? gather_field(model_->field(l.field, t), blocks_)
                        : pieces           ? gather_field(*it, blocks_)
                                           : *it;
    if (out_) line_values.push_back(sample_with_boundary(*pc_.setup, f, l));
  }
  if (pieces) {
    std::vector<io::Block> all(std::size_t(parallel::size()));
    for (int d = 0; d < 3; ++d) {
      const auto o = parallel::gather(double(blocks_.offset[d]));
      const auto c = parallel::gather(double(d < blocks_.local.dim ? blocks_.local.cells[d] : 1));
      for (std::size_t r = 0; r < o.size(); ++r) {
        all[r].offset[d] = int(o[r]);
        all[r].cells[d] = int(c[r]);
      }
    }
    parallel::barrier();  // every piece is written before the .pvti names it
    if (out_) out_->parallel_frame(frame_, t, pc_.setup->grid, fields, all, line_values);
  } else if (out_) {
    out_->frame(frame_, t, clock_.step(), pc_.setup->grid, fields, line_values);
  }
  ++frame_;
  auto state = gather_state(model_->save_state(), blocks_);
  if (!out_) {
    parallel::barrier();  // rank 0 has written the frame: output time, not stepping
    output_seconds_ += seconds_since(t_out);
    frame_step_ = clock_.step();
    return;
  }
  io::FieldFile ck;
  ck.meta["kind"] = "checkpoint";
  ck.meta["model"] = pc_.model->name;
  ck.meta["precision"] = pc_.precision;
  ck.meta["backend"] = pc_.backend;
  ck.meta["case"] = pc_.name;
  ck.meta["step"] = std::to_string(clock_.step());
  ck.meta["time"] = io::exact(t);
  ck.meta["next_frame"] = std::to_string(frame_);
  if (stop_output_) ck.meta["stop_output"] = stop_output_ == 2 ? "frame_and_row" : "frame";
  ck.meta["case_toml"] = pc_.config.to_toml();  // the case as run, for a restart to compare
  io::grid_to_meta(pc_.setup->grid, ck.meta);
  ck.arrays = std::move(state);
  out_->checkpoint(ck);
  parallel::barrier();
  last_frame_time_ = t;
  frame_step_ = clock_.step();
  output_seconds_ += seconds_since(t_out);
}

RunResult Run::finish(const std::string& status) {
  const auto& grid = pc_.setup->grid;
  const double cells = static_cast<double>(grid.interior_cells());
  RunResult r;
  r.status = status;
  r.stopped_mid_step = stopped_mid_step_;
  r.restart_time = last_frame_time_;
  r.steps = clock_.step();
  r.device_dt_steps = device_dt_steps_;
  r.time = clock_.time();
  r.diagnostics = diag_;
  if (steady_.on() && !steady_.converged() && status == "completed" && !opt_.quiet) {
    const auto& st = steady_.settings();
    log_ << "kflow: warning: not steady by the end (t = " << number_text(r.time)
         << "): the change of " << st.field << " is "
         << (steady_.residual() >= 0 ? number_text(steady_.residual(), 3)
                                     : std::string("not measured yet"))
         << " per unit time, time.steady.tolerance " << number_text(st.tolerance)
         << "; raise time.end to run on\n";
  }
  r.wall_seconds = seconds_since(t_start_);
  r.step_seconds = loop_seconds_ - output_seconds_;
  const long steps_run = clock_.step() - start_.step;
  if (r.step_seconds > 0) {
    r.cell_updates_per_second = cells * steps_run / r.step_seconds;
    r.bandwidth_bytes_per_second = r.cell_updates_per_second * model_->bytes_per_cell_step();
  }
  if (opt_.keep_final_fields)
    for (const auto& name : pc_.setup->fields)
      r.fields.push_back(gather_field(model_->field(name, r.time), blocks_));
  // Each rank's times (rank 0 has them all).
  const auto rank_total = parallel::gather(r.wall_seconds);
  const auto rank_stepping = parallel::gather(r.step_seconds);
  const auto rank_exchange = parallel::gather(model_->exchange_seconds());
  if (!out_) return r;

  io::RunSummary s;
  s.version = KFLOW_VERSION;
  s.build = build_info();
  s.case_name = pc_.name;
  s.case_file = opt_.case_path;
  s.model = pc_.model->name;
  s.backend = pc_.backend;
  s.device = backend_description(pc_.backend);
  s.precision = pc_.precision;
  s.status = status;
  s.restart = opt_.restart;
  s.grid = grid;
  s.steps = r.steps;
  s.steps_this_run = steps_run;
  s.device_dt_steps = device_dt_steps_;
  s.time = r.time;
  s.wall_total = r.wall_seconds;
  s.wall_setup = r.wall_seconds - loop_seconds_;
  s.wall_stepping = r.step_seconds;
  s.wall_output = output_seconds_;
  s.cells = cells;
  s.cell_updates_per_second = r.cell_updates_per_second;
  s.bytes_per_cell_step = model_->bytes_per_cell_step();
  s.bandwidth_bytes_per_second = r.bandwidth_bytes_per_second;
  s.diagnostics = diag_;
  s.config_json = pc_.config.to_json();
  s.config_toml = pc_.config.to_toml();
  if (parallel::size() > 1) {
    s.ranks = pc_.setup->decomposition.ranks;
    s.rank_wall_total = rank_total;
    s.rank_wall_stepping = rank_stepping;
    s.rank_wall_exchange = rank_exchange;
    s.halo = parallel::transport_name();
  }
  if (steady_.on()) {
    s.steady_field = pc_.steady.field;
    s.steady_tolerance = pc_.steady.tolerance;
    s.steady_residual = steady_.residual();
    s.steady_time = clock_.time();
  }
  out_->write_summary(s);
  r.output_dir = status == "completed" ? out_->directory() : out_->directory() + ".interrupted";
  out_->finish(r.output_dir);
  for (const auto& n : out_->notes()) log_ << "kflow: note: " << n << "\n";
  return r;
}

}  // namespace

RunResult run(PreparedCase& pc, const RunOptions& opt, std::ostream& log) {
  const auto t_start = Clock::now();
  const auto factory = Registry::instance().factory(pc.model->name, pc.backend, pc.precision);
  if (!factory)
    throw parallel::AgreedError("model " + pc.model->name + " has no " + pc.precision +
                                " build for backend " + pc.backend);
  place_bodies(*pc.setup, false);  // (a model's mask of its bodies, and its checks)
  const auto& grid = pc.setup->grid;
  if (!opt.quiet) {
    log << "kflow: case \"" << printable(pc.name) << "\": model " << pc.model->name << ", grid "
        << grid.cells_text() << ", " << pc.precision << ", backend " << pc.backend << " ("
        << backend_description(pc.backend) << ")\n";
    if (parallel::size() > 1) {
      const auto& r = pc.setup->decomposition.ranks;
      log << "kflow: " << parallel::size() << " ranks, blocks " << r[0] << "x" << r[1]
          << (grid.dim == 3 ? "x" + std::to_string(r[2]) : "") << " (" << parallel::library()
          << ")\n";
    }
    for (const auto& n : pc.setup->notes) log << "kflow: note: " << n << "\n";
  }
  if (opt.write_output && pc.format == "kff" && !opt.quiet)
    log << "kflow: frames are written as .kff field files"
        << (io::vtk_available() ? "" : " (this build has no VTK)")
        << "; 'kflow convert DIR' turns them into .vti/.pvd where VTK exists\n";

  // (Memory: checked by prepare(), before any allocation.)

  // The output's lock before any work (rank 0 writes all output); the
  // checkpoint read (by every rank) before the staging directory (which may
  // be where it lies) is set up.
  std::unique_ptr<io::RunOutput> out;
  if (opt.write_output)
    parallel::on_root(
        [&] { out = std::make_unique<io::RunOutput>(pc.output_dir, pc.format, pc.lines); });
  Start start;
  io::FieldFile ck;
  if (!opt.restart.empty()) {
    try {
      ck = read_checkpoint(pc, opt.restart, start);
    } catch (const Error& e) {
      throw parallel::AgreedError(e.what());  // every rank read the same file
    }
    note_case_changes(ck, pc, opt.restart, log);
  }
  parallel::barrier();  // every rank has read the checkpoint
  parallel::on_root([&] {
    if (!out) return;
    out->stage(opt.restart.empty() ? "" : fs::path(opt.restart).parent_path().string());
    if (!pc.setup->bodies.empty()) out->body_surface(body_surface_stl(pc.setup->bodies, grid));
  });
  std::unique_ptr<Model> model;
  try {
    model = factory(*pc.setup);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // an allocation of the state: named with the estimate
    throw Error(failure_message(e) + " (allocating the model's state, about " +
                number_text(pc.state_bytes / 1e9, 3) + " GB for grid " + grid.cells_text() + ", " +
                pc.precision + ")");
  }
  if (!opt.quiet)
    for (const auto& n : model->notes()) log << "kflow: note: " << n << "\n";
  // A model whose discretisation fixes the step (lattice Boltzmann).
  const double model_dt = model->fixed_dt();
  if (model_dt > 0 && pc.fixed_dt > 0 && std::abs(pc.fixed_dt - model_dt) > 1e-9 * model_dt)
    throw Error("time.dt = " + number_text(pc.fixed_dt) + ", but model " + pc.model->name +
                " steps by exactly " + number_text(model_dt, 10) +
                " (fixed by its discretisation); leave time.dt out");
  if (!opt.restart.empty()) {
    // A checkpoint holds the global grid's arrays: each rank takes its block.
    model->restore_state(
        block_of_state(ck.arrays, linalg::dist::make_local_grid(grid, pc.setup->decomposition)));
    if (out) {
      for (const auto& n :
           out->carry_over(start.step, start.t, start.next_frame, start.stop_frame, start.stop_row))
        log << "kflow: note: " << n << "\n";
      out->checkpoint(ck);  // the output holds the checkpoint it continues from
    }
    if (!opt.quiet)
      log << "kflow: restarting from " << opt.restart << " at step " << start.step
          << ", t = " << number_text(start.t) << "\n";
  }
  Run r(pc, opt, log, std::move(model), start, t_start, std::move(out));
  return r.finish(r.loop());
}

}  // namespace kflow
