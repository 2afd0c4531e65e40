// kflow bench's phase table (kflow/core/region_timer.hpp): every Kokkos
// Profiling region of a step timed, nested as opened, through Kokkos Tools
// callbacks that live only while the bench times the phases and pass every
// region on to those registered before (a Kokkos Tools library).

#include <catch2/catch_test_macros.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/core/region_timer.hpp"
#include "kflow/model/error.hpp"

namespace {
// A stand-in for a Kokkos Tools library's region callbacks.
long tool_pushes = 0, tool_pops = 0;
void tool_push(const char*) {
  ++tool_pushes;
}
void tool_pop() {
  ++tool_pops;
}

struct ToolCallbacks {
  ToolCallbacks() {
    tool_pushes = tool_pops = 0;
    Kokkos::Tools::Experimental::set_push_region_callback(tool_push);
    Kokkos::Tools::Experimental::set_pop_region_callback(tool_pop);
  }
  ~ToolCallbacks() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
  }
};

const kflow::ModelBenchResult::Phase* find(const kflow::ModelBenchResult& r,
                                           const std::string& name) {
  for (const auto& ph : r.phases)
    if (ph.name == name) return &ph;
  return nullptr;
}
}  // namespace

TEST_CASE("bench: the region timer nests regions, restores the callbacks before it", "[unit]") {
  namespace T = Kokkos::Tools::Experimental;
  std::vector<kflow::RegionTimer::Region> regions;
  {
    ToolCallbacks tool;
    {
      kflow::RegionTimer timer;
      CHECK_THROWS_AS(kflow::RegionTimer(), kflow::Error);  // one at a time
      for (int k = 0; k < 2; ++k) {
        Kokkos::Profiling::ScopedRegion outer("kflow::test::outer");
        { Kokkos::Profiling::ScopedRegion inner("kflow::test::inner"); }
        { Kokkos::Profiling::ScopedRegion other("kflow::test::other"); }
      }
      { Kokkos::Profiling::ScopedRegion inner("kflow::test::inner"); }  // outside outer
      regions = timer.regions();
    }
    // Every push and pop reached the callbacks registered before, which are
    // back in place.
    CHECK(tool_pushes == 7);
    CHECK(tool_pops == 7);
    CHECK(T::get_callbacks().push_region == &tool_push);
    CHECK(T::get_callbacks().pop_region == &tool_pop);
  }
  CHECK(T::get_callbacks().push_region == nullptr);
  CHECK(T::get_callbacks().pop_region == nullptr);
  REQUIRE(regions.size() == 4);
  const char* names[4] = {"kflow::test::outer", "kflow::test::inner", "kflow::test::other",
                          "kflow::test::inner"};
  const int depths[4] = {0, 1, 1, 0}, calls[4] = {2, 2, 2, 1};
  for (int k = 0; k < 4; ++k) {
    INFO(k);
    CHECK(regions[std::size_t(k)].name == names[k]);
    CHECK(regions[std::size_t(k)].depth == depths[k]);
    CHECK(regions[std::size_t(k)].calls == calls[k]);
    CHECK(regions[std::size_t(k)].seconds >= 0);
  }
  CHECK(regions[0].seconds >= regions[1].seconds + regions[2].seconds);
}

TEST_CASE("kflow bench mac2d lists the step's regions, the solve inside its phase", "[unit]") {
  namespace T = Kokkos::Tools::Experimental;
  std::ostringstream log;
  const auto r =
      kflow::bench_model("mac2d", "openmp", {"grid.cells=[32,32]", "time.steps=3"}, log, 1, 100000);
  // Nothing stays registered after the bench.
  CHECK(T::get_callbacks().push_region == nullptr);
  CHECK(T::get_callbacks().pop_region == nullptr);
  struct Expected {
    const char* name;
    int depth;
  };
  for (const auto& e :
       {Expected{"kflow::mac2d::step", 0}, Expected{"kflow::mac2d::momentum", 1},
        Expected{"kflow::mac2d::pressure", 1}, Expected{"kflow::mac2d::correction", 1}}) {
    INFO(e.name);
    const auto* ph = find(r, e.name);
    REQUIRE(ph);
    CHECK(ph->depth == e.depth);
    CHECK(ph->calls == 1);
    CHECK(ph->seconds > 0);
  }
  // The pressure solve: the row after the pressure phase, one level deeper.
  std::size_t at = 0;
  while (at < r.phases.size() && r.phases[at].name != "kflow::mac2d::pressure") ++at;
  REQUIRE(at + 1 < r.phases.size());
  const auto& solve = r.phases[at + 1];
  CHECK(solve.name.rfind("kflow::linalg::", 0) == 0);
  CHECK(solve.depth == 2);
  CHECK(solve.seconds > 0);
  CHECK(solve.seconds <= r.phases[at].seconds);
  CHECK(find(r, "kflow::mac2d::step")->seconds >= find(r, "kflow::mac2d::pressure")->seconds);
}

TEST_CASE("kflow bench split3d gives its sweeps' bandwidth", "[unit]") {
  std::ostringstream log;
  const auto r = kflow::bench_model("split3d", "openmp",
                                    {"grid.cells=[9,8,7]", "time.steps=2", "physics.reynolds=10.0"},
                                    log, 1, 100000);
  const auto* step = find(r, "kflow::split3d::step");
  REQUIRE(step);
  CHECK(step->depth == 0);
  for (const char* name :
       {"kflow::split3d::x_sweep", "kflow::split3d::y_sweep", "kflow::split3d::z_sweep",
        "kflow::split3d::update", "kflow::split3d::divergence"}) {
    INFO(name);
    const auto* ph = find(r, name);
    REQUIRE(ph);
    CHECK(ph->depth == 1);
    CHECK(ph->seconds > 0);
    CHECK(ph->bytes_per_cell > 0);
  }
  const auto* copies = find(r, "kflow::split3d::copies");
  REQUIRE(copies);
  CHECK(copies->bytes_per_cell == 0);  // not counted
}
