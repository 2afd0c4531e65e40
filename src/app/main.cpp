// kflow: the command-line program.
//   kflow run | check | list | info | bench | compare | convert

#include <Kokkos_Core.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "kflow/core/backend.hpp"
#include "kflow/core/bench.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/core/error.hpp"
#include "kflow/core/parallel.hpp"
#include "kflow/core/registry.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/vtk.hpp"

namespace fs = std::filesystem;
using kflow::Error;

namespace {

const char* const main_help = R"(kflow: incompressible-flow solvers on GPUs and CPUs (Kokkos).

usage: kflow <command> [options]

commands:
  run CASE.toml       run a case; frames (.vti + .pvd), CSV and summary.json go to
                      [output] directory (default out/<case name>)
  check CASE.toml     validate a case file (every key) without running it
  list                the models in this build and their precisions per backend
  info                Kokkos configuration, backends compiled in, devices
  bench stream|MODEL  memory bandwidth of a backend, or a model's step rate
  compare CASE.toml   run one case on several backends, compare time and fields
  convert DIR         turn .kff frames (builds without VTK) into .vti + run.pvd

'kflow <command> --help' describes each command.  Exit status: 0 on success,
1 on an error (the message says what and where), 2 on a usage error,
130 when a run was interrupted (Ctrl-C) after writing a frame and a checkpoint.
)";

const std::map<std::string, std::string> help = {
    {"run", R"(usage: kflow run CASE.toml [--backend serial|openmp|cuda] [--set KEY=VALUE]...
                [--output DIR] [--restart CHECKPOINT] [--quiet] [--threads N]

Runs the case.  While it runs, output goes to DIR.running; a completed run then
replaces DIR, an interrupted one (Ctrl-C, SIGTERM, SIGHUP: the step finishes, a
last frame and a checkpoint are written; a second signal stops at once, keeping
the last complete checkpoint) becomes DIR.interrupted, a failed one DIR.failed.
The output of an earlier run in DIR is never touched by a run that does not
complete, and kflow replaces only directories a kflow run created (or empty ones).

  --backend B         execution space (default: [run] backend, else the fastest compiled in)
  --set KEY=VALUE     override a case key, e.g. --set time.end=2 --set grid.cells=[64,64]
  --output DIR        output directory (default: [output] directory)
  --restart FILE      continue from a checkpoint (DIR/checkpoint.kfc); bit-for-bit
  --quiet             no progress lines
  --threads N         OpenMP threads (default: OMP_NUM_THREADS or all cores)
)"},
    {"check", R"(usage: kflow check CASE.toml [--backend B] [--set KEY=VALUE]...

Reads and validates every key of the case (unknown keys, types, ranges, missing
keys, inconsistent combinations) and prints a one-line summary.  Does no work.
)"},
    {"list",
     "usage: kflow list\n\nLists the models compiled in, with the precisions each supports per "
     "backend.\n"},
    {"info",
     "usage: kflow info\n\nPrints the version, the Kokkos configuration, the backends compiled in "
     "and the devices.\n"},
    {"bench",
     R"(usage: kflow bench stream [--backend B] [--precision double|float] [--size N] [--repeat R]
       kflow bench MODEL  [--backend B] [--set KEY=VALUE]...
       kflow bench NAME   [--backend B] [--precision double|float|float16s] [--repeat R] [--set KEY=VALUE]...

stream: BabelStream's kernels (copy, mul, add, triad, dot) and the runtime's
        copy on the backend, best of R runs over N elements per array (default
        1 GiB an array on cuda, 256 MiB on CPUs, in either precision; GPUs: the
        best of 1, 2, 4, 8 elements or 16-byte vectors per thread).  The best is the bandwidth ceiling every benchmark reports against.
MODEL:  times the model's benchmark case (e.g. 'diffusion', 512^3 cells, 100 steps;
        change it with --set grid.cells=[256,256,256] --set time.steps=50
        --set run.precision=float) and reports cell updates per second and the
        effective bandwidth as a fraction of the ceiling measured in the same run.
NAME:   a kernel benchmark ('kflow list' names them and their --set keys), e.g.
        kflow bench rbsor --backend cuda --set n=4096; --precision and --repeat
        apply, and each row is reported against the ceiling measured in this run.
)"},
    {"compare", R"(usage: kflow compare CASE.toml [--backends openmp,cuda] [--set KEY=VALUE]...

Runs the case once per backend in this one process (no files written) and
reports the wall time per backend, the speed-up over the first backend, and the
largest difference between their final fields (absolute, and relative to the
field's largest magnitude).  Default: every backend compiled in.
)"},
    {"convert", R"(usage: kflow convert DIR

Turns the .kff frames a build without VTK wrote into DIR (frame_NNNNN.kff) into
.vti files and a run.pvd for ParaView.  Needs a kflow built with VTK.
)"},
};

struct Args {
  std::string command;
  std::vector<std::string> positional, sets;
  std::map<std::string, std::string> opts;
  bool help = false, quiet = false;
};

[[noreturn]] void usage_error(const std::string& msg, const std::string& command) {
  std::cerr << "kflow: " << msg << "\n"
            << "Try 'kflow " << (command.empty() ? "" : command + " ") << "--help'.\n";
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  const std::vector<std::string> valued = {"--backend", "--backends",  "--output", "--restart",
                                           "--threads", "--precision", "--size",   "--repeat"};
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--help" || s == "-h") {
      a.help = true;
    } else if (s == "--version") {
      a.command = "version";
    } else if (s == "--quiet" || s == "-q") {
      a.quiet = true;
    } else if (s == "--set") {
      if (i + 1 >= argc) usage_error("--set needs KEY=VALUE", a.command);
      a.sets.push_back(argv[++i]);
    } else if (s.rfind("--set=", 0) == 0) {
      a.sets.push_back(s.substr(6));
    } else if (s.rfind("--", 0) == 0) {
      std::string key = s, value;
      const auto eq = s.find('=');
      if (eq != std::string::npos) key = s.substr(0, eq), value = s.substr(eq + 1);
      if (std::find(valued.begin(), valued.end(), key) == valued.end())
        usage_error("unknown option '" + key + "'", a.command);
      if (eq == std::string::npos) {
        if (i + 1 >= argc) usage_error(key + " needs a value", a.command);
        value = argv[++i];
      }
      a.opts[key] = value;
    } else if (a.command.empty()) {
      a.command = s;
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

std::string opt(const Args& a, const std::string& key, const std::string& fallback = "") {
  auto it = a.opts.find(key);
  return it == a.opts.end() ? fallback : it->second;
}

long parse_count(const Args& a, const std::string& key, long fallback) {
  const auto v = opt(a, key);
  if (v.empty()) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (!end || *end || n < 1)
    usage_error(key + " expects a positive integer, got '" + v + "'", a.command);
  return n;
}

// Kokkos' OpenMP backend keeps its threads in a fixed pool of this size
// (OpenMPTraits::MAX_THREAD_COUNT); more threads deadlock or crash inside it.
constexpr long kMaxHostThreads = 512;

// The number of host threads asked for (--threads, else OMP_NUM_THREADS's
// first entry), checked against that pool; 0 when neither says.
long host_threads(const Args& a) {
  const long threads = parse_count(a, "--threads", 0);
  if (threads > kMaxHostThreads)
    usage_error("--threads " + opt(a, "--threads") + ": at most " +
                    std::to_string(kMaxHostThreads) + " (Kokkos' OpenMP thread pool)",
                a.command);
  if (threads > 0) return threads;
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (!env || !*env) return 0;
  const std::string first = std::string(env).substr(0, std::string(env).find(','));
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(first.c_str(), &end, 10);
  if (first.empty() || *end || errno == ERANGE || n < 1 || n > kMaxHostThreads)
    throw Error("OMP_NUM_THREADS=" + std::string(env) +
                ": expected a number of threads from 1 to " + std::to_string(kMaxHostThreads) +
                " (Kokkos' OpenMP thread pool)");
  return n;
}

// One GPU per rank of a distributed run: the rank's index on its host picks
// the device (CUDA builds).
void choose_device(Kokkos::InitializationSettings& s) {
#ifdef KOKKOS_ENABLE_CUDA
  if (kflow::parallel::size() > 1) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
      s.set_device_id(kflow::parallel::local_rank() % devices);
    else
      (void)cudaGetLastError();
  }
#else
  (void)s;
#endif
}

// Kokkos lives for the whole command (commands that need devices only).
struct KokkosSession {
  explicit KokkosSession(const Args& a) {
    Kokkos::InitializationSettings s;
    const long threads = host_threads(a);
    if (threads > 0) s.set_num_threads(static_cast<int>(threads));
    choose_device(s);
    if (!std::getenv("KFLOW_KOKKOS_WARNINGS")) s.set_disable_warnings(true);
    Kokkos::initialize(s);
  }
  ~KokkosSession() { Kokkos::finalize(); }
};

std::string gbs(double bytes_per_second) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GB/s", bytes_per_second / 1e9);
  return b;
}

// "ceiling 4012.3 GB/s (triad; copy ..., triad ..., dot ...)": the
// reference of every bench's fractions, with the kernel that set it.
std::string describe_ceiling(const kflow::StreamResult& r) {
  return "ceiling " + gbs(r.ceiling.bytes_per_second) + " (" + r.ceiling.kernel + "; copy " +
         gbs(r.bandwidth("copy")) + ", triad " + gbs(r.bandwidth("triad")) + ", dot " +
         gbs(r.bandwidth("dot")) + ")";
}

void need_case(const Args& a) {
  if (a.positional.size() != 1) usage_error("expected one case file", a.command);
}

kflow::RunOptions run_options(const Args& a) {
  kflow::RunOptions o;
  o.case_path = a.positional.at(0);
  o.overrides = a.sets;
  o.backend = opt(a, "--backend");
  o.output_dir = opt(a, "--output");
  o.restart = opt(a, "--restart");
  for (const char* key : {"--output", "--restart"})
    if (a.opts.count(key) && a.opts.at(key).empty())
      usage_error(std::string(key) + " expects a path, got ''", a.command);
  o.quiet = a.quiet;
  return o;
}

int cmd_check(const Args& a) {
  need_case(a);
  auto o = run_options(a);
  auto pc = kflow::prepare(o);
  const auto& g = pc.setup->grid;
  std::cout << o.case_path << ": ok: model " << pc.model->name << ", grid " << g.cells_text()
            << ", " << pc.precision << ", backend " << pc.backend << ", output " << pc.output_dir
            << "\n";
  for (const auto& n : pc.setup->notes) std::cout << "  note: " << n << "\n";
  if (pc.state_bytes > 0)
    std::cout << "  memory: about " << pc.state_bytes / 1e9 << " GB for the state on the "
              << (pc.backend == "cuda" ? "device" : "host") << ", " << pc.frame_bytes / 1e9
              << " GB or more on the host per frame\n";
  return 0;
}

// A word for a POSIX shell: as is when it is plain, else in single quotes.
std::string shell_quote(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-+=./,:@%") == std::string::npos)
    return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Every rank validates the case alike; rank 0 reports a problem once.
kflow::PreparedCase prepare_on_every_rank(const kflow::RunOptions& o) {
  try {
    auto pc = kflow::prepare(o);
    kflow::decompose(pc);
    return pc;
  } catch (const kflow::parallel::AgreedError&) {
    throw;
  } catch (const Error& e) {
    throw kflow::parallel::AgreedError(e.what());
  }
}

int cmd_run(const Args& a) {
  need_case(a);
  auto o = run_options(a);
  const bool root = kflow::parallel::root();
  if (!root) o.quiet = true;           // rank 0 speaks for a distributed run
  auto pc = prepare_on_every_rank(o);  // all validation before Kokkos starts
  KokkosSession k(a);
  std::ostream quiet(nullptr);
  const auto r = kflow::run(pc, o, root ? std::cerr : quiet);
  if (!root) return r.status == "interrupted" ? 130 : 0;
  std::cerr << "kflow: " << r.status << ": " << r.steps << " steps to t = " << r.time << " in "
            << r.wall_seconds << " s (" << r.cell_updates_per_second / 1e6 << " M cell updates/s, "
            << gbs(r.bandwidth_bytes_per_second) << " effective)\n";
  std::cerr << "kflow: output in " << r.output_dir
            << (kflow::io::vtk_available() ? " (open run.pvd in ParaView)" : "") << "\n";
  if (r.status == "interrupted") {
    if (r.stopped_mid_step)
      std::cerr << "kflow: stopped during step " << r.steps + 1 << "; the checkpoint in "
                << r.output_dir << " is the last complete one, t = " << r.restart_time << "\n";
    std::cerr << "kflow: interrupted; continue with: kflow run " << shell_quote(o.case_path);
    for (const auto& s : o.overrides) std::cerr << " --set " << shell_quote(s);
    if (!o.backend.empty()) std::cerr << " --backend " << o.backend;
    std::cerr << " --output " << shell_quote(pc.output_dir) << " --restart "
              << shell_quote(r.output_dir + "/checkpoint.kfc") << "\n";
    return 130;
  }
  return 0;
}

int cmd_list(const Args&) {
  auto& reg = kflow::Registry::instance();
  for (const auto& name : reg.names()) {
    std::cout << name << "\n  " << reg.find(name)->summary << "\n  precisions:";
    for (const auto& b : kflow::compiled_backends()) {
      std::cout << " " << b << " (";
      const auto p = reg.precisions(name, b);
      for (std::size_t k = 0; k < p.size(); ++k) std::cout << (k ? ", " : "") << p[k];
      std::cout << ")";
    }
    std::cout << "\n";
  }
  if (!reg.bench_names().empty()) std::cout << "\nkernel benchmarks (kflow bench NAME):\n";
  for (const auto& name : reg.bench_names()) {
    const auto* b = reg.find_bench(name);
    std::cout << name << "\n  " << b->summary << "\n";
    if (!b->params.empty()) std::cout << "  --set keys: " << b->params << "\n";
  }
  return 0;
}

int cmd_info(const Args& a) {
  KokkosSession k(a);
  std::cout << "kflow " << KFLOW_VERSION << "\nbackends compiled in:";
  for (const auto& b : kflow::compiled_backends()) std::cout << " " << b;
  std::cout << " (default " << kflow::default_backend() << ")\ndevices:\n";
  for (const auto& b : kflow::compiled_backends())
    std::cout << "  " << b << ": " << kflow::backend_description(b) << "\n";
  std::cout << "VTK output: "
            << (kflow::io::vtk_available() ? "yes (.vti + .pvd)"
                                           : "no (.kff frames; see 'kflow convert')")
            << "\nMPI (distributed runs, mpirun -n N kflow run): "
            << (kflow::parallel::built_with_mpi()
                    ? "yes, " + kflow::parallel::library() + " (" +
                          kflow::parallel::transport_description() + ")"
                    : std::string("no (built without MPI)"))
            << "\nhypre (the multigrid peer in 'kflow bench poisson'): "
#ifdef KFLOW_HAVE_HYPRE
            << "yes"
#else
            << "no (not found at configure time)"
#endif
            << "\nKokkos Kernels (linalg's CRS path, the 'kflow bench spmv' CRS row): "
            << KFLOW_KOKKOSKERNELS_INFO << "\n\n";
  Kokkos::print_configuration(std::cout, true);
  return 0;
}

int cmd_bench(const Args& a) {
  if (a.positional.size() != 1) usage_error("expected 'stream' or a model name", "bench");
  KokkosSession k(a);
  const auto what = a.positional[0];
  const auto backend = opt(a, "--backend", kflow::default_backend());
  if (what == "stream") {
    const auto precision = opt(a, "--precision", "double");
    if (precision != "double" && precision != "float")
      usage_error("--precision expects double or float, got '" + precision + "'", "bench");
    const auto n = static_cast<std::size_t>(parse_count(
        a, "--size", static_cast<long>(kflow::default_stream_elements(backend, precision))));
    const auto r = kflow::bench_stream(backend, precision, n,
                                       static_cast<int>(parse_count(a, "--repeat", 10)));
    std::cout << "bench stream: backend " << backend << " (" << kflow::backend_description(backend)
              << "), " << precision << ", " << r.elements << " elements ("
              << double(r.elements) * (precision == "float" ? 4 : 8) / (1024.0 * 1024)
              << " MiB per array), best of " << parse_count(a, "--repeat", 10) << "\n";
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
  if (kflow::Registry::instance().find_bench(what)) {
    kflow::KernelBenchOptions o;
    o.backend = backend;
    o.precision = opt(a, "--precision", "double");
    if (o.precision != "double" && o.precision != "float" && o.precision != "float16s")
      usage_error("--precision expects double, float or float16s, got '" + o.precision + "'",
                  "bench");
    o.params = kflow::BenchParams(a.sets);
    o.repeat = static_cast<int>(parse_count(a, "--repeat", 5));
    // On several ranks (bench_kernel's benchmark splits its grid), rank 0 reports.
    const bool root = kflow::parallel::root();
    std::ostream quiet(nullptr);
    const auto r = kflow::bench_kernel(what, o, root ? std::cerr : quiet);
    if (!root) return 0;
    // Several ranks: the aggregate against the sum of the ranks' ceilings
    // (rank 0's, measured while every rank measured its own).
    const int ranks = kflow::parallel::size();
    const double ceiling = r.stream.ceiling.bytes_per_second * ranks;
    const std::string of =
        ranks > 1 ? "% of " + std::to_string(ranks) + " ranks' ceilings" : "% of the ceiling";
    std::cout << "bench " << r.name << ": backend " << r.backend << " ("
              << kflow::backend_description(r.backend) << "), " << r.precision << ", best of "
              << o.repeat << "\n";
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
              << ", measured in this run\n";
    return 0;
  }
  if (a.opts.count("--precision"))
    usage_error("use --set run.precision=float for a model", "bench");
  const auto r = kflow::bench_model(what, backend, a.sets, std::cerr);
  std::cout << "bench " << r.model << ": backend " << r.backend << " ("
            << kflow::backend_description(r.backend) << "), " << r.precision << ", grid " << r.grid
            << ", " << r.steps << " steps in " << r.seconds << " s\n"
            << "  " << r.cell_updates_per_second / 1e6 << " M cell updates/s, effective "
            << gbs(r.bytes_per_second) << " = "
            << 100 * r.bytes_per_second / r.stream.ceiling.bytes_per_second
            << "% of the bandwidth ceiling measured in this run (" << describe_ceiling(r.stream)
            << ")\n"
            << "  " << r.seconds / double(r.steps) * 1e3 << " ms per step\n";
  for (const auto& [key, value] : r.per_step)
    std::cout << "  " << key
              << (key.find("_total") != std::string::npos ? " per step: " : " (last step): ")
              << value << "\n";
  if (!r.phases.empty()) std::cout << "  phases (a second run, waiting around each), per step:\n";
  const double cells = r.cell_updates_per_second * r.seconds / double(r.steps);
  for (const auto& ph : r.phases) {
    if (ph.calls == 0) continue;
    std::cout << "    " << ph.name << ": " << ph.seconds * 1e3 << " ms ("
              << double(ph.calls) / double(r.steps) << " calls)";
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
    if (backends.empty()) backends = kflow::compiled_backends();
  }
  std::vector<kflow::PreparedCase> cases;
  for (const auto& b : backends) {
    kflow::require_backend(b, "--backends");
    auto o = run_options(a);
    o.backend = b;
    cases.push_back(kflow::prepare(o));
  }
  KokkosSession k(a);
  std::vector<kflow::RunResult> results;
  for (std::size_t n = 0; n < backends.size(); ++n) {
    auto o = run_options(a);
    o.backend = backends[n];
    o.write_output = false;
    o.keep_final_fields = true;
    results.push_back(kflow::run(cases[n], o, std::cerr));
  }
  std::cout << "compare " << a.positional[0] << ": " << results[0].steps
            << " steps to t = " << results[0].time << "\n";
  for (std::size_t n = 0; n < backends.size(); ++n) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-8s %10.4f s  speed-up %7.2fx  (%s)", backends[n].c_str(),
                  results[n].wall_seconds, results[0].wall_seconds / results[n].wall_seconds,
                  kflow::backend_description(backends[n]).c_str());
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

// An error on some ranks only (during a distributed run) ends every rank:
// the others would wait for it in their next exchange.
void end_job() {
  if (kflow::parallel::size() > 1) kflow::parallel::abort(1);
}

int cmd_convert(const Args& a) {
  if (a.positional.size() != 1) usage_error("expected one output directory", "convert");
  const auto n = kflow::io::convert_frames(a.positional[0]);
  std::cout << "convert: " << n << " frames -> " << a.positional[0] << "/run.pvd\n";
  return 0;
}

int run_command(const Args& a);

// MPI for the whole process when an MPI launcher started kflow.
struct MpiSession {
  MpiSession(int* argc, char*** argv) { kflow::parallel::init(argc, argv); }
  ~MpiSession() { kflow::parallel::finalize(); }
};

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, reported like
  // a full disk, instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  MpiSession mpi(&argc, &argv);
  const Args a = parse_args(argc, argv);
  return run_command(a);
}

namespace {

int run_command(const Args& a) {
  if (a.command == "version") {
    std::cout << "kflow " << KFLOW_VERSION << "\n";
    return 0;
  }
  if (a.command.empty() || a.command == "help") {
    (a.help || a.command == "help" ? std::cout : std::cerr) << main_help;
    return a.help || a.command == "help" ? 0 : 2;
  }
  if (!help.count(a.command)) usage_error("unknown command '" + a.command + "'", "");
  if (a.help) {
    std::cout << help.at(a.command);
    return 0;
  }
  try {
    // A model's kernel benchmark runs distributed when the model does (the
    // benchmark splits its grid over the ranks).
    const auto& reg = kflow::Registry::instance();
    const bool distributed_bench = a.command == "bench" && a.positional.size() == 1 &&
                                   reg.find_bench(a.positional[0]) && reg.find(a.positional[0]) &&
                                   reg.find(a.positional[0])->distributed;
    kflow::parallel::check_job(a.command, distributed_bench);
    if (a.command == "run") return cmd_run(a);
    if (a.command == "check") return cmd_check(a);
    if (a.command == "list") return cmd_list(a);
    if (a.command == "info") return cmd_info(a);
    if (a.command == "bench") return cmd_bench(a);
    if (a.command == "compare") return cmd_compare(a);
    if (a.command == "convert") return cmd_convert(a);
  } catch (const kflow::parallel::AgreedError& e) {  // every rank has it: said once
    if (kflow::parallel::root()) std::cerr << "kflow: error: " << e.what() << "\n";
    return 1;
  } catch (const Error& e) {
    std::cerr << "kflow: error: " << kflow::parallel::rank_prefix() << e.what() << "\n";
    end_job();
    return 1;
  } catch (const std::bad_alloc& e) {  // Kokkos' allocation failures derive from it
    std::cerr << "kflow: error: " << kflow::parallel::rank_prefix() << "out of memory: " << e.what()
              << "\n";
    end_job();
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "kflow: internal error: " << kflow::parallel::rank_prefix() << e.what() << "\n";
    end_job();
    return 1;
  }
  return 0;
}

}  // namespace
