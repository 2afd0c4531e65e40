#include "kflow/core/bench.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <ostream>

#include "kflow/core/backend.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/core/error.hpp"
#include "kflow/linalg/stream.hpp"

namespace kflow {

namespace {

template <class Space, class Real>
StreamResult stream(std::size_t n, int repeat) {
  Space space;
  using Mem = typename Space::memory_space;
  Kokkos::View<Real*, Mem> a(Kokkos::view_alloc(space, "kflow::bench::a"), n);
  Kokkos::View<Real*, Mem> b(Kokkos::view_alloc(space, "kflow::bench::b"), n);
  Kokkos::deep_copy(space, a, Real(1));
  Kokkos::deep_copy(space, b, Real(2));
  space.fence("kflow::bench::stream_init");
  double copy_best = 1e30, dot_best = 1e30;
  double sink = 0;
  for (int r = 0; r < repeat + 1; ++r) {  // the first round warms up
    auto t0 = std::chrono::steady_clock::now();
    linalg::copy(space, Kokkos::View<const Real*, Mem>(a), b);
    space.fence("kflow::bench::copy");
    auto t1 = std::chrono::steady_clock::now();
    sink +=
        linalg::dot(space, Kokkos::View<const Real*, Mem>(a), Kokkos::View<const Real*, Mem>(b));
    auto t2 = std::chrono::steady_clock::now();
    if (r == 0) continue;
    copy_best = std::min(copy_best, std::chrono::duration<double>(t1 - t0).count());
    dot_best = std::min(dot_best, std::chrono::duration<double>(t2 - t1).count());
  }
  if (!(sink > 0)) throw Error("bench stream: wrong dot product (" + std::to_string(sink) + ")");
  StreamResult r;
  r.elements = n;
  r.copy_bytes_per_second = 2.0 * n * sizeof(Real) / copy_best;
  r.dot_bytes_per_second = 2.0 * n * sizeof(Real) / dot_best;
  return r;
}

template <class Space>
StreamResult stream_real(const std::string& precision, std::size_t n, int repeat) {
  return precision == "float" ? stream<Space, float>(n, repeat) : stream<Space, double>(n, repeat);
}

}  // namespace

std::size_t default_stream_elements(const std::string& backend) {
  return backend == "cuda" ? (std::size_t(1) << 27) : (std::size_t(1) << 25);
}

StreamResult bench_stream(const std::string& backend, const std::string& precision,
                          std::size_t elements, int repeat) {
  require_backend(backend, "--backend");
  StreamResult r;
#ifdef KOKKOS_ENABLE_CUDA
  if (backend == "cuda") r = stream_real<Kokkos::Cuda>(precision, elements, repeat);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (backend == "openmp") r = stream_real<Kokkos::OpenMP>(precision, elements, repeat);
#endif
#ifdef KOKKOS_ENABLE_SERIAL
  if (backend == "serial") r = stream_real<Kokkos::Serial>(precision, elements, repeat);
#endif
  r.backend = backend;
  r.precision = precision;
  return r;
}

ModelBenchResult bench_model(const std::string& model, const std::string& backend,
                             const std::vector<std::string>& overrides, std::ostream& log) {
  const ModelInfo* info = Registry::instance().find(model);
  if (!info) {
    const auto guess = closest(model, Registry::instance().names());
    throw Error("bench: unknown model or benchmark \"" + model + "\"" +
                (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                "; try 'kflow bench --help'");
  }
  RunOptions opt;
  opt.case_path = "<bench " + model + ">";
  opt.overrides = overrides;
  opt.backend = backend;
  PreparedCase pc = prepare(Config::parse(info->bench_case, opt.case_path, overrides), opt);
  auto factory = Registry::instance().factory(model, pc.backend, pc.precision);
  std::unique_ptr<Model> m = factory(*pc.setup);
  const auto& g = pc.setup->grid;
  ModelBenchResult r;
  r.model = model;
  r.backend = pc.backend;
  r.precision = pc.precision;
  r.grid = g.cells_text();
  r.steps = pc.max_steps > 0 ? pc.max_steps : 100;
  const double dt = pc.fixed_dt > 0 ? pc.fixed_dt : pc.safety * m->stable_dt(0);
  double t = 0;
  for (int k = 0; k < 5; ++k, t += dt) m->step(t, dt);  // warm-up
  m->fence();
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < r.steps; ++k, t += dt) m->step(t, dt);
  m->fence();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cells = double(g.interior_cells());
  r.cell_updates_per_second = cells * r.steps / r.seconds;
  r.bytes_per_second = r.cell_updates_per_second * m->bytes_per_cell_step();
  const auto d = m->diagnostics(t);
  for (const auto& [k, v] : d)
    if (!std::isfinite(v))
      throw Error("bench " + model + ": " + k + " is not finite after the run");
  m.reset();
  log << "kflow bench: measuring " << pc.backend << " copy bandwidth for reference\n";
  r.stream = bench_stream(pc.backend, pc.precision, default_stream_elements(pc.backend), 5);
  return r;
}

}  // namespace kflow
