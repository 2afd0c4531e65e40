#include "kflow/core/driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "kflow/core/backend.hpp"
#include "kflow/core/error.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/files.hpp"
#include "kflow/io/vtk.hpp"

namespace fs = std::filesystem;

namespace kflow {

namespace {

std::string stem(const std::string& path) {
  return fs::path(path).stem().string();
}

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_signal(int) {
  g_interrupted = 1;
}

// Installs the Ctrl-C / SIGTERM handler for the lifetime of a run.
struct SignalGuard {
  using Handler = void (*)(int);
  Handler old_int, old_term;
  SignalGuard() {
    g_interrupted = 0;
    old_int = std::signal(SIGINT, on_signal);
    old_term = std::signal(SIGTERM, on_signal);
  }
  ~SignalGuard() {
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
  }
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string fmt(double v, int prec = 6) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*g", prec, v);
  return b;
}

std::string hms(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  char b[64];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%ldh%02ldm%02lds", t / 3600, (t / 60) % 60, t % 60);
  else if (t >= 60)
    std::snprintf(b, sizeof b, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%.1fs", s);
  return b;
}

// Progress on long runs: one updating line on a terminal, a line every
// `interval` seconds otherwise (logs, CI).
class Progress {
 public:
  Progress(std::ostream& out, bool quiet, bool tty)
      : out_(out), quiet_(quiet), tty_(tty), interval_(tty ? 0.5 : 10.0) {}
  void update(long step, double t, double dt, double end, long max_steps, double wall, double t0,
              long step0) {
    if (quiet_ || wall - last_ < interval_) return;
    last_ = wall;
    double frac = 0;
    if (end > 0) frac = (t - t0) / (end - t0);
    if (max_steps > 0) frac = std::max(frac, double(step - step0) / double(max_steps - step0));
    const double eta = frac > 0 ? wall * (1 - frac) / frac : -1;
    std::ostringstream s;
    s << "step " << step << "  t = " << fmt(t) << "  dt = " << fmt(dt, 4) << "  wall " << hms(wall)
      << "  left ~" << hms(eta) << "  (" << fmt(100 * frac, 3) << "%)";
    if (tty_)
      out_ << "\r" << s.str() << "\033[K" << std::flush;
    else
      out_ << s.str() << "\n" << std::flush;
    dirty_ = tty_;
  }
  void done() {
    if (dirty_) out_ << "\n";
    dirty_ = false;
  }

 private:
  std::ostream& out_;
  bool quiet_, tty_;
  double interval_, last_ = 0;
  bool dirty_ = false;
};

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
  return std::isfinite(v) ? io::exact(v) : "null";
}

}  // namespace

// ------------------------------------------------------------------ prepare

PreparedCase prepare(const RunOptions& opt) {
  return prepare(Config::load(opt.case_path, opt.overrides), opt);
}

PreparedCase prepare(Config config, const RunOptions& opt) {
  PreparedCase pc{std::move(config)};
  auto& reg = Registry::instance();

  const auto cs = pc.config.section("case");
  pc.name = cs.get_string("name", stem(opt.case_path));
  cs.get_string("description", "");
  const auto model_name = cs.require_string("model");
  pc.model = reg.find(model_name);
  if (!pc.model) {
    std::string all;
    for (const auto& n : reg.names()) all += (all.empty() ? "" : ", ") + n;
    const auto guess = closest(model_name, reg.names());
    cs.fail("model", "unknown model \"" + model_name + "\"" +
                         (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                         "; models in this build: " + all);
  }

  const auto rs = pc.config.section("run");
  pc.backend = rs.get_string("backend", "");
  if (!opt.backend.empty()) {
    require_backend(opt.backend, "--backend");
    pc.backend = opt.backend;
  } else if (!pc.backend.empty()) {
    require_backend(pc.backend, rs.where("backend") + ": key 'run.backend'");
  } else {
    pc.backend = default_backend();
  }
  pc.precision = rs.get_choice("precision", {"double", "float"}, "double");
  const auto supported = reg.precisions(model_name, pc.backend);
  if (std::find(supported.begin(), supported.end(), pc.precision) == supported.end()) {
    std::string all;
    for (const auto& p : supported) all += (all.empty() ? "" : ", ") + p;
    rs.fail("precision", "model \"" + model_name + "\" on backend " + pc.backend +
                             " supports precision " + (all.empty() ? "none" : all) + ", not \"" +
                             pc.precision + "\"");
  }

  const auto ts = pc.config.section("time");
  pc.end = ts.get("end", 0.0, 0.0, 1e308, true);
  pc.max_steps = static_cast<long>(ts.get_int("steps", 0, 1, 1000000000000L));
  if (pc.end == 0 && pc.max_steps == 0)
    ts.fail("end", "missing; the case needs time.end (model time to reach) or time.steps");
  pc.fixed_dt = ts.get("dt", 0.0, 0.0, 1e308, true);
  pc.safety = ts.get("safety_factor", 0.9, 0.0, 1.0, true);
  if (ts.has("dt") && ts.has("safety_factor"))
    ts.fail("dt", "give either time.dt (a fixed step) or time.safety_factor (adaptive), not both");
  pc.dt_floor = ts.get("dt_floor", 1e-14, 0.0, 1e308, true);
  pc.float_clock = ts.get_choice("clock", {"float64", "float32"}, "float64") == "float32";
  pc.device_dt = ts.get_bool("device_dt", true);

  const auto os = pc.config.section("output");
  pc.output_dir = os.get_string("directory", "out/" + stem(opt.case_path));
  if (!opt.output_dir.empty()) pc.output_dir = opt.output_dir;
  if (pc.output_dir.empty()) os.fail("directory", "expected a directory name, got \"\"");
  pc.output_every = os.get("every", 0.0, 0.0, 1e308, true);
  pc.output_every_steps = static_cast<long>(os.get_int("every_steps", 0, 1, 1000000000000L));
  if (os.has("every") && os.has("every_steps"))
    os.fail("every", "give either output.every (model time) or output.every_steps, not both");
  pc.log_every = static_cast<long>(os.get_int("log_every", 1, 1, 1000000000L));
  pc.format = os.get_choice("format", {"vti", "kff"}, io::vtk_available() ? "vti" : "kff");
  if (pc.format == "vti" && !io::vtk_available())
    os.fail("format",
            "\"vti\" needs a kflow built with VTK; this build writes \"kff\" frames "
            "(convert them with 'kflow convert DIR' where VTK exists)");

  // The model's own keys; then the keys that need the model's field list.
  pc.setup = pc.model->parse(pc.config);
  const auto& names = pc.setup->fields;
  pc.fields = os.get_strings("fields", names);
  for (const auto& f : pc.fields)
    if (std::find(names.begin(), names.end(), f) == names.end()) {
      const auto guess = closest(f, names);
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      os.fail("fields", "unknown field \"" + f + "\"" +
                            (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                            "; model " + model_name + " has: " + all);
    }
  const auto& grid = pc.setup->grid;
  for (const auto& ls : os.tables("lines")) {
    LineSpec l;
    l.name = ls.require_string("name");
    if (l.name.empty() || l.name.find_first_of("/ \\") != std::string::npos)
      ls.fail("name", "expected a name usable in a file name, got \"" + l.name + "\"");
    l.field = ls.require_string("field");
    if (std::find(names.begin(), names.end(), l.field) == names.end())
      ls.fail("field", "unknown field \"" + l.field + "\"");
    const auto from = ls.get_numbers("from", grid.dim, grid.dim, {});
    const auto to = ls.get_numbers("to", grid.dim, grid.dim, {});
    if (from.empty()) ls.fail("from", "missing; expected the line's start point");
    if (to.empty()) ls.fail("to", "missing; expected the line's end point");
    for (int d = 0; d < grid.dim; ++d) {
      l.from[d] = from[d];
      l.to[d] = to[d];
      for (double x : {from[d], to[d]})
        if (x < grid.origin[d] - 1e-12 || x > grid.origin[d] + grid.length[d] + 1e-12)
          ls.fail(x == from[d] ? "from" : "to", "point outside the domain [" + fmt(grid.origin[d]) +
                                                    ", " + fmt(grid.origin[d] + grid.length[d]) +
                                                    "] in direction " + std::to_string(d));
    }
    int most = 1;
    for (int d = 0; d < grid.dim; ++d) most = std::max(most, grid.cells[d]);
    l.points = static_cast<int>(ls.get_int("points", most + 1, 2, 100000000));
    l.reference = ls.get_string("reference", "");
    if (!l.reference.empty()) {
      if (l.reference[0] != '/') l.reference = pc.config.directory() + "/" + l.reference;
      if (!fs::exists(l.reference)) ls.fail("reference", "file not found: " + l.reference);
    }
    pc.lines.push_back(l);
  }

  pc.config.check_unknown();
  return pc;
}

// ---------------------------------------------------------------- sampling

std::vector<double> sample_line(const linalg::Grid& g, const HostField& f, const LineSpec& line) {
  std::vector<double> out(line.points);
  const int nx = g.cells[0], ny = g.dim > 1 ? g.cells[1] : 1, nz = g.dim > 2 ? g.cells[2] : 1;
  for (int p = 0; p < line.points; ++p) {
    const double s = double(p) / (line.points - 1);
    int i0[3] = {0, 0, 0}, i1[3] = {0, 0, 0};
    double w[3] = {0, 0, 0};
    for (int d = 0; d < g.dim; ++d) {
      const double x = line.from[d] + s * (line.to[d] - line.from[d]);
      double c = (x - g.origin[d]) / g.spacing(d) - 0.5;  // in cell-centre index units
      c = std::clamp(c, 0.0, double(g.cells[d] - 1));
      i0[d] = std::min(static_cast<int>(c), g.cells[d] - 1);
      i1[d] = std::min(i0[d] + 1, g.cells[d] - 1);
      w[d] = c - i0[d];
    }
    double v = 0;
    for (int corner = 0; corner < 8; ++corner) {
      double wt = 1;
      int idx[3];
      for (int d = 0; d < 3; ++d) {
        const bool hi = (corner >> d) & 1;
        if (d >= g.dim && hi) wt = 0;
        idx[d] = hi ? i1[d] : i0[d];
        wt *= d >= g.dim ? 1.0 : (hi ? w[d] : 1 - w[d]);
      }
      if (wt == 0) continue;
      const std::size_t cell = idx[0] + std::size_t(nx) * (idx[1] + std::size_t(ny) * idx[2]);
      v += wt * f.values[cell * f.components];
    }
    out[p] = v;
    (void)nz;
  }
  return out;
}

// ---------------------------------------------------------------------- run

namespace {

struct Outputs {
  bool enabled = false;
  std::string final_dir, dir;  // dir: the staging directory written while running
  std::vector<std::pair<double, std::string>> frames;
  std::ofstream log;
  double output_seconds = 0;
};

void finish_dir(Outputs& o, const std::string& target) {
  if (!o.enabled) return;
  o.log.close();
  std::error_code ec;
  if (target == o.final_dir && fs::exists(target)) {
    const std::string old = target + ".old-" + std::to_string(::getpid());
    fs::rename(target, old, ec);
    if (ec) throw Error("cannot replace " + target + ": " + ec.message());
    fs::rename(o.dir, target, ec);
    if (ec) throw Error("cannot rename " + o.dir + " to " + target + ": " + ec.message());
    fs::remove_all(old, ec);
  } else {
    fs::remove_all(target, ec);
    fs::rename(o.dir, target, ec);
    if (ec) throw Error("cannot rename " + o.dir + " to " + target + ": " + ec.message());
  }
}

// A restarted run continues the output of the run it restarts from: the
// frames before the checkpoint, the log rows up to its step and the line
// samples up to its time are copied into the new output, so the new .pvd
// covers the whole run.
void carry_over(const fs::path& from, Outputs& out, long step, double t, long next_frame) {
  if (from.empty() || !fs::is_directory(from)) return;
  // Frame times of the earlier run, from its .pvd (file name -> time).
  std::map<std::string, double> pvd_times;
  {
    std::ifstream pvd(from / "run.pvd");
    for (std::string line; std::getline(pvd, line);) {
      const auto t_at = line.find("timestep=\""), f_at = line.find("file=\"");
      if (t_at == std::string::npos || f_at == std::string::npos) continue;
      const auto f_end = line.find('"', f_at + 6);
      pvd_times[line.substr(f_at + 6, f_end - f_at - 6)] = std::stod(line.substr(t_at + 10));
    }
  }
  char base[32];
  for (long k = 0; k < next_frame; ++k) {
    std::snprintf(base, sizeof base, "frame_%05ld", k);
    for (const char* ext : {".vti", ".kff"}) {
      const std::string name = std::string(base) + ext;
      const auto src = from / name;
      if (!fs::exists(src)) continue;
      std::error_code ec;
      fs::copy_file(src, fs::path(out.dir) / name, ec);
      if (ec) throw Error("cannot copy " + src.string() + ": " + ec.message());
      if (auto it = pvd_times.find(name); it != pvd_times.end())
        out.frames.emplace_back(it->second, name);
    }
  }
  // CSV files: keep the header and the rows whose first column (step for the
  // log, time for lines) does not pass the checkpoint.
  for (const auto& e : fs::directory_iterator(from)) {
    const auto name = e.path().filename().string();
    const bool is_log = name == "log.csv";
    if (!is_log && !(name.rfind("line_", 0) == 0 && e.path().extension() == ".csv")) continue;
    std::ifstream in(e.path());
    std::ofstream o(fs::path(out.dir) / name);
    std::string line;
    if (std::getline(in, line)) o << line << "\n";
    while (std::getline(in, line)) {
      const double key = std::stod(line.substr(0, line.find(',')));
      if (is_log ? key <= double(step) : key <= t) o << line << "\n";
    }
    if (!o) throw Error("cannot write " + (fs::path(out.dir) / name).string());
  }
}

}  // namespace

RunResult run(PreparedCase& pc, const RunOptions& opt, std::ostream& log) {
  const auto t_start = Clock::now();
  auto& reg = Registry::instance();
  const auto factory = reg.factory(pc.model->name, pc.backend, pc.precision);
  if (!factory)
    throw Error("model " + pc.model->name + " has no " + pc.precision + " build for backend " +
                pc.backend);
  const auto& grid = pc.setup->grid;
  if (!opt.quiet)
    log << "kflow: case \"" << pc.name << "\": model " << pc.model->name << ", grid "
        << grid.cells_text() << ", " << pc.precision << ", backend " << pc.backend << " ("
        << backend_description(pc.backend) << ")\n";
  if (!opt.quiet)
    for (const auto& n : pc.setup->notes) log << "kflow: note: " << n << "\n";
  if (opt.write_output && pc.format == "kff" && !opt.quiet)
    log << "kflow: frames are written as .kff field files"
        << (io::vtk_available() ? "" : " (this build has no VTK)")
        << "; 'kflow convert DIR' turns them into .vti/.pvd where VTK exists\n";

  std::unique_ptr<Model> model = factory(*pc.setup);
  // A model whose discretisation fixes the step (lattice Boltzmann).
  const double model_dt = model->fixed_dt();
  if (model_dt > 0 && pc.fixed_dt > 0 && std::abs(pc.fixed_dt - model_dt) > 1e-9 * model_dt)
    throw Error("time.dt = " + fmt(pc.fixed_dt) + ", but model " + pc.model->name +
                " steps by exactly " + fmt(model_dt, 10) +
                " (fixed by its discretisation); leave time.dt out");
  const double cells = static_cast<double>(grid.interior_cells());

  double t = 0;
  long step = 0;
  long frame = 0;
  if (!opt.restart.empty()) {
    const auto ck = io::read_field_file(opt.restart);
    const auto& f = opt.restart;
    if (ck.get("kind", f) != "checkpoint") throw Error(f + ": not a checkpoint");
    if (ck.get("model", f) != pc.model->name)
      throw Error(f + ": checkpoint of model " + ck.get("model", f) + ", the case runs " +
                  pc.model->name);
    if (ck.get("precision", f) != pc.precision)
      throw Error(f + ": checkpoint in " + ck.get("precision", f) + " precision, the case runs " +
                  pc.precision + " (set run.precision)");
    if (!(io::grid_from_meta(ck, f) == grid))
      throw Error(f + ": checkpoint grid " + io::grid_from_meta(ck, f).cells_text() +
                  " differs from the case's grid " + grid.cells_text());
    t = std::stod(ck.get("time", f));
    step = std::stol(ck.get("step", f));
    frame = std::stol(ck.get("next_frame", f));
    model->restore_state(ck.arrays);
    if ((pc.end > 0 && t >= pc.end) || (pc.max_steps > 0 && step >= pc.max_steps))
      throw Error(f + ": the checkpoint is at step " + std::to_string(step) + ", t = " + fmt(t) +
                  ", already at the case's end; raise time.end or time.steps");
    if (!opt.quiet)
      log << "kflow: restarting from " << f << " at step " << step << ", t = " << fmt(t) << "\n";
  }
  const double t0 = t;
  const long step0 = step;

  Outputs out;
  out.enabled = opt.write_output;
  if (out.enabled) {
    out.final_dir = pc.output_dir;
    out.dir = pc.output_dir + ".running";
    std::error_code ec;
    fs::remove_all(out.dir, ec);
    fs::create_directories(out.dir, ec);
    if (ec) throw Error("cannot create the output directory " + out.dir + ": " + ec.message());
    if (!opt.restart.empty()) carry_over(fs::path(opt.restart).parent_path(), out, step, t, frame);
    out.log.open(out.dir + "/log.csv", std::ios::app);
    if (!out.log) throw Error("cannot write " + out.dir + "/log.csv");
  }
  bool log_header = out.enabled && fs::file_size(out.dir + "/log.csv") > 0;
  auto write_log = [&](double dt, const Diagnostics& d) {
    if (!out.enabled) return;
    if (!log_header) {
      out.log << "step,time,dt,wall";
      for (const auto& [k, v] : d) out.log << "," << k;
      out.log << "\n";
      log_header = true;
    }
    out.log << step << "," << io::exact(t) << "," << io::exact(dt) << ","
            << fmt(seconds_since(t_start));
    for (const auto& [k, v] : d) out.log << "," << io::exact(v);
    out.log << "\n";
  };

  auto write_checkpoint = [&](long next_frame) {
    io::FieldFile ck;
    ck.meta["kind"] = "checkpoint";
    ck.meta["model"] = pc.model->name;
    ck.meta["precision"] = pc.precision;
    ck.meta["backend"] = pc.backend;
    ck.meta["case"] = pc.name;
    ck.meta["step"] = std::to_string(step);
    ck.meta["time"] = io::exact(t);
    ck.meta["next_frame"] = std::to_string(next_frame);
    io::grid_to_meta(grid, ck.meta);
    ck.arrays = model->save_state();
    io::write_field_file(out.dir + "/checkpoint.kfc", ck);
  };

  auto write_frame = [&]() {
    if (!out.enabled) return;
    const auto t_out = Clock::now();
    std::vector<HostField> fields;
    for (const auto& name : pc.fields) fields.push_back(model->field(name, t));
    char base[32];
    std::snprintf(base, sizeof base, "frame_%05ld", frame);
    const std::string file = std::string(base) + "." + pc.format;
    if (pc.format == "vti")
      io::write_vti(out.dir + "/" + file, grid, fields, t);
    else
      io::write_frame_file(out.dir + "/" + file, grid, fields, t, step);
    out.frames.emplace_back(t, file);
    if (pc.format == "vti") io::write_pvd(out.dir + "/run.pvd", out.frames);
    for (const auto& l : pc.lines) {
      HostField f;
      for (auto& g : fields)
        if (g.name == l.field) f = g;
      if (f.values.empty()) f = model->field(l.field, t);
      const auto v = sample_line(grid, f, l);
      const std::string path = out.dir + "/line_" + l.name + ".csv";
      const bool fresh = !fs::exists(path);
      std::ofstream csv(path, std::ios::app);
      if (fresh) csv << "time,s,x,y,z," << l.field << "\n";
      for (int p = 0; p < l.points; ++p) {
        const double s = double(p) / (l.points - 1);
        csv << io::exact(t) << "," << io::exact(s);
        for (int d = 0; d < 3; ++d) csv << "," << io::exact(l.from[d] + s * (l.to[d] - l.from[d]));
        csv << "," << io::exact(v[p]) << "\n";
      }
      if (!csv) throw Error("writing " + path + " failed");
    }
    ++frame;
    write_checkpoint(frame);
    out.output_seconds += seconds_since(t_out);
  };

  // Output schedule.
  auto next_output_time = [&]() {
    if (pc.output_every <= 0) return 1e308;
    const double k = std::floor(t / pc.output_every + 1e-9) + 1;
    return k * pc.output_every;
  };

  SignalGuard signals;
  Progress progress(log, opt.quiet, &log == &std::cerr && ::isatty(STDERR_FILENO));
  std::string status = "completed";
  Diagnostics diag;
  double dt = 0;
  long device_dt_steps = 0;
  double loop_seconds = 0, last_good_time = t;
  const auto t_loop = Clock::now();
  try {
    if (step == 0) {
      diag = model->diagnostics(t);
      write_log(0, diag);
      write_frame();
    }
    double t_next_out = next_output_time();
    // A fixed-step model's t = steps * dt may fall a rounding short of the end.
    const double end_tol = model_dt > 0 ? 1e-12 : 0.0;
    const bool batching = pc.device_dt && model_dt <= 0 && pc.fixed_dt <= 0 && model->device_dt() &&
                          model->device_dt()->max_stable_dt() > 0;
    // time.clock = "float32" accumulates t in single precision.
    auto advance_clock = [&](double from, double d) {
      return pc.float_clock ? double(float(float(from) + float(d))) : from + d;
    };
    auto check_dt = [&](double d) {
      if (!std::isfinite(d) || d < pc.dt_floor)
        throw Error("blow-up at step " + std::to_string(step) + ", t = " + fmt(t) +
                    ": the time step " + fmt(d) + " is below time.dt_floor = " + fmt(pc.dt_floor));
    };
    // Everything after a step: log row, frame, progress.
    auto after_step = [&](bool at_output) {
      if (pc.output_every_steps > 0 && step % pc.output_every_steps == 0) at_output = true;
      const bool last =
          (pc.end > 0 && t >= pc.end * (1 - end_tol)) || (pc.max_steps > 0 && step >= pc.max_steps);
      if (step % pc.log_every == 0 || at_output || last) {
        diag = model->diagnostics(t);
        for (const auto& [k, v] : diag)
          if (!std::isfinite(v))
            throw Error("blow-up at step " + std::to_string(step) + ", t = " + fmt(t) + ": " + k +
                        " is " + fmt(v) + " (dt = " + fmt(dt) +
                        "); try a smaller time.safety_factor or a finer grid");
        write_log(dt, diag);
        last_good_time = t;
      }
      if (at_output || last) {
        write_frame();
        t_next_out = next_output_time();
      }
      progress.update(step, t, dt, pc.end, pc.max_steps, seconds_since(t_start), t0, step0);
    };
    while ((pc.end <= 0 || t < pc.end * (1 - end_tol)) &&
           (pc.max_steps <= 0 || step < pc.max_steps)) {
      if (g_interrupted) {
        status = "interrupted";
        break;
      }
      // Steps with device-chosen dt, in a batch that provably reaches no
      // output time, no end and no step with a log row or output before
      // its last step: t advances by at most safety * max_stable_dt (plus
      // the clock's rounding) per step, and the batch covers at most half
      // of the distance to the next target.  The dts are read back after
      // the batch and the clock replayed; near a target the loop falls
      // back to one step at a time, which lands exactly as before.
      if (batching) {
        const double target = std::min(t_next_out, pc.end > 0 ? pc.end : 1e308);
        const double ulp = pc.float_clock ? double(std::nextafter(float(target), 3e38f)) - target
                                          : 4 * std::abs(target) * 1.2e-16;
        DeviceDt& ddt = *model->device_dt();
        const double per_step = pc.safety * ddt.max_stable_dt() * (1 + 1e-9) + ulp;
        long m = DeviceDt::kDeviceDtBatch;
        if (target < 1e308) {
          const double reach = 0.5 * (target - t) / per_step;
          m = target - t > 4e-12 * std::abs(target) ? long(std::min(reach, double(m))) : 0;
        }
        long next_event = (step / pc.log_every + 1) * pc.log_every;
        if (pc.output_every_steps > 0)
          next_event =
              std::min(next_event, (step / pc.output_every_steps + 1) * pc.output_every_steps);
        if (pc.max_steps > 0) next_event = std::min(next_event, pc.max_steps);
        m = std::min(m, next_event - step);
        if (m >= 2) {
          for (long k = 0; k < m; ++k) ddt.step_device_dt(pc.safety);
          device_dt_steps += m;
          const auto dts = ddt.device_dts(m);
          for (const double d : dts) {
            dt = d;
            check_dt(dt);
            t = advance_clock(t, dt);
            ++step;
          }
          after_step(false);
          continue;
        }
      }
      dt = model_dt > 0      ? model_dt
           : pc.fixed_dt > 0 ? pc.fixed_dt
                             : pc.safety * model->stable_dt(t);
      if (model_dt <= 0 && pc.fixed_dt > 0 && step == step0) {
        const double limit = model->stable_dt(t);
        if (pc.fixed_dt > limit)
          throw Error("time.dt = " + fmt(pc.fixed_dt) + " exceeds the stable step " + fmt(limit) +
                      " of this case; lower time.dt or use time.safety_factor");
      }
      check_dt(dt);
      // Land exactly on output times and the end.
      // (A fixed-step model is not clamped: t = steps * dt.)
      double t_new = model_dt > 0 ? double(step + 1) * model_dt : t + dt;
      bool at_output = false;
      if (pc.float_clock && model_dt <= 0) {
        t_new = advance_clock(t, dt);
        at_output = t_new >= t_next_out;
      } else {
        if (t_new >= t_next_out * (1 - 1e-12)) {
          if (model_dt <= 0) t_new = t_next_out;
          at_output = true;
        }
        if (model_dt <= 0) {
          if (pc.end > 0 && t_new >= pc.end * (1 - 1e-12)) t_new = pc.end;
          if (t_new != t + dt) dt = t_new - t;  // landing; otherwise dt as chosen
        }
      }
      model->step(t, dt);
      t = t_new;
      ++step;
      after_step(at_output);
    }
    if (status == "interrupted") {
      diag = model->diagnostics(t);
      write_log(dt, diag);
      write_frame();
    }
    model->fence();
  } catch (const std::exception& e) {  // kflow::Error, and Kokkos/CUDA or I/O failures
    progress.done();
    std::string where;
    if (out.enabled) {
      const std::string target = out.final_dir + ".failed";
      try {
        finish_dir(out, target);
        where = "; output up to t = " + fmt(last_good_time) +
                " (last good frame and its checkpoint) is in " + target +
                (fs::exists(out.final_dir)
                     ? ", the previous output in " + out.final_dir + " is untouched"
                     : "");
      } catch (const Error&) {
      }
    }
    throw Error(std::string(e.what()) + where);
  }
  progress.done();
  loop_seconds = seconds_since(t_loop);

  RunResult r;
  r.status = status;
  r.steps = step;
  r.device_dt_steps = device_dt_steps;
  r.time = t;
  r.diagnostics = diag;
  r.wall_seconds = seconds_since(t_start);
  r.step_seconds = loop_seconds - out.output_seconds;
  const long steps_run = step - step0;
  if (r.step_seconds > 0) {
    r.cell_updates_per_second = cells * steps_run / r.step_seconds;
    r.bandwidth_bytes_per_second = r.cell_updates_per_second * model->bytes_per_cell_step();
  }
  if (opt.keep_final_fields)
    for (const auto& name : pc.setup->fields) r.fields.push_back(model->field(name, t));

  if (out.enabled) {
    std::ostringstream s;
    s << "{\n  \"kflow\": \"" << KFLOW_VERSION << "\",\n"
      << "  \"case\": \"" << json_escape(pc.name) << "\",\n"
      << "  \"case_file\": \"" << json_escape(opt.case_path) << "\",\n"
      << "  \"model\": \"" << pc.model->name << "\",\n"
      << "  \"backend\": \"" << pc.backend << "\",\n"
      << "  \"device\": \"" << json_escape(backend_description(pc.backend)) << "\",\n"
      << "  \"precision\": \"" << pc.precision << "\",\n"
      << "  \"status\": \"" << status << "\",\n"
      << "  \"restart\": \"" << json_escape(opt.restart) << "\",\n"
      << "  \"grid\": {\"dim\": " << grid.dim << ", \"cells\": [" << grid.cells[0] << ", "
      << grid.cells[1] << ", " << grid.cells[2] << "], \"length\": [" << json_number(grid.length[0])
      << ", " << json_number(grid.length[1]) << ", " << json_number(grid.length[2]) << "]},\n"
      << "  \"steps\": " << step << ",\n  \"steps_this_run\": " << steps_run << ",\n"
      << "  \"device_dt_steps\": " << device_dt_steps << ",\n"
      << "  \"time\": " << json_number(t) << ",\n"
      << "  \"frames\": " << out.frames.size() << ",\n"
      << "  \"wall_seconds\": {\"total\": " << json_number(r.wall_seconds)
      << ", \"setup\": " << json_number(r.wall_seconds - loop_seconds)
      << ", \"stepping\": " << json_number(r.step_seconds)
      << ", \"output\": " << json_number(out.output_seconds) << "},\n"
      << "  \"performance\": {\"cells\": " << json_number(cells)
      << ", \"cell_updates_per_second\": " << json_number(r.cell_updates_per_second)
      << ", \"bytes_per_cell_step\": " << json_number(model->bytes_per_cell_step())
      << ", \"effective_bandwidth_bytes_per_second\": " << json_number(r.bandwidth_bytes_per_second)
      << "},\n"
      << "  \"diagnostics\": {";
    for (std::size_t k = 0; k < diag.size(); ++k)
      s << (k ? ", " : "") << "\"" << diag[k].first << "\": " << json_number(diag[k].second);
    s << "},\n  \"lines\": [";
    for (std::size_t k = 0; k < pc.lines.size(); ++k)
      s << (k ? ", " : "") << "{\"name\": \"" << json_escape(pc.lines[k].name)
        << "\", \"field\": \"" << json_escape(pc.lines[k].field) << "\", \"file\": \"line_"
        << json_escape(pc.lines[k].name) << ".csv\", \"reference\": \""
        << json_escape(pc.lines[k].reference.empty() ? ""
                                                     : fs::absolute(pc.lines[k].reference).string())
        << "\"}";
    s << "],\n  \"config\": " << pc.config.to_json() << "\n}\n";
    io::write_text_atomic(out.dir + "/summary.json", s.str());
    io::write_text_atomic(out.dir + "/case.toml", pc.config.to_toml() + "\n");
    const std::string target =
        status == "completed" ? out.final_dir : out.final_dir + ".interrupted";
    finish_dir(out, target);
    r.output_dir = target;
  }
  return r;
}

}  // namespace kflow
