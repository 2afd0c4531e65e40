#include "cli.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "kflow/core/error.hpp"
#include "kflow/core/parallel.hpp"
#include "kflow/core/subnormals.hpp"

namespace kflow::cli {

namespace {

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
  if (parallel::size() > 1) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0)
      s.set_device_id(parallel::local_rank() % devices);
    else
      (void)cudaGetLastError();
  }
#else
  (void)s;
#endif
}

}  // namespace

[[noreturn]] void usage_error(const std::string& msg, const std::string& command) {
  std::cerr << "kflow: " << msg << "\n"
            << "Try 'kflow " << (command.empty() ? "" : command + " ") << "--help'.\n";
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  const std::vector<std::string> valued = {"--backend", "--backends", "--output",
                                           "--restart", "--threads",  "--precision",
                                           "--size",    "--repeat",   "--subnormals"};
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

std::string opt(const Args& a, const std::string& key, const std::string& fallback) {
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

KokkosSession::KokkosSession(const Args& a) {
  Subnormals mode = Subnormals::flush;
  try {
    mode = parse_subnormals(opt(a, "--subnormals", "flush"), "--subnormals");
  } catch (const Error& e) {
    usage_error(e.what(), a.command);
  }
  // before the host threads start (they inherit it), and on each after
  set_thread_subnormals(mode);
  Kokkos::InitializationSettings s;
  const long threads = host_threads(a);
  if (threads > 0) s.set_num_threads(static_cast<int>(threads));
  choose_device(s);
  if (!std::getenv("KFLOW_KOKKOS_WARNINGS")) s.set_disable_warnings(true);
  Kokkos::initialize(s);
  set_host_subnormals(mode);
}

KokkosSession::~KokkosSession() {
  Kokkos::finalize();
}

std::string gbs(double bytes_per_second) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GB/s", bytes_per_second / 1e9);
  return b;
}

std::string describe_ceiling(const StreamResult& r) {
  return "ceiling " + gbs(r.ceiling.bytes_per_second) + " (" + r.ceiling.kernel + "; copy " +
         gbs(r.bandwidth("copy")) + ", triad " + gbs(r.bandwidth("triad")) + ", dot " +
         gbs(r.bandwidth("dot")) + ")";
}

void need_case(const Args& a) {
  if (a.positional.size() != 1) usage_error("expected one case file", a.command);
}

RunOptions run_options(const Args& a) {
  RunOptions o;
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

}  // namespace kflow::cli
