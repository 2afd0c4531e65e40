#include "kflow/core/driver.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "kflow/core/backend.hpp"
#include "kflow/core/error.hpp"
#include "kflow/core/precision.hpp"
#include "kflow/io/run_output.hpp"
#include "kflow/io/vtk.hpp"
#include "progress.hpp"

namespace fs = std::filesystem;

namespace kflow {

namespace {
std::string stem(const std::string& path) {
  return fs::path(path).stem().string();
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
  pc.precision = rs.get_choice("precision", {"double", "float", "float16s"}, "double");
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
  // Decided before any work: kflow replaces only what an earlier run created.
  if (const auto why = io::output_problem(pc.output_dir); opt.write_output && !why.empty()) {
    if (!opt.output_dir.empty()) throw Error("--output " + opt.output_dir + ": " + why);
    os.fail("directory", why);
  }
  pc.output_dir = io::output_directory(pc.output_dir);
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
    io::LineSpec l;
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

  // Blocks per axis of a distributed run (checked against the rank count by decompose()).
  for (const auto r : rs.get_ints("ranks", grid.dim, grid.dim, 1, 1 << 20, {}))
    pc.ranks.push_back(int(r));
  pc.ranks_where = rs.where("ranks");
  for (int d = 0; d < int(pc.ranks.size()); ++d)
    if (pc.ranks[std::size_t(d)] > grid.cells[d])
      rs.fail("ranks", std::to_string(pc.ranks[std::size_t(d)]) + " blocks along axis " +
                           std::to_string(d) + ", which has " + std::to_string(grid.cells[d]) +
                           " cells; expected at most one block per cell");

  // What the run would refuse, check refuses too.
  if (const double model_dt = pc.setup->fixed_dt;
      model_dt > 0 && pc.fixed_dt > 0 && std::abs(pc.fixed_dt - model_dt) > 1e-9 * model_dt)
    ts.fail("dt", "model " + model_name + " steps by exactly " + fmt(model_dt, 10) +
                      " (fixed by its discretisation); leave time.dt out");
  if (const double bound = pc.setup->stable_dt_bound; bound > 0 && pc.fixed_dt > bound)
    ts.fail("dt", "time.dt = " + fmt(pc.fixed_dt) + " exceeds the stable step " + fmt(bound) +
                      " of this case; lower time.dt or use time.safety_factor");
  for (std::size_t k = 0; k < pc.lines.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      if (pc.lines[j].name == pc.lines[k].name)
        os.fail("lines", "two lines named \"" + pc.lines[k].name +
                             "\" (each writes line_<name>.csv); give each its own name");
  pc.config.check_unknown();
  double cells = 1;
  for (int d = 0; d < grid.dim; ++d) cells *= grid.extent(d);
  pc.state_bytes = pc.setup->values_per_cell * cells * bytes_per_value(pc.precision);
  // Host copies at an output: the fields (one component each: a lower bound;
  // vectors have three) and the checkpoint's state, copied twice.
  pc.frame_bytes = double(pc.fields.size() + pc.lines.size()) * 8 * double(grid.interior_cells()) +
                   2 * pc.setup->saved_values_per_cell * cells * bytes_per_value(pc.precision);
  return pc;
}

}  // namespace kflow
