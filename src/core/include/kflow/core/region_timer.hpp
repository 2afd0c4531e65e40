#pragma once
// The wall time of each Kokkos Profiling region (kflow bench's phase table).
//
// Models and linalg's solvers open a Kokkos::Profiling::ScopedRegion around
// each step, each phase of a step and each solve (docs/performance.md,
// "Profiling a run").  While a RegionTimer lives, kflow's own push and pop
// region callbacks are registered with Kokkos Tools: each waits for the device
// (Kokkos::fence) and reads the clock, so a region's time is that of the work
// it queued, nested regions included.  The callbacks registered before (a
// Kokkos Tools library loaded through KOKKOS_TOOLS_LIBS) are called from
// kflow's and restored when the timer ends.  Without a RegionTimer nothing is
// registered and nothing waits: a region costs what Kokkos makes it cost.
//
// Regions are expected on the host thread that runs the model, one timer at a
// time (a second one throws).

#include <string>
#include <vector>

namespace kflow {

class RegionTimer {
 public:
  // One region at one place in the nesting (the same name under two parents
  // is two entries).  seconds: inclusive, summed over its calls.
  struct Region {
    std::string name;
    int depth = 0;  // 0: opened outside any other region
    double seconds = 0;
    long calls = 0;
  };

  RegionTimer();   // registers the callbacks
  ~RegionTimer();  // restores the ones registered before
  RegionTimer(const RegionTimer&) = delete;
  RegionTimer& operator=(const RegionTimer&) = delete;

  // The regions closed so far, depth first, siblings in the order they first
  // opened.
  std::vector<Region> regions() const;
};

}  // namespace kflow
