#include "restart.hpp"

#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/printable.hpp"
#include "progress.hpp"

namespace kflow {

namespace {

// "section.key" -> value, for a document written by Config::to_toml (an
// array may continue over several lines).
std::map<std::string, std::string> flat_toml(const std::string& text) {
  std::map<std::string, std::string> m;
  std::istringstream in(text);
  std::string section, line, key;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '[' && line.back() == ']' && line.find('=') == std::string::npos) {
      section = line.substr(1, line.size() - 2) + ".";
    } else if (const auto eq = line.find(" = "); eq != std::string::npos && line[0] != ' ') {
      key = section + line.substr(0, eq);
      m[key] = line.substr(eq + 3);
    } else if (!key.empty()) {
      m[key] += " " + line.substr(line.find_first_not_of(' '));
    }
  }
  return m;
}

// What differs between a checkpoint's grid and the case's, field by field
// (two grids that print alike may differ in their ghost width or in a
// length's 17th digit).
std::string grid_differences(const linalg::Grid& ck, const linalg::Grid& now) {
  std::string r;
  auto add = [&](const std::string& what, const std::string& a, const std::string& b) {
    r += (r.empty() ? "" : "; ") + what + " " + a + " in the checkpoint, " + b + " in the case";
  };
  const char* axis = "xyz";
  if (ck.dim != now.dim) add("dimensions", std::to_string(ck.dim), std::to_string(now.dim));
  if (ck.ghost != now.ghost)
    add("ghost width (model's ghost layers)", std::to_string(ck.ghost), std::to_string(now.ghost));
  for (int d = 0; d < 3; ++d) {
    const std::string in = std::string(" in ") + axis[d];
    if (ck.cells[d] != now.cells[d])
      add("cells" + in, std::to_string(ck.cells[d]), std::to_string(now.cells[d]));
    if (ck.length[d] != now.length[d])
      add("length" + in, io::exact(ck.length[d]), io::exact(now.length[d]));
    if (ck.origin[d] != now.origin[d])
      add("origin" + in, io::exact(ck.origin[d]), io::exact(now.origin[d]));
  }
  return r;
}

}  // namespace

io::FieldFile read_checkpoint(const PreparedCase& pc, const std::string& f, Start& s) {
  auto ck = io::read_field_file(f, "the checkpoint", "checkpoint.kfc");
  const auto& grid = pc.setup->grid;
  if (ck.get("kind", f) != "checkpoint") throw Error(f + ": not a checkpoint");
  if (ck.get("model", f) != pc.model->name)
    throw Error(f + ": checkpoint of model " + ck.get("model", f) + ", the case runs " +
                pc.model->name);
  if (ck.get("precision", f) != pc.precision)
    throw Error(f + ": checkpoint in " + ck.get("precision", f) + " precision, the case runs " +
                pc.precision + " (set run.precision)");
  if (const auto g = io::grid_from_meta(ck, f); !(g == grid)) {
    auto text = [](const linalg::Grid& x) {
      std::string t = x.cells_text() + " cells on ";
      for (int d = 0; d < x.dim; ++d) t += (d ? " x " : "") + number_text(x.length[d], 10);
      return t + (x.origin[0] || x.origin[1] || x.origin[2]
                      ? " from (" + number_text(x.origin[0]) + ", " + number_text(x.origin[1]) +
                            ", " + number_text(x.origin[2]) + ")"
                      : "");
    };
    throw Error(f + ": checkpoint grid " + text(g) + " differs from the case's grid " + text(grid) +
                ": " + grid_differences(g, grid));
  }
  s.t = io::meta_double(ck, "time", f);
  s.step = io::meta_int(ck, "step", f, 0, 1000000000000L);
  // one frame per step at most, plus the one at step 0
  s.next_frame = io::meta_int(ck, "next_frame", f, 0, s.step + 1);
  if (const auto it = ck.meta.find("stop_output"); it != ck.meta.end()) {
    if (it->second != "frame" && it->second != "frame_and_row")
      throw Error(f + ": stop_output is \"" + printable(it->second) +
                  "\"; expected \"frame\" or \"frame_and_row\" (a damaged checkpoint)");
    s.stop_frame = s.next_frame > 0;
    s.stop_row = it->second == "frame_and_row";
    if (s.stop_frame) --s.next_frame;
  }
  if ((pc.end > 0 && s.t >= pc.end) || (pc.max_steps > 0 && s.step >= pc.max_steps))
    throw Error(f + ": the checkpoint is at step " + std::to_string(s.step) + ", t = " +
                number_text(s.t) + ", already at the case's end; raise time.end or time.steps");
  return ck;
}

void note_case_changes(const io::FieldFile& ck, const PreparedCase& pc, const std::string& f,
                       std::ostream& log) {
  const auto it = ck.meta.find("case_toml");
  if (it == ck.meta.end()) return;  // a checkpoint from before the case was kept in it
  const auto then = flat_toml(it->second), now = flat_toml(pc.config.to_toml());
  std::set<std::string> keys;
  for (const auto* m : {&then, &now})
    for (const auto& [k, v] : *m) keys.insert(k);
  for (const auto& k : keys) {
    const auto a = then.find(k), b = now.find(k);
    const std::string was = a == then.end() ? "not set" : a->second;
    const std::string is = b == now.end() ? "not set" : b->second;
    if (was != is)
      log << "kflow: note: the restart changes " << k << " (" << was << " in the run of " << f
          << ", " << is << " now)\n";
  }
}

}  // namespace kflow
