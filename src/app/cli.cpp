#include "cli.hpp"

#include <Kokkos_Core.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "kflow/core/subnormals.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/printable.hpp"

namespace kflow::cli {

namespace {

// Kokkos' OpenMP backend keeps its threads in a fixed pool of this size
// (OpenMPTraits::MAX_THREAD_COUNT); more threads deadlock or crash inside it.
constexpr long kMaxHostThreads = 512;

// An environment variable's integer (strictly: digits only), checked to lie
// in [lo, hi]; `what` says what it is.  -1 when it is not set.
long env_count(const char* name, const std::string& text, long lo, long hi,
               const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE || n < lo || n > hi ||
      !std::isdigit(static_cast<unsigned char>(text[0])))
    throw Error(std::string(name) + "=" + text + ": expected " + what + " from " +
                std::to_string(lo) + " to " + std::to_string(hi));
  return n;
}

// The number of host threads asked for (--threads, else KOKKOS_NUM_THREADS,
// else OMP_NUM_THREADS's first entry), each given one checked against that
// pool; 0 when none says.
long host_threads(const Args& a) {
  const long threads =
      parse_count(a, "--threads", 0, kMaxHostThreads, " (Kokkos' OpenMP thread pool)");
  const std::string pool = "a number of threads";
  const std::string pool_note = " (Kokkos' OpenMP thread pool)";
  long chosen = threads;
  try {
    // (Kokkos reads KOKKOS_NUM_THREADS whatever --threads says: it is checked too)
    if (const char* env = std::getenv("KOKKOS_NUM_THREADS")) {
      const long n = env_count("KOKKOS_NUM_THREADS", env, 1, kMaxHostThreads, pool);
      if (chosen == 0) chosen = n;
    }
    if (const char* env = std::getenv("OMP_NUM_THREADS"); env && *env) {
      const std::string first = std::string(env).substr(0, std::string(env).find(','));
      long n = 0;
      try {
        n = env_count("OMP_NUM_THREADS", first, 1, kMaxHostThreads, pool);
      } catch (const Error&) {
        throw Error("OMP_NUM_THREADS=" + std::string(env) + ": expected " + pool + " from 1 to " +
                    std::to_string(kMaxHostThreads));
      }
      if (chosen == 0) chosen = n;
    }
  } catch (const Error& e) {
    throw Error(e.what() + pool_note);
  }
  return chosen;
}

bool env_bool(const std::string& v) {
  std::string l;
  for (char c : v) l += char(std::tolower(static_cast<unsigned char>(c)));
  for (const char* w : {"1", "0", "true", "false", "yes", "no"})
    if (l == w) return true;
  return false;
}

// Kokkos reads these when it starts and aborts with a backtrace (or hangs,
// or crashes) on values it cannot use: each is checked here first, with a
// kflow message (docs/safety.md).
void check_kokkos_environment() {
  for (const char* name :
       {"KOKKOS_DISABLE_WARNINGS", "KOKKOS_PRINT_CONFIGURATION", "KOKKOS_TUNE_INTERNALS"})
    if (const char* v = std::getenv(name); v && !env_bool(v))
      throw Error(std::string(name) + "=" + v +
                  ": expected true or false (also 1, 0, yes, no); Kokkos reads it");
  // GPU indices: below the device count where a GPU backend is built in
  // (elsewhere Kokkos ignores them: any index is one).
  long devices = 1L << 30;
#ifdef KOKKOS_ENABLE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
  devices = count;
#endif
  const std::string gpus =
      devices < (1L << 30) ? " (this machine has " + std::to_string(devices) + " GPUs)" : "";
  auto gpu_index = [&](const char* name, const std::string& text, const std::string& all) {
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end || errno == ERANGE || n < 0 || n >= devices ||
        !std::isdigit(static_cast<unsigned char>(text[0])))
      throw Error(std::string(name) + "=" + all + ": expected " +
                  (devices == 0
                       ? std::string("nothing: this machine has no GPU Kokkos can use; "
                                     "unset it")
                       : (all == text ? "a GPU index" : "GPU indices separated by commas") +
                             (devices < (1L << 30) ? " from 0 to " + std::to_string(devices - 1)
                                                   : std::string(" (0, 1, ...)")) +
                             gpus + ", got '" + text + "'"));
  };
  if (const char* v = std::getenv("KOKKOS_DEVICE_ID")) gpu_index("KOKKOS_DEVICE_ID", v, v);
  if (const char* v = std::getenv("KOKKOS_VISIBLE_DEVICES")) {
    std::stringstream list(v);
    std::string item;
    bool any = false;
    while (std::getline(list, item, ',')) {
      any = true;
      gpu_index("KOKKOS_VISIBLE_DEVICES", item, v);
    }
    if (!any) gpu_index("KOKKOS_VISIBLE_DEVICES", "", v);
  }
  if (const char* v = std::getenv("KOKKOS_MAP_DEVICE_ID_BY");
      v && std::string(v) != "mpi_rank" && std::string(v) != "random")
    throw Error(std::string("KOKKOS_MAP_DEVICE_ID_BY=") + v +
                ": expected mpi_rank or random; Kokkos reads it");
  // Kokkos Tools: the libraries Kokkos loads into kflow (';' between them).
  for (const char* name : {"KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"})
    if (const char* v = std::getenv(name)) {
      std::stringstream list(v);
      std::string lib;
      while (std::getline(list, lib, ';')) {
        struct stat st {};
        if (lib.empty()) continue;
        if (::stat(lib.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
          throw Error(std::string(name) + "=" + v + ": " + lib +
                      (::stat(lib.c_str(), &st) != 0 ? " does not exist" : " is not a file") +
                      "; expected the path of a Kokkos Tools library (or unset it)");
      }
    }
  // Variables this Kokkos no longer reads.
  for (const char* name : {"KOKKOS_NUM_DEVICES", "KOKKOS_SKIP_DEVICE", "KOKKOS_NUMA"})
    if (std::getenv(name))
      std::cerr << "kflow: note: " << name << " is not read by this Kokkos ("
                << KOKKOS_VERSION_MAJOR << "." << KOKKOS_VERSION_MINOR
                << "); KOKKOS_VISIBLE_DEVICES and KOKKOS_DEVICE_ID "
                << "choose GPUs\n";
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
  std::cerr << "kflow: " << printable_lines(msg) << "\n"
            << "Try 'kflow " << (command.empty() ? "" : command + " ") << "--help'.\n";
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  const std::vector<std::string> valued = {"--backend",    "--backends",    "--output", "--restart",
                                           "--threads",    "--precision",   "--size",   "--repeat",
                                           "--subnormals", "--ceiling-size"};
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

long parse_count(const Args& a, const std::string& key, long fallback, long most,
                 const std::string& why) {
  const auto v = opt(a, key);
  if (v.empty()) return fallback;
  // Digits only, within [1, most] (strtol alone takes " 5" and "+5" and
  // clamps 2^63 to LONG_MAX; a cast to int turned 2147483648 into
  // -2147483648).
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (!std::isdigit(static_cast<unsigned char>(v[0])) || *end || (n < 1 && errno != ERANGE))
    usage_error(key + " expects an integer from 1 to " + std::to_string(most) + ", got '" + v + "'",
                a.command);
  if (errno == ERANGE || n > most)
    usage_error(key + " " + v + ": at most " + std::to_string(most) + why, a.command);
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
  check_kokkos_environment();
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
