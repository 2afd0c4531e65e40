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

#include "kflow/model/kernel_bench.hpp"
#include "kflow/model/model.hpp"

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

struct KernelBenchResult {
  std::string name, backend, precision;
  std::vector<KernelBenchRow> rows;
  StreamResult stream;
};

KernelBenchResult bench_kernel(const std::string& name, const KernelBenchOptions& opt,
                               std::ostream& log);

}  // namespace kflow
