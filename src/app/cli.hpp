#pragma once
// The command line of the kflow program: its arguments, the options every
// command shares, and the Kokkos session of a command that needs devices.

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/core/driver.hpp"

namespace kflow::cli {

struct Args {
  std::string command;
  std::vector<std::string> positional, sets;
  std::map<std::string, std::string> opts;
  bool help = false, quiet = false;
};

// argv as a command, its positional arguments, --set KEY=VALUE and options.
Args parse_args(int argc, char** argv);

// A usage error: the message and a pointer to --help, exit status 2.
[[noreturn]] void usage_error(const std::string& msg, const std::string& command);

// An option's value, or `fallback` when it was not given.
std::string opt(const Args& a, const std::string& key, const std::string& fallback = "");

// An integer option from 1 to `most` (a usage error naming the value and
// the range otherwise, `why` after a value too large), or `fallback`.
long parse_count(const Args& a, const std::string& key, long fallback,
                 long most = std::numeric_limits<long>::max(), const std::string& why = "");

// Exactly one case file among the positional arguments.
void need_case(const Args& a);

// The case, --set, --backend, --output, --restart and --quiet as run options.
RunOptions run_options(const Args& a);

// "12.3 GB/s"
std::string gbs(double bytes_per_second);

// "ceiling 4012.3 GB/s (triad; copy ..., triad ..., dot ...)": the
// reference of every bench's fractions, with the kernel that set it.
std::string describe_ceiling(const StreamResult& r);

// Kokkos lives for the whole command (commands that need devices only):
// --threads or OMP_NUM_THREADS host threads, one GPU per rank.
struct KokkosSession {
  explicit KokkosSession(const Args& a);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

// kflow bench and kflow compare (bench_commands.cpp).
int cmd_bench(const Args& a);
// `kflow bench NAME` for a kernel benchmark whose instantiations this program
// lacks: replaces the process with kflow-bench from the same directory (same
// arguments), or ends with a message saying how to build it.  Returns when
// the command is anything else.  Called before MPI starts.
void exec_bench_program(int argc, char** argv);
int cmd_compare(const Args& a);

}  // namespace kflow::cli
