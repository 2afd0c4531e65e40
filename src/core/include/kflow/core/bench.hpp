#pragma once
// Benchmarks: memory bandwidth of a backend (the reference) and model steps.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace kflow {

struct StreamResult {
  std::string backend, precision;
  std::size_t elements = 0;
  double copy_bytes_per_second = 0, dot_bytes_per_second = 0;
};

// Best of `repeat` timings of b = a and of sum a*b over `elements` values.
StreamResult bench_stream(const std::string& backend, const std::string& precision,
                          std::size_t elements, int repeat);
std::size_t default_stream_elements(const std::string& backend);

struct ModelBenchResult {
  std::string model, backend, precision, grid;
  long steps = 0;
  double seconds = 0, cell_updates_per_second = 0, bytes_per_second = 0;
  StreamResult stream;
};

// Times `steps` steps (after warm-up) of `model`'s bench case with overrides.
ModelBenchResult bench_model(const std::string& model, const std::string& backend,
                             const std::vector<std::string>& overrides, std::ostream& log);

}  // namespace kflow
