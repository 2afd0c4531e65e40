// kflow bench (the bandwidth ceiling, a model's step rate and phases, a
// kernel benchmark's rows) and kflow compare (one case on several backends).

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "kflow/core/backend.hpp"
#include "kflow/core/bench.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/registry.hpp"

namespace kflow::cli {

namespace {
// The integer options' ranges: --repeat (runs of a benchmark) and bench
// stream's --size (elements per array: 2^40 is beyond any memory, and the
// memory check names what fits).
constexpr long most_repeats = 1000000;
constexpr long most_stream_elements = 1L << 40;
// --ceiling-size: the elements per STREAM array of the ceiling a model or
// kernel benchmark reports against (0: default_stream_elements).  Arrays a
// cache holds measure the cache, not memory: for quick checks only.
std::size_t ceiling_size(const Args& a) {
  return static_cast<std::size_t>(parse_count(a, "--ceiling-size", 0, most_stream_elements));
}
std::string small_ceiling(const Args& a) {
  return a.opts.count("--ceiling-size")
             ? " on arrays of " + opt(a, "--ceiling-size") + " elements (--ceiling-size)"
             : "";
}
}  // namespace

void exec_bench_program(int argc, char** argv) {
  const Args a = parse_args(argc, argv);
  if (a.command != "bench" || a.help || a.positional.size() != 1) return;
  const auto& name = a.positional[0];
  const auto& reg = Registry::instance();
  if (!reg.find_bench(name) || reg.has_bench_factories(name)) return;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto program = (ec ? std::filesystem::path(argv[0]) : self).parent_path() / "kflow-bench";
  if (::access(program.c_str(), X_OK) == 0) {
    ::execv(program.c_str(), argv);
    std::cerr << "kflow: error: cannot start " << program.string() << ": " << std::strerror(errno)
              << "\n";
  } else {
    std::cerr << "kflow: error: the kernel benchmark '" << name
              << "' is part of the program kflow-bench, which this build has not built (looked for "
              << program.string()
              << "): build it with 'cmake --build BUILD_DIR --target kflow-bench' "
                 "(tools/kflow bench builds it)\n";
  }
  std::exit(1);
}

int cmd_bench(const Args& a) {
  if (a.positional.size() != 1) usage_error("expected 'stream' or a model name", "bench");
  KokkosSession k(a);
  const auto what = a.positional[0];
  const auto backend = opt(a, "--backend", default_backend());
  if (what == "stream") {
    if (a.opts.count("--ceiling-size"))
      usage_error("bench stream takes --size, not --ceiling-size", "bench");
    const auto precision = opt(a, "--precision", "double");
    if (precision != "double" && precision != "float")
      usage_error("--precision expects double or float, got '" + precision + "'", "bench");
    const auto n = static_cast<std::size_t>(
        parse_count(a, "--size", static_cast<long>(default_stream_elements(backend, precision)),
                    most_stream_elements));
    const auto r = bench_stream(backend, precision, n,
                                static_cast<int>(parse_count(a, "--repeat", 10, most_repeats)));
    std::cout << "bench stream: backend " << backend << " (" << backend_description(backend)
              << "), " << precision << ", " << r.elements << " elements ("
              << double(r.elements) * (precision == "float" ? 4 : 8) / (1024.0 * 1024)
              << " MiB per array), best of " << parse_count(a, "--repeat", 10, most_repeats)
              << "\n";
    for (const auto& kr : r.kernels) {
      std::cout << "  " << kr.kernel << std::string(10 - kr.kernel.size(), ' ')
                << gbs(kr.bytes_per_second) << "  (" << kr.what;
      if (kr.per > 0 && kr.lanes > 1)
        std::cout << "; " << kr.per << " vector" << (kr.per > 1 ? "s" : "") << " of " << kr.lanes
                  << " per work item";
      else if (kr.per > 0)
        std::cout << "; " << kr.per << " element" << (kr.per > 1 ? "s" : "") << " per work item";
      std::cout << ")\n";
    }
    std::cout << "  " << describe_ceiling(r) << "\n";
    if (backend == "openmp" && (!std::getenv("OMP_PROC_BIND") || !std::getenv("OMP_PLACES")))
      std::cout << "  note: set OMP_PROC_BIND=spread and OMP_PLACES=cores (threads pinned, one "
                   "per core) for figures that repeat\n";
    return 0;
  }
  if (Registry::instance().find_bench(what)) {
    KernelBenchOptions o;
    o.backend = backend;
    o.precision = opt(a, "--precision", "double");
    if (o.precision != "double" && o.precision != "float" && o.precision != "float16s" &&
        o.precision != "float16c")
      usage_error(
          "--precision expects double, float, float16s or float16c, got '" + o.precision + "'",
          "bench");
    o.params = BenchParams(a.sets);
    o.repeat = static_cast<int>(parse_count(a, "--repeat", 5, most_repeats));
    o.ceiling_elements = ceiling_size(a);
    // On several ranks (bench_kernel's benchmark splits its grid), rank 0 reports.
    const bool root = parallel::root();
    std::ostream quiet(nullptr);
    const auto r = bench_kernel(what, o, root ? std::cerr : quiet);
    if (!root) return 0;
    // Several ranks: the aggregate against the sum of the ranks' ceilings
    // (rank 0's, measured while every rank measured its own).
    const int ranks = parallel::size();
    const double ceiling = r.stream.ceiling.bytes_per_second * ranks;
    const std::string of =
        ranks > 1 ? "% of " + std::to_string(ranks) + " ranks' ceilings" : "% of the ceiling";
    std::cout << "bench " << r.name << ": backend " << r.backend << " ("
              << backend_description(r.backend) << "), " << r.precision << ", best of " << o.repeat
              << "\n";
    for (const auto& row : r.rows) {
      std::cout << "  " << row.label << ": ";
      if (row.seconds > 0)
        std::cout << row.seconds * 1e3 << " ms";
      else
        std::cout << "not timed";
      if (row.bytes > 0 && row.seconds > 0)
        std::cout << ", " << gbs(row.bytes / row.seconds) << " = "
                  << 100 * row.bytes / row.seconds / ceiling << of;
      if (!row.note.empty()) std::cout << "  [" << row.note << "]";
      std::cout << "\n";
    }
    std::cout << "  " << describe_ceiling(r.stream) << (ranks > 1 ? " per rank" : "")
              << ", measured in this run" << small_ceiling(a) << "\n";
    return 0;
  }
  if (a.opts.count("--precision"))
    usage_error("use --set run.precision=float for a model", "bench");
  const auto r =
      bench_model(what, backend, a.sets, std::cerr,
                  static_cast<int>(parse_count(a, "--repeat", 1, most_repeats)), ceiling_size(a));
  std::cout << "bench " << r.model << ": backend " << r.backend << " ("
            << backend_description(r.backend) << "), " << r.precision << ", grid " << r.grid << ", "
            << r.steps << " steps in " << r.seconds << " s"
            << (r.repeat > 1 ? " (best of " + std::to_string(r.repeat) + " runs)" : "") << "\n"
            << "  " << r.cell_updates_per_second / 1e6 << " M cell updates/s, effective "
            << gbs(r.bytes_per_second) << " = "
            << 100 * r.bytes_per_second / r.stream.ceiling.bytes_per_second
            << "% of the bandwidth ceiling measured in this run (" << describe_ceiling(r.stream)
            << small_ceiling(a) << ")\n"
            << "  " << r.seconds / double(r.steps) * 1e3 << " ms per step\n";
  for (const auto& [key, value] : r.per_step)
    std::cout << "  " << key
              << (key.find("_total") != std::string::npos ? " per step: " : " (last step): ")
              << value << "\n";
  // Each Profiling region's time, nested as the regions were (a second run).
  if (!r.phases.empty())
    std::cout << "  phases (a second run, waiting for the device at each region's start and "
                 "end), per step:\n";
  const double cells = r.cell_updates_per_second * r.seconds / double(r.steps);
  for (const auto& ph : r.phases) {
    std::cout << std::string(std::size_t(4 + 2 * ph.depth), ' ') << ph.name << ": "
              << ph.seconds * 1e3 << " ms (" << ph.calls << (ph.calls == 1 ? " call)" : " calls)");
    if (ph.bytes_per_cell > 0 && ph.seconds > 0) {
      const double bps = ph.bytes_per_cell * cells / ph.seconds;
      std::cout << ", " << gbs(bps) << " = " << 100 * bps / r.stream.ceiling.bytes_per_second
                << "% of the ceiling";
    }
    std::cout << "\n";
  }
  return 0;
}

int cmd_compare(const Args& a) {
  need_case(a);
  std::vector<std::string> backends;
  {
    std::stringstream s(opt(a, "--backends"));
    for (std::string b; std::getline(s, b, ',');)
      if (!b.empty()) backends.push_back(b);
    if (backends.empty()) backends = compiled_backends();
  }
  std::vector<PreparedCase> cases;
  for (const auto& b : backends) {
    require_backend(b, "--backends");
    auto o = run_options(a);
    o.backend = b;
    cases.push_back(prepare(o));
  }
  // The backends must stop at the same step: a steady stop could end them
  // one check apart.
  if (cases[0].steady.tolerance > 0) {
    std::cerr << "kflow: note: compare runs to the case's end; time.steady is not applied\n";
    for (auto& c : cases) c.steady.tolerance = 0;
  }
  KokkosSession k(a);
  std::vector<RunResult> results;
  for (std::size_t n = 0; n < backends.size(); ++n) {
    auto o = run_options(a);
    o.backend = backends[n];
    o.write_output = false;
    o.keep_final_fields = true;
    results.push_back(run(cases[n], o, std::cerr));
  }
  std::cout << "compare " << a.positional[0] << ": " << results[0].steps
            << " steps to t = " << results[0].time << "\n";
  for (std::size_t n = 0; n < backends.size(); ++n) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-8s %10.4f s  speed-up %7.2fx  (%s)", backends[n].c_str(),
                  results[n].wall_seconds, results[0].wall_seconds / results[n].wall_seconds,
                  backend_description(backends[n]).c_str());
    std::cout << line << "\n";
  }
  double worst_rel = 0;
  for (std::size_t n = 1; n < backends.size(); ++n) {
    for (std::size_t f = 0; f < results[0].fields.size(); ++f) {
      const auto& x = results[0].fields[f].values;
      const auto& y = results[n].fields[f].values;
      double diff = 0, scale = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        diff = std::max(diff, std::fabs(x[i] - y[i]));
        scale = std::max(scale, std::fabs(x[i]));
      }
      const double rel = scale > 0 ? diff / scale : diff;
      worst_rel = std::max(worst_rel, rel);
      char line[256];
      std::snprintf(line, sizeof line, "  %s vs %s: field %-10s max |diff| %.3e  relative %.3e",
                    backends[n].c_str(), backends[0].c_str(), results[0].fields[f].name.c_str(),
                    diff, rel);
      std::cout << line << "\n";
    }
  }
  if (backends.size() > 1) std::cout << "  largest relative difference: " << worst_rel << "\n";
  return 0;
}

}  // namespace kflow::cli
