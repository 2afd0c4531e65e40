#pragma once
// Model registry: models register themselves (KFLOW_REGISTER_* in their own
// translation units); the core finds them by name and never names one.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kflow/model/config.hpp"
#include "kflow/model/kernel_bench.hpp"
#include "kflow/model/model.hpp"

namespace kflow {

struct ModelInfo {
  std::string name;
  std::string summary;
  // Reads and validates the model's keys ([grid], [physics], [boundary], ...).
  std::function<std::unique_ptr<ModelSetup>(Config&)> parse;
  // A small case for `kflow bench MODEL` (TOML text; --set overrides apply).
  std::string bench_case;
  // Ranks::several: runs on several ranks (mpirun -n N); Ranks::one refuses more than one.
  enum class Ranks { one, several };
  Ranks ranks = Ranks::one;
  bool distributed() const { return ranks == Ranks::several; }
};

using ModelFactory = std::unique_ptr<Model> (*)(const ModelSetup&);

class Registry {
 public:
  static Registry& instance();
  bool add_model(ModelInfo info);
  bool add_factory(const std::string& model, const std::string& backend,
                   const std::string& precision, ModelFactory f);

  const ModelInfo* find(const std::string& name) const;
  std::vector<std::string> names() const;
  // Precisions the model supports on this backend (precision.hpp's names).
  std::vector<std::string> precisions(const std::string& model, const std::string& backend) const;
  ModelFactory factory(const std::string& model, const std::string& backend,
                       const std::string& precision) const;

  // Kernel benchmarks (kernel_bench.hpp), registered like models.
  bool add_bench(KernelBenchInfo info);
  bool add_bench_factory(const std::string& bench, const std::string& backend,
                         const std::string& precision, KernelBench f);
  const KernelBenchInfo* find_bench(const std::string& name) const;
  // Whether this program holds an instantiation of benchmark `name` (kflow
  // has the descriptions only; kflow-bench and the tests have both).
  bool has_bench_factories(const std::string& name) const;
  std::vector<std::string> bench_names() const;
  KernelBench bench(const std::string& name, const std::string& backend,
                    const std::string& precision) const;

 private:
  std::map<std::string, ModelInfo> models_;
  std::map<std::string, ModelFactory> factories_;  // "model/backend/precision"
  std::map<std::string, KernelBenchInfo> benches_;
  std::map<std::string, KernelBench> bench_factories_;
};

}  // namespace kflow

#define KFLOW_CAT_(a, b) a##b
#define KFLOW_CAT(a, b) KFLOW_CAT_(a, b)
// Registers a model's description (once per model, in one .cpp file).
#define KFLOW_REGISTER_MODEL(info_expr)                                                \
  namespace {                                                                          \
  const bool KFLOW_CAT(kflow_model_registered_,                                        \
                       __LINE__) = ::kflow::Registry::instance().add_model(info_expr); \
  }
// Registers a kernel benchmark's description (once, in one .cpp file).
#define KFLOW_REGISTER_BENCH(info_expr)                                                \
  namespace {                                                                          \
  const bool KFLOW_CAT(kflow_bench_registered_,                                        \
                       __LINE__) = ::kflow::Registry::instance().add_bench(info_expr); \
  }
// Registers one (benchmark, backend, precision) instantiation.
#define KFLOW_REGISTER_BENCH_FACTORY(bench, backend, precision, fn)                                \
  namespace {                                                                                      \
  const bool KFLOW_CAT(kflow_bench_factory_registered_,                                            \
                       __LINE__) = ::kflow::Registry::instance().add_bench_factory(bench, backend, \
                                                                                   precision, fn); \
  }
// Registers one (model, backend, precision) instantiation.
#define KFLOW_REGISTER_FACTORY(model, backend, precision, fn)                                \
  namespace {                                                                                \
  const bool KFLOW_CAT(kflow_factory_registered_,                                            \
                       __LINE__) = ::kflow::Registry::instance().add_factory(model, backend, \
                                                                             precision, fn); \
  }
