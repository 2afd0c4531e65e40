#pragma once
// Kernel benchmarks' interface (`kflow bench NAME`): what a benchmark reads,
// returns and registers with (registry.hpp).  The runner is the core's
// (kflow/core/bench.hpp).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kflow {

// Kernel benchmarks (`kflow bench NAME`): timed linear-algebra kernels that are
// not a whole model (red-black SOR sweeps, tridiagonal solvers, SIP).  A
// benchmark is a function template on (execution space, real type), one
// instantiation per backend and precision (cmake: kflow_add_bench), which
// returns rows of (what, best time, bytes an ideal kernel moves).
class BenchParams {
 public:
  BenchParams() = default;
  // "key=value" strings from --set.
  explicit BenchParams(const std::vector<std::string>& sets);
  long get_int(const std::string& key, long fallback, long min_value = 1) const;
  double get_double(const std::string& key, double fallback) const;
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices) const;
  // Comma-separated list of choices ("all" = every choice).
  std::vector<std::string> get_choices(const std::string& key, const std::string& fallback,
                                       const std::vector<std::string>& choices) const;
  std::vector<long> get_ints(const std::string& key, const std::vector<long>& fallback,
                             long min_value = 1) const;
  // Throws on a --set key no get_* asked for (call after reading them all).
  void check_unknown(const std::string& bench) const;

 private:
  const std::string* raw(const std::string& key) const;
  std::map<std::string, std::string> values_;
  mutable std::set<std::string> used_;
};

struct KernelBenchOptions {
  std::string backend, precision;
  BenchParams params;
  int repeat = 5;
  std::size_t ceiling_elements = 0;  // the ceiling's STREAM arrays (0: the default)
};

// Seconds: the best of `repeat` timed calls of fn() on `space`, each fenced
// before and after, following `warm_up` untimed calls (first touch, caches).
// Every kernel benchmark times this way.
template <class Space, class Fn>
double best_time(const Space& space, int repeat, Fn&& fn, int warm_up = 0) {
  for (int w = 0; w < warm_up; ++w) fn();
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeat; ++r) {
    space.fence();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    space.fence();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

struct KernelBenchRow {
  std::string label;   // what was timed, with its sizes
  double seconds = 0;  // best of `repeat` (0: not timed, the note says why)
  double bytes = 0;    // bytes an ideal implementation moves (0: not a bandwidth figure)
  std::string note;    // e.g. iterations, residual, error against a reference
};

using KernelBench = std::vector<KernelBenchRow> (*)(const KernelBenchOptions&, std::ostream& log);

struct KernelBenchInfo {
  std::string name, summary, params;  // params: help text for the --set keys
};

}  // namespace kflow
