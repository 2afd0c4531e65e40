#include "kflow/model/registry.hpp"

#include "kflow/model/precision.hpp"

namespace kflow {

Registry& Registry::instance() {
  static Registry r;
  return r;
}

bool Registry::add_model(ModelInfo info) {
  auto name = info.name;
  models_.emplace(name, std::move(info));
  return true;
}

bool Registry::add_factory(const std::string& model, const std::string& backend,
                           const std::string& precision, ModelFactory f) {
  factories_[model + "/" + backend + "/" + precision] = f;
  return true;
}

const ModelInfo* Registry::find(const std::string& name) const {
  auto it = models_.find(name);
  return it == models_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> r;
  for (const auto& [name, info] : models_) r.push_back(name);
  return r;
}

std::vector<std::string> Registry::precisions(const std::string& model,
                                              const std::string& backend) const {
  std::vector<std::string> r;
  for (const char* p : precision_names)
    if (factory(model, backend, p)) r.push_back(p);
  return r;
}

ModelFactory Registry::factory(const std::string& model, const std::string& backend,
                               const std::string& precision) const {
  auto it = factories_.find(model + "/" + backend + "/" + precision);
  return it == factories_.end() ? nullptr : it->second;
}

bool Registry::add_bench(KernelBenchInfo info) {
  auto name = info.name;
  benches_.emplace(name, std::move(info));
  return true;
}

bool Registry::add_bench_factory(const std::string& bench, const std::string& backend,
                                 const std::string& precision, KernelBench f) {
  bench_factories_[bench + "/" + backend + "/" + precision] = f;
  return true;
}

const KernelBenchInfo* Registry::find_bench(const std::string& name) const {
  auto it = benches_.find(name);
  return it == benches_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::bench_names() const {
  std::vector<std::string> r;
  for (const auto& [name, info] : benches_) r.push_back(name);
  return r;
}

bool Registry::has_bench_factories(const std::string& name) const {
  const auto it = bench_factories_.lower_bound(name + "/");
  return it != bench_factories_.end() && it->first.rfind(name + "/", 0) == 0;
}

KernelBench Registry::bench(const std::string& name, const std::string& backend,
                            const std::string& precision) const {
  auto it = bench_factories_.find(name + "/" + backend + "/" + precision);
  return it == bench_factories_.end() ? nullptr : it->second;
}

}  // namespace kflow
