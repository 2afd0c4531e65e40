#pragma once
// Benchmarks: memory bandwidth of a backend (the reference) and model steps.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kflow/core/model.hpp"

namespace kflow {

// One STREAM kernel's best bandwidth (bytes it moves / best time) and what
// gave it: `per` packs of `lanes` elements per work item (0: the runtime's
// copy, not ours).
struct StreamKernelResult {
  std::string kernel, what;  // "triad", "a = b + s c"
  double bytes_per_second = 0;
  int per = 1, lanes = 1;
};

struct StreamResult {
  std::string backend, precision;
  std::size_t elements = 0;
  // copy, mul, add, triad, dot (linalg/stream.hpp) and deep_copy (the
  // runtime's own copy: cudaMemcpy on CUDA).
  std::vector<StreamKernelResult> kernels;
  // The best of them: the reference of every benchmark's fraction.
  StreamKernelResult ceiling;
  double bandwidth(const std::string& kernel) const;  // 0 if not measured
};

// Best of `repeat` timings of each STREAM kernel over `elements` values per
// array (GPUs: 1, 2, 4 and 8 scalars or 16-byte vectors per work item, the
// best kept); the results are checked against the recurrence computed on the
// host.
StreamResult bench_stream(const std::string& backend, const std::string& precision,
                          std::size_t elements, int repeat);

// STREAM's default array length: the same bytes in every precision.
std::size_t default_stream_elements(const std::string& backend, const std::string& precision);

struct ModelBenchResult {
  std::string model, backend, precision, grid;
  long steps = 0;
  int repeat = 1;  // timed runs of `steps` steps; seconds is the best
  double seconds = 0, cell_updates_per_second = 0, bytes_per_second = 0;
  // Per timed step: the mean of each running total the model reports
  // (diagnostics "*_total", e.g. solver iterations), and the last step's
  // per-solve counts ("*_iterations").
  std::vector<std::pair<std::string, double>> per_step;
  // A second run of `steps` steps with every Profiling region timed
  // (RegionTimer: the device waited for at each region's start and end),
  // depth first: per step, the region's inclusive seconds, its calls and the
  // ideal bytes per cell its calls moved (Model::region_bytes; 0: not counted).
  struct Phase {
    std::string name;
    int depth = 0;
    double seconds = 0, calls = 0, bytes_per_cell = 0;
  };
  std::vector<Phase> phases;
  StreamResult stream;
};

// Times `steps` steps (after warm-up) of `model`'s bench case with overrides,
// `repeat` times in a row, the best kept.  The ceiling is measured on STREAM
// arrays of `ceiling_elements` elements (0: default_stream_elements).
ModelBenchResult bench_model(const std::string& model, const std::string& backend,
                             const std::vector<std::string>& overrides, std::ostream& log,
                             int repeat = 1, std::size_t ceiling_elements = 0);

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

struct KernelBenchResult {
  std::string name, backend, precision;
  std::vector<KernelBenchRow> rows;
  StreamResult stream;
};

KernelBenchResult bench_kernel(const std::string& name, const KernelBenchOptions& opt,
                               std::ostream& log);

}  // namespace kflow
