// kflow: the command-line program.
//   kflow run | check | list | info | bench | compare | convert

#include <Kokkos_Core.hpp>

#include <csignal>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string>

#include "cli.hpp"
#include "kflow/core/backend.hpp"
#include "kflow/core/build_info.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/printable.hpp"
#include "kflow/model/registry.hpp"

using kflow::Error;
using namespace kflow::cli;

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
                [--subnormals flush|keep]

Runs the case.  While it runs, output goes to DIR.running; a completed run then
replaces DIR, an interrupted one (Ctrl-C, SIGTERM, SIGHUP: the step finishes, a
last frame and a checkpoint are written; a second signal, a quarter of a second
or more after the first, stops at once, keeping the last complete checkpoint)
becomes DIR.interrupted, a failed one DIR.failed.
The output of an earlier run in DIR is never touched by a run that does not
complete, and a run deletes only the files an earlier run wrote (.kflow-run lists
them): a directory holding anything else is refused (an empty one is fine).  One
run at a time writes DIR (it holds a lock on DIR.lock).  A closed pipe on stdout
or stderr ends a run like Ctrl-C.

  --backend B         execution space (default: [run] backend, else the fastest compiled in)
  --set KEY=VALUE     override a case key, e.g. --set time.end=2 --set grid.cells=[64,64]
  --output DIR        output directory (default: [output] directory)
  --restart FILE      continue from a checkpoint (DIR/checkpoint.kfc); bit-for-bit
  --quiet             no progress lines
  --threads N         OpenMP threads (default: OMP_NUM_THREADS or all cores)
  --subnormals M      CPU threads flush subnormal numbers (below 1.2e-38 in float)
                      to zero ("flush", default: each costs a CPU a microcode
                      assist) or keep them ("keep"); GPUs keep them.  Also for
                      bench and compare.
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
       kflow bench MODEL  [--backend B] [--repeat R] [--ceiling-size N] [--set KEY=VALUE]...
       kflow bench NAME   [--backend B] [--precision double|float|float16s|float16c] [--repeat R] [--ceiling-size N] [--set KEY=VALUE]...

stream: BabelStream's kernels (copy, mul, add, triad, dot) and the runtime's
        copy on the backend, best of R runs over N elements per array (default
        1 GiB an array on cuda, 256 MiB on CPUs, in either precision; GPUs: the
        best of 1, 2, 4, 8 elements or 16-byte vectors per thread).  The best is the bandwidth ceiling every benchmark reports against.
MODEL:  times the model's benchmark case (e.g. 'diffusion', 512^3 cells, 100 steps;
        change it with --set grid.cells=[256,256,256] --set time.steps=50
        --set run.precision=float) and reports cell updates per second and the
        effective bandwidth as a fraction of the ceiling measured in the same run;
        --repeat R times the steps R times in a row and keeps the best (default 1).
NAME:   a kernel benchmark ('kflow list' names them and their --set keys), e.g.
        kflow bench rbsor --backend cuda --set n=4096; --precision and --repeat
        apply, and each row is reported against the ceiling measured in this run.
--ceiling-size N: the ceiling's STREAM arrays hold N elements (default as
        stream's --size); arrays a cache holds measure the cache, not memory,
        so use it only for quick checks of a benchmark's rows.
)"},
    {"compare", R"(usage: kflow compare CASE.toml [--backends openmp,cuda] [--set KEY=VALUE]...

Runs the case once per backend in this one process (no files written) and
reports the wall time per backend, the speed-up over the first backend, and the
largest difference between their final fields (absolute, and relative to the
field's largest magnitude).  Default: every backend compiled in.
)"},
    {"convert", R"(usage: kflow convert DIR

Turns the .kff frames a build without VTK wrote into DIR (frame_NNNNN.kff) into
.vti files and a run.pvd for ParaView.  Needs a kflow built with VTK.  No file
is replaced until every frame has converted; a directory a run is writing is
refused.
)"},
};

int cmd_check(const Args& a) {
  need_case(a);
  auto o = run_options(a);
  auto pc = kflow::prepare(o);  // (the memory estimate included)
  const auto& g = pc.setup->grid;
  // The checks that need the bodies' cells (a body that covers none, bodies
  // that leave no fluid, a model's own on its mask), as a run's set-up makes
  // them: voxelised here on the host, at the grid's cell centres.
  {
    std::optional<KokkosSession> k;
    if (!pc.setup->bodies.empty()) k.emplace(a);
    kflow::place_bodies(*pc.setup, true);
  }
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
  const auto hypre = kflow::build_info("hypre");
  std::cout << "kflow " << KFLOW_VERSION << "\nbuilt with:\n";
  for (const auto& [item, version] : kflow::build_info())
    std::cout << "  " << item << ": " << version << "\n";
  std::cout << "backends compiled in:";
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
            << (hypre == "not in this build" ? "no (not found at configure time)" : "yes, " + hypre)
            << "\nKokkos Kernels (linalg's CRS path, the 'kflow bench spmv' CRS row): "
            << kflow::build_info("kokkos_kernels") << "\n\n";
  Kokkos::print_configuration(std::cout, true);
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
  // A closed pipe on stdout or stderr (`kflow run ... | head`) makes a write
  // fail with EPIPE instead of killing the process: a run then ends after its
  // step with a checkpoint, like an interrupted one (signals.cpp).
  std::signal(SIGPIPE, SIG_IGN);
  // A kernel benchmark runs in the companion program kflow-bench (cli.hpp).
  kflow::cli::exec_bench_program(argc, argv);
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
                                   reg.find(a.positional[0])->distributed();
    kflow::parallel::check_job(a.command, distributed_bench);
    if (a.command == "run") return cmd_run(a);
    if (a.command == "check") return cmd_check(a);
    if (a.command == "list") return cmd_list(a);
    if (a.command == "info") return cmd_info(a);
    if (a.command == "bench") return cmd_bench(a);
    if (a.command == "compare") return cmd_compare(a);
    if (a.command == "convert") return cmd_convert(a);
  } catch (const kflow::parallel::AgreedError& e) {  // every rank has it: said once
    if (kflow::parallel::root())
      std::cerr << "kflow: error: " << kflow::printable_lines(e.what()) << "\n";
    return 1;
  } catch (const Error& e) {
    std::cerr << "kflow: error: " << kflow::parallel::rank_prefix()
              << kflow::printable_lines(e.what()) << "\n";
    end_job();
    return 1;
  } catch (const std::exception& e) {
    // An allocation that failed (std::bad_alloc, Kokkos' failures) in kflow's
    // words; anything else is kflow's fault.
    const std::string said = kflow::failure_message(e);
    std::cerr << "kflow: " << (said == e.what() ? "internal error: " : "error: ")
              << kflow::parallel::rank_prefix() << kflow::printable_lines(said) << "\n";
    end_job();
    return 1;
  }
  return 0;
}

}  // namespace
