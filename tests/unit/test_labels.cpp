// Every kernel kflow launches and every Kokkos::Profiling region it opens
// carries the `kflow::` prefix, so that Kokkos Tools (kernel timers, Nsight's
// NVTX ranges) show whose work each is.  Checked through the tools callbacks
// over short runs of every model, with bodies, open sides, the projections
// and output on.

#include <catch2/catch_test_macros.hpp>

#include <Kokkos_Core.hpp>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "helpers.hpp"

using kflow::test::case_text;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {
std::mutex names_mutex;
std::set<std::string> kernels, regions;

void on_kernel(const char* name, std::uint32_t, std::uint64_t* id) {
  std::lock_guard<std::mutex> lock(names_mutex);
  kernels.insert(name ? name : "");
  *id = 0;
}
void on_end(std::uint64_t) {}
void on_region(const char* name) {
  std::lock_guard<std::mutex> lock(names_mutex);
  regions.insert(name ? name : "");
}
void on_pop() {}

// A label of ours: `kflow::`; Kokkos' own (a View's initialisation, a
// deep_copy's fill: `Kokkos::`, naming our View inside) and Kokkos Kernels'
// (`KokkosBlas::`, `KokkosSparse::`) are the libraries'.
bool ours_or_library(const std::string& n) {
  for (const char* p : {"kflow::", "Kokkos::", "KokkosBlas", "KokkosSparse", "KokkosKernels"})
    if (n.rfind(p, 0) == 0) return true;
  return false;
}
}  // namespace

TEST_CASE("every kernel and region of every model carries the kflow:: prefix", "[unit]") {
  namespace T = Kokkos::Tools::Experimental;
  kernels.clear(), regions.clear();
  T::set_begin_parallel_for_callback(on_kernel);
  T::set_end_parallel_for_callback(on_end);
  T::set_begin_parallel_reduce_callback(on_kernel);
  T::set_end_parallel_reduce_callback(on_end);
  T::set_begin_parallel_scan_callback(on_kernel);
  T::set_end_parallel_scan_callback(on_end);
  T::set_push_region_callback(on_region);
  T::set_pop_region_callback(on_pop);
  struct Unset {
    ~Unset() {
      namespace T = Kokkos::Tools::Experimental;
      T::set_begin_parallel_for_callback(nullptr), T::set_end_parallel_for_callback(nullptr);
      T::set_begin_parallel_reduce_callback(nullptr), T::set_end_parallel_reduce_callback(nullptr);
      T::set_begin_parallel_scan_callback(nullptr), T::set_end_parallel_scan_callback(nullptr);
      T::set_push_region_callback(nullptr), T::set_pop_region_callback(nullptr);
    }
  } unset;
  struct Run {
    const char* file;
    std::vector<std::string> set;
  };
  const std::vector<Run> runs = {
      {"diffusion/sine-2d.toml", {"grid.cells=[16,16]", "time.steps=3"}},
      {"diffusion/mixed-3d.toml", {"grid.cells=[8,8,8]", "time.steps=3"}},
      {"lbm/dfg-2d-1.toml", {"grid.cells=[220,41]", "time.steps=3"}},
      {"lbm/cavity-3d-re100.toml", {"grid.cells=[8,8,8]", "time.steps=3"}},
      {"lbm/sphere-array.toml", {"time.steps=3"}},
      {"mac2d/cylinder-re20.toml", {"time.steps=3"}},
      {"mac2d/cavity-re100.toml", {"grid.cells=[16,16]", "time.steps=3", "output.lines=[]"}},
      {"vorticity2d/cavity-re100.toml", {"grid.cells=[16,16]", "time.steps=3", "output.lines=[]"}},
      {"vorticity2d/natural-convection-ra1e3.toml", {"grid.cells=[16,16]", "time.steps=3"}},
      {"split3d/dfg-3d-1z.toml", {"time.steps=1"}},
      {"split3d/cavity-re1000.toml",
       {"grid.cells=[15,15,15]", "time.steps=1", "output.lines=[]", "numerics.peclet=\"warn\""}}};
  for (const auto& r : runs) {
    INFO(r.file);
    TempDir tmp("labels");
    auto set = r.set;
    set.push_back("run.backend=openmp");
    CHECK_NOTHROW(run_text(case_text(r.file), tmp.str() + "/out", set));
  }
  std::vector<std::string> bad;
  for (const auto& n : kernels)
    if (!ours_or_library(n)) bad.push_back("kernel '" + n + "'");
  for (const auto& n : regions)
    if (n.rfind("kflow::", 0) != 0) bad.push_back("region '" + n + "'");
  std::string list;
  for (const auto& b : bad) list += "\n  " + b;
  INFO(kernels.size() << " kernel labels, " << regions.size()
                      << " regions; without the prefix:" << list);
  CHECK(kernels.size() > 50);
  // Every model's step, its phases and each linear solve are regions (Kokkos
  // Tools time them).
  for (const char* r : {"kflow::split3d::step", "kflow::split3d::x_sweep", "kflow::diffusion::step",
                        "kflow::lbm::step", "kflow::lbm::boundaries", "kflow::lbm::stream_collide",
                        "kflow::mac2d::step", "kflow::mac2d::momentum", "kflow::mac2d::pressure",
                        "kflow::mac2d::correction", "kflow::vorticity2d::step",
                        "kflow::vorticity2d::stream_function", "kflow::vorticity2d::transport",
                        "kflow::linalg::cg", "kflow::linalg::rbsor"}) {
    INFO(r);
    CHECK(regions.count(r) == 1);
  }
  CHECK(bad.empty());
}
