// RunOutput::write_summary: summary.json, and case.toml beside it.

#include <cmath>
#include <filesystem>
#include <sstream>

#include "kflow/io/files.hpp"
#include "kflow/io/run_output.hpp"

namespace fs = std::filesystem;

namespace kflow::io {

namespace {

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
  if (r.steady_tolerance > 0)
    s << "  \"steady\": {\"field\": \"" << json_escape(r.steady_field)
      << "\", \"tolerance\": " << json_number(r.steady_tolerance) << ", \"converged\": "
      << (r.steady_residual >= 0 && r.steady_residual <= r.steady_tolerance ? "true" : "false")
      << ", \"residual\": "
      << (r.steady_residual >= 0 ? json_number(r.steady_residual) : std::string("null"))
      << ", \"time\": " << json_number(r.steady_time) << "},\n";
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
  record(std::vector<std::string>{"summary.json", "case.toml"});
  write_text_atomic(dir_ + "/summary.json", s.str());
  write_text_atomic(dir_ + "/case.toml", r.config_toml + "\n");
}

}  // namespace kflow::io
