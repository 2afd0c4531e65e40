#include "kflow/core/bench.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kflow/core/backend.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/core/region_timer.hpp"
#include "kflow/linalg/space.hpp"
#include "kflow/linalg/stream.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/printable.hpp"
#include "kflow/model/registry.hpp"

namespace kflow {

namespace {

template <class Space, class Real>
StreamResult stream(std::size_t n, int repeat) {
  Space space;
  using Mem = typename Space::memory_space;
  using V = Kokkos::View<Real*, Mem>;
  using CV = Kokkos::View<const Real*, Mem>;
  // Scalars or 16-byte vectors per work item; GPUs: 1, 2, 4 or 8 of them.
  constexpr int vec = linalg::detail::stream_vector_lanes<Real>;
  const std::vector<int> pers =
      linalg::on_gpu<Space> ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{1};
  const std::vector<int> lanes = {1, vec};
  n -= n % (8 * vec);
  if (n == 0)
    throw Error("bench stream: --size must be at least " + std::to_string(8 * vec) + " elements");
  V a(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::bench::a"), n);
  V b(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::bench::b"), n);
  V c(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::bench::c"), n);
  // BabelStream's values; the arrays first touched by the space's threads
  // (page placement on CPUs), in the order the kernels use them.
  const Real s = Real(0.4);
  Real ea = Real(0.1), eb = Real(0.2), ec = Real(0);
  linalg::stream_init(space, a, b, c, pers[0], lanes[0]);
  space.fence("kflow::bench::stream_init");
  const char* names[6] = {"copy", "mul", "add", "triad", "dot", "deep_copy"};
  const char* what[6] = {"c = a", "b = s c", "c = a + b", "a = b + s c", "sum a b", "runtime copy"};
  const double arrays[6] = {2, 2, 3, 3, 2, 2};
  double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
  int best_per[6] = {1, 1, 1, 1, 1, 1}, best_lanes[6] = {1, 1, 1, 1, 1, 1};
  double sum = 0, expected = 0;
  auto timed = [&](auto&& fn) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    space.fence("kflow::bench::stream");
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  for (int w : lanes)
    for (int per : pers)
      for (int r = 0; r < repeat + 1; ++r) {  // the first round warms up
        double t[6];
        t[0] = timed([&] { linalg::copy(space, CV(a), c, per, w); });
        t[1] = timed([&] { linalg::mul(space, CV(c), b, s, per, w); });
        t[2] = timed([&] { linalg::add(space, CV(a), CV(b), c, per, w); });
        t[3] = timed([&] { linalg::triad(space, CV(b), CV(c), a, s, per, w); });
        t[4] = timed([&] { sum = linalg::dot(space, CV(a), CV(b), per, w); });
        t[5] = timed([&] { Kokkos::deep_copy(space, c, a); });
        // The same recurrence on the host (after deep_copy, c = a).
        ec = ea, eb = s * ec, ec = ea + eb, ea = eb + s * ec, ec = ea;
        expected = double(n) * double(ea) * double(eb);
        if (r == 0) continue;
        for (int k = 0; k < 6; ++k)
          if (t[k] < best[k]) best[k] = t[k], best_per[k] = per, best_lanes[k] = w;
      }
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  // a: the same operations in Real; the dot product: sums of n terms in
  // another order.
  const double tol = sizeof(Real) == 4 ? 1e-5 : 1e-12, tol_dot = sizeof(Real) == 4 ? 1e-4 : 1e-8;
  if (!(std::fabs(double(h(n / 2)) - double(ea)) <= tol * std::fabs(double(ea))) ||
      !(std::fabs(sum - expected) <= tol_dot * std::fabs(expected)))
    throw Error("bench stream: wrong results (a = " + std::to_string(double(h(n / 2))) +
                " against " + std::to_string(double(ea)) + ", dot " + std::to_string(sum) +
                " against " + std::to_string(expected) + ")");
  StreamResult res;
  res.elements = n;
  for (int k = 0; k < 6; ++k) {
    StreamKernelResult kr{names[k], what[k], arrays[k] * double(n) * sizeof(Real) / best[k],
                          k == 5 ? 0 : best_per[k], k == 5 ? 0 : best_lanes[k]};
    res.kernels.push_back(kr);
    if (kr.bytes_per_second > res.ceiling.bytes_per_second) res.ceiling = kr;
  }
  return res;
}

template <class Space>
StreamResult stream_real(const std::string& precision, std::size_t n, int repeat) {
  // 16-bit states are read and written as float16 but the ceiling is a
  // bandwidth: float's kernels measure it.
  return precision == "double" ? stream<Space, double>(n, repeat) : stream<Space, float>(n, repeat);
}

}  // namespace

double StreamResult::bandwidth(const std::string& kernel) const {
  for (const auto& k : kernels)
    if (k.kernel == kernel) return k.bytes_per_second;
  return 0;
}

std::size_t default_stream_elements(const std::string& backend, const std::string& precision) {
  // The same bytes in every precision (1 GiB an array on GPUs, 256 MiB on
  // CPUs): float arrays of double's length are half the bytes, and the GPU
  // machine's host cache held enough of them to raise float's ceiling up to
  // twice double's (docs/performance.md).
  const std::size_t bytes = backend == "cuda" ? (std::size_t(1) << 30) : (std::size_t(1) << 28);
  return bytes / (precision == "double" ? 8 : 4);
}

StreamResult bench_stream(const std::string& backend, const std::string& precision,
                          std::size_t elements, int repeat) {
  require_backend(backend, "--backend");
  const double bytes = 3.0 * double(elements) * (precision == "double" ? 8 : 4);
  check_memory(bytes, 0, backend, "bench stream",
               "3 arrays of " + std::to_string(elements) + " " + precision + " elements",
               "a smaller --size");
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
                             const std::vector<std::string>& overrides, std::ostream& log,
                             int repeat, std::size_t ceiling_elements) {
  const ModelInfo* info = Registry::instance().find(model);
  if (!info) {
    const auto guess = closest(model, Registry::instance().names());
    throw Error("bench: unknown model or benchmark \"" + printable(model, 60) + "\"" +
                (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                "; try 'kflow bench --help'");
  }
  RunOptions opt;
  opt.case_path = "<bench " + model + ">";
  opt.overrides = overrides;
  opt.backend = backend;
  opt.write_output = false;  // (prepare's memory estimate: the state alone)
  PreparedCase pc = prepare(Config::parse(info->bench_case, opt.case_path, overrides), opt);
  auto factory = Registry::instance().factory(model, pc.backend, pc.precision);
  place_bodies(*pc.setup, false);
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
  const auto before = m->diagnostics(t);
  r.repeat = std::max(1, repeat);
  r.seconds = std::numeric_limits<double>::infinity();
  for (int rep = 0; rep < r.repeat; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < r.steps; ++k, t += dt) m->step(t, dt);
    m->fence();
    r.seconds = std::min(
        r.seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double cells = double(g.interior_cells());
  r.cell_updates_per_second = cells * r.steps / r.seconds;
  r.bytes_per_second = r.cell_updates_per_second * m->bytes_per_cell_step();
  const auto d = m->diagnostics(t);
  for (const auto& [k, v] : d)
    if (!std::isfinite(v))
      throw Error("bench " + model + ": " + k + " is not finite after the run");
  for (const auto& [k, v] : d) {
    const bool total = k.size() > 6 && k.compare(k.size() - 6, 6, "_total") == 0;
    if (total || k.find("_iterations") != std::string::npos) {
      double v0 = 0;
      for (const auto& [k0, x] : before)
        if (k0 == k) v0 = x;
      r.per_step.emplace_back(k, total ? (v - v0) / double(r.steps * r.repeat) : v);
    }
  }
  {
    std::vector<RegionTimer::Region> regions;
    {
      RegionTimer timer;
      for (long k = 0; k < r.steps; ++k, t += dt) m->step(t, dt);
      m->fence();
      regions = timer.regions();
    }
    const auto bytes = m->region_bytes();
    const double steps = double(r.steps);
    for (const auto& reg : regions) {
      ModelBenchResult::Phase ph{reg.name, reg.depth, reg.seconds / steps,
                                 double(reg.calls) / steps};
      for (const auto& b : bytes)
        if (b.region == reg.name) ph.bytes_per_cell = b.bytes_per_cell * ph.calls;
      r.phases.push_back(ph);
    }
  }
  m.reset();
  log << "kflow bench: measuring the " << pc.backend << " bandwidth ceiling (STREAM kernels)\n";
  r.stream = bench_stream(
      pc.backend, pc.precision,
      ceiling_elements ? ceiling_elements : default_stream_elements(pc.backend, pc.precision), 5);
  return r;
}

KernelBenchResult bench_kernel(const std::string& name, const KernelBenchOptions& opt,
                               std::ostream& log) {
  const auto& reg = Registry::instance();
  if (!reg.find_bench(name)) {
    auto names = reg.names();
    for (const auto& b : reg.bench_names()) names.push_back(b);
    names.push_back("stream");
    const auto guess = closest(name, names);
    throw Error("bench: unknown model or benchmark \"" + printable(name, 60) + "\"" +
                (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                "; try 'kflow bench --help'");
  }
  require_backend(opt.backend, "--backend");
  const KernelBench fn = reg.bench(name, opt.backend, opt.precision);
  if (!fn)
    throw Error("bench " + name + ": no " + opt.precision + " version on backend " + opt.backend);
  KernelBenchResult r;
  r.name = name;
  r.backend = opt.backend;
  r.precision = opt.precision;
  r.rows = fn(opt, log);
  log << "kflow bench: measuring the " << opt.backend << " bandwidth ceiling (STREAM kernels)\n";
  r.stream =
      bench_stream(opt.backend, opt.precision,
                   opt.ceiling_elements ? opt.ceiling_elements
                                        : default_stream_elements(opt.backend, opt.precision),
                   5);
  return r;
}

}  // namespace kflow
