#include "kflow/core/driver.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kflow/core/backend.hpp"
#include "kflow/io/run_output.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/input_file.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/precision.hpp"
#include "progress.hpp"

namespace fs = std::filesystem;

namespace kflow {

namespace {
std::string stem(const std::string& path) {
  return fs::path(path).stem().string();
}

// A run that cannot end in a sane number of steps, frames or log rows (a
// frame every step for ever, 1e300 steps of a tiny time.dt) is refused with
// the numbers.  Counted where the case fixes them: a step fixed by the model
// or time.dt, an upper bound of the adaptive step (ModelSetup::
// stable_dt_bound), time.steps; output.every below time.dt_floor makes
// every step land on an output time.
void check_run_length(PreparedCase& pc, const Config::Section& ts, const Config::Section& os) {
  constexpr double most_steps = 1e12, most_frames = 1e6, most_rows = 1e9;
  const double model_dt = pc.setup->fixed_dt, fixed = model_dt > 0 ? model_dt : pc.fixed_dt;
  const double most_dt = fixed > 0 ? fixed : pc.safety * pc.setup->stable_dt_bound;
  const std::string step_text =
      fixed > 0
          ? (model_dt > 0 ? "model " + pc.model->name + "'s fixed step " + number_text(model_dt)
                          : "time.dt = " + number_text(fixed))
          : "at most " + number_text(most_dt) + " (time.safety_factor x this case's stable step)";
  // steps: at least end / dt where the step is known or bounded (a lower
  // bound: what is refused would certainly be too much)
  double steps = pc.max_steps > 0 ? double(pc.max_steps) : 0;
  if (pc.end > 0 && most_dt > 0) {
    const double need = std::ceil(pc.end / most_dt * (1 - 1e-12));
    if (need > most_steps && pc.max_steps == 0)
      ts.problem(pc.fixed_dt > 0 ? "dt" : "end",
                 "time.end = " + number_text(pc.end) + " takes " + number_text(need, 3) +
                     " steps of " + step_text + "; kflow runs at most " + number_text(most_steps) +
                     " steps: a shorter time.end, a larger step or other physics parameters");
    steps = steps > 0 ? std::min(steps, need) : need;
  }
  // frames: one per output time (landed on exactly), or every N steps
  double frames = 0;
  std::string frames_why;
  // (the time the run reaches, where the case fixes it)
  const double t_end = pc.max_steps == 0 ? pc.end
                       : fixed > 0 ? (pc.end > 0 ? std::min(pc.end, double(pc.max_steps) * fixed)
                                                 : double(pc.max_steps) * fixed)
                                   : 0;
  if (pc.output_every > 0 && t_end > 0) {
    frames = std::floor(t_end / pc.output_every);
    if (fixed > 0 && steps > 0) frames = std::min(frames, steps);
    frames_why =
        "output.every = " + number_text(pc.output_every) + " up to t = " + number_text(t_end);
  } else if (pc.output_every > 0 && fixed <= 0 && pc.output_every < pc.dt_floor && steps > 0) {
    frames = steps;  // (every step is shortened to land on an output time)
    frames_why = "output.every = " + number_text(pc.output_every) +
                 ", below time.dt_floor = " + number_text(pc.dt_floor) +
                 " (every step lands on an output time), over " + number_text(steps, 3) + " steps";
  } else if (pc.output_every_steps > 0 && steps > 0) {
    frames = std::floor(steps / double(pc.output_every_steps));
    frames_why = "output.every_steps = " + std::to_string(pc.output_every_steps) + " over " +
                 number_text(steps, 3) + " steps";
  }
  if (frames > most_frames)
    os.problem(pc.output_every > 0 ? "every" : "every_steps",
               frames_why + " writes " + number_text(frames, 3) + " frames; kflow writes at most " +
                   number_text(most_frames) + " (a file each): a larger output interval");
  if (steps > 0 && steps <= most_steps && steps / double(pc.log_every) > most_rows)
    os.problem("log_every",
               std::to_string(pc.log_every) + " step" + (pc.log_every == 1 ? "" : "s") +
                   " between log rows over " + number_text(steps, 3) + " steps writes " +
                   number_text(steps / double(pc.log_every), 3) + " rows to log.csv; at most " +
                   number_text(most_rows) + ": a larger output.log_every");
}

// Why a line's reference data cannot be one ("" when it can): a regular,
// readable file of text (CSV).
std::string reference_problem(const std::string& path) {
  if (const auto problem = input_file_problem(path, "the reference data", max_case_file_bytes);
      !problem.empty())
    return problem + "; expected a CSV file of reference data";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read " + path + ": " + std::strerror(errno);
  char head[4096];
  in.read(head, sizeof head);
  const auto n = std::size_t(in.gcount());
  for (std::size_t k = 0; k < n; ++k) {
    const auto c = static_cast<unsigned char>(head[k]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t'))
      return path + " is a binary file (byte " + std::to_string(k) +
             " is a control character); expected a CSV file of reference data";
  }
  return "";
}
}  // namespace

PreparedCase prepare(const RunOptions& opt) {
  return prepare(Config::load(opt.case_path, opt.overrides), opt);
}

PreparedCase prepare(Config config, const RunOptions& opt) {
  PreparedCase pc{std::move(config)};
  auto& reg = Registry::instance();

  const auto cs = pc.config.section("case");
  pc.name = cs.get_string("name", stem(opt.case_path));
  cs.get_string("description", "");
  // Without a model the keys the model reads cannot be checked; the rest are,
  // and every problem found is reported together.
  const auto model_name = cs.require_string("model");
  pc.model = reg.find(model_name);
  if (!pc.model && !cs.reported("model")) {
    std::string all;
    for (const auto& n : reg.names()) all += (all.empty() ? "" : ", ") + n;
    const auto guess = closest(model_name, reg.names());
    cs.problem("model", "unknown model \"" + model_name + "\"" +
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
  pc.precision = rs.get_choice("precision", {"double", "float", "float16s", "float16c"}, "double");
  const auto supported = reg.precisions(model_name, pc.backend);
  if (pc.model && std::find(supported.begin(), supported.end(), pc.precision) == supported.end()) {
    std::string all;
    for (const auto& p : supported) all += (all.empty() ? "" : ", ") + p;
    rs.problem("precision", "model \"" + model_name + "\" on backend " + pc.backend +
                                " supports precision " + (all.empty() ? "none" : all) + ", not \"" +
                                pc.precision + "\"");
  }

  const auto ts = pc.config.section("time");
  pc.end = ts.get("end", 0.0, Range::positive());
  pc.max_steps = static_cast<long>(ts.get_int("steps", 0, 1, 1000000000000L));
  if (pc.end == 0 && pc.max_steps == 0 && !ts.reported("steps"))
    ts.problem("end", "missing; the case needs time.end (model time to reach) or time.steps");
  pc.fixed_dt = ts.get("dt", 0.0, Range::positive());
  pc.safety = ts.get("safety_factor", 0.9, Range::positive().at_most(1));
  if (ts.has("dt") && ts.has("safety_factor"))
    ts.problem("dt",
               "give either time.dt (a fixed step) or time.safety_factor (adaptive), not both");
  pc.dt_floor = ts.get("dt_floor", 1e-14, Range::positive());
  pc.float_clock = ts.get_choice("clock", {"float64", "float32"}, "float64") == "float32";
  pc.device_dt = ts.get_bool("device_dt", true);

  const auto os = pc.config.section("output");
  pc.output_dir = os.get_string("directory", "out/" + stem(opt.case_path));
  if (!opt.output_dir.empty()) pc.output_dir = opt.output_dir;
  // Decided before any work: kflow replaces only what an earlier run created.
  if (const auto why = io::output_problem(pc.output_dir); opt.write_output && !why.empty()) {
    if (!opt.output_dir.empty()) throw Error("--output " + opt.output_dir + ": " + why);
    os.problem("directory", why);
  }
  pc.output_dir = io::output_directory(pc.output_dir);
  pc.output_every = os.get("every", 0.0, Range::positive());
  pc.output_every_steps = static_cast<long>(os.get_int("every_steps", 0, 1, 1000000000000L));
  if (os.has("every") && os.has("every_steps"))
    os.problem("every", "give either output.every (model time) or output.every_steps, not both");
  pc.log_every = static_cast<long>(os.get_int("log_every", 1, 1, 1000000000L));
  pc.format = os.get_choice("format", {"vti", "kff"}, io::vtk_available() ? "vti" : "kff");
  if (pc.format == "vti" && !io::vtk_available())
    os.problem("format",
               "\"vti\" needs a kflow built with VTK; this build writes \"kff\" frames "
               "(convert them with 'kflow convert DIR' where VTK exists)");
  if (!pc.model) pc.config.throw_problems();  // (the model's keys are unknown)

  // The model's own keys; then the keys that need the model's field list.
  pc.setup = pc.model->parse(pc.config);
  const auto& names = pc.setup->fields;
  const auto has_field = [&](const std::string& f) {
    return std::find(names.begin(), names.end(), f) != names.end();
  };
  const auto unknown_field = [&](const Config::Section& s, const std::string& key,
                                 const std::string& f) {
    const auto guess = closest(f, names);
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    s.problem(key, "unknown field \"" + f + "\"" +
                       (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") + "; model " +
                       model_name + " has: " + all);
  };
  pc.fields = os.get_strings("fields", names);
  for (const auto& f : pc.fields)
    if (!has_field(f)) unknown_field(os, "fields", f);
  if (ts.has("steady")) {  // time.steady = { tolerance = ..., every = ..., field = ... }
    const auto ss = ts.section("steady");
    auto& st = pc.steady;
    st.tolerance = ss.require("tolerance", Range::positive());
    st.field = ss.get_string("field", has_field("velocity") ? "velocity" : names.front());
    if (!has_field(st.field)) unknown_field(ss, "field", st.field);
    st.every = ss.get("every", pc.end / 100, Range::positive());
    if (st.every == 0 && !ss.reported("every"))
      ss.problem("every",
                 "missing; a case with time.steps and no time.end needs the model time "
                 "between checks");
    else if (pc.end > 0 && st.every >= pc.end && !ss.reported("every"))
      ss.problem("every", number_text(st.every) + " reaches time.end = " + number_text(pc.end) +
                              "; expected less, so that a check runs before the end");
  }
  const auto& grid = pc.setup->grid;
  for (const auto& ls : os.tables("lines")) {
    io::LineSpec l;
    l.name = ls.require_string("name");
    if (l.name.find_first_of("/ \\") != std::string::npos ||
        (l.name.empty() && !ls.reported("name")))
      ls.problem("name", "expected a name usable in a file name, got \"" + l.name + "\"");
    l.field = ls.require_string("field");
    if (!ls.reported("field") && std::find(names.begin(), names.end(), l.field) == names.end())
      ls.problem("field", "unknown field \"" + l.field + "\"");
    const auto from = ls.get_numbers("from", grid.dim, grid.dim, {});
    const auto to = ls.get_numbers("to", grid.dim, grid.dim, {});
    if (from.empty()) ls.problem("from", "missing; expected the line's start point");
    if (to.empty()) ls.problem("to", "missing; expected the line's end point");
    if (from.empty() || to.empty()) continue;
    for (int d = 0; d < grid.dim; ++d) {
      l.from[d] = from[d];
      l.to[d] = to[d];
      for (double x : {from[d], to[d]})
        if (x < grid.origin[d] - 1e-12 || x > grid.origin[d] + grid.length[d] + 1e-12)
          ls.problem(x == from[d] ? "from" : "to",
                     "point outside the domain [" + number_text(grid.origin[d]) + ", " +
                         number_text(grid.origin[d] + grid.length[d]) + "] in direction " +
                         std::to_string(d));
    }
    int most = 1;
    for (int d = 0; d < grid.dim; ++d) most = std::max(most, grid.cells[d]);
    l.points = static_cast<int>(ls.get_int("points", most + 1, 2, 100000000));
    l.reference = ls.get_string("reference", "");
    if (!l.reference.empty()) {
      if (l.reference[0] != '/') l.reference = pc.config.directory() + "/" + l.reference;
      if (const auto why = reference_problem(l.reference); !why.empty())
        ls.problem("reference", why);
    }
    pc.lines.push_back(l);
  }

  // Blocks per axis of a distributed run (checked against the rank count by decompose()).
  for (const auto r : rs.get_ints("ranks", grid.dim, grid.dim, 1, 1 << 20, {}))
    pc.ranks.push_back(int(r));
  pc.ranks_where = rs.where("ranks");
  for (int d = 0; d < int(pc.ranks.size()); ++d)
    if (pc.ranks[std::size_t(d)] > grid.cells[d])
      rs.problem("ranks", std::to_string(pc.ranks[std::size_t(d)]) + " blocks along axis " +
                              std::to_string(d) + ", which has " + std::to_string(grid.cells[d]) +
                              " cells; expected at most one block per cell");

  // What the run would refuse, check refuses too.
  if (const double model_dt = pc.setup->fixed_dt;
      model_dt > 0 && pc.fixed_dt > 0 && std::abs(pc.fixed_dt - model_dt) > 1e-9 * model_dt)
    ts.problem("dt", "model " + model_name + " steps by exactly " + number_text(model_dt, 10) +
                         " (fixed by its discretisation); leave time.dt out");
  if (const double bound = pc.setup->stable_dt_bound; bound > 0 && pc.fixed_dt > bound)
    ts.problem("dt", "time.dt = " + number_text(pc.fixed_dt) + " exceeds the stable step " +
                         number_text(bound) +
                         " of this case; lower time.dt or use time.safety_factor");
  for (std::size_t k = 0; k < pc.lines.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      if (pc.lines[j].name == pc.lines[k].name)
        os.problem("lines", "two lines named \"" + pc.lines[k].name +
                                "\" (each writes line_<name>.csv); give each its own name");
  check_run_length(pc, ts, os);
  pc.config.check_unknown();
  double cells = 1;
  for (int d = 0; d < grid.dim; ++d) cells *= grid.extent(d);
  pc.state_bytes = pc.setup->values_per_cell * cells * bytes_per_value(pc.precision);
  // Host copies at an output: the fields (one component each: a lower bound;
  // vectors have three) and the checkpoint's state, copied twice; none where
  // nothing is written (bench, compare).
  pc.frame_bytes =
      opt.write_output
          ? double(pc.fields.size() + pc.lines.size()) * 8 * double(grid.interior_cells()) +
                2 * pc.setup->saved_values_per_cell * cells * bytes_per_value(pc.precision)
          : 0;
  // The memory the case needs (its state, and the host copies of a frame
  // where it writes output), checked before the set-up's grid-sized host
  // work and before any allocation (judged on rank 0: the ranks of a job
  // on one host share its memory).
  parallel::on_root([&] { check_case_memory(pc); });
  pc.config.throw_problems();
  return pc;
}

}  // namespace kflow
