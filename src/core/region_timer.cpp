#include "kflow/core/region_timer.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>
#include <functional>

#include "kflow/model/error.hpp"

namespace kflow {

namespace {
using Clock = std::chrono::steady_clock;

struct Node {
  std::string name;
  int parent = -1, depth = 0;
  double seconds = 0;
  long calls = 0;
  std::vector<int> children;  // in the order they first opened
};

// The one timer's state (Kokkos Tools callbacks are plain function pointers).
struct State {
  bool active = false;
  Kokkos::Tools::pushFunction previous_push = nullptr;
  Kokkos::Tools::popFunction previous_pop = nullptr;
  std::vector<Node> nodes;  // nodes[0]: the root, outside every region
  struct Open {
    int node;
    Clock::time_point start;
  };
  std::vector<Open> open;
};
State state;

void fence() {
  Kokkos::fence("kflow::bench::region");
}

void on_push(const char* name) {
  // The work queued before the region is its parent's (or nobody's).
  fence();
  const int parent = state.open.empty() ? 0 : state.open.back().node;
  const std::string key = name ? name : "";
  int node = -1;
  for (int c : state.nodes[std::size_t(parent)].children)
    if (state.nodes[std::size_t(c)].name == key) node = c;
  if (node < 0) {
    node = int(state.nodes.size());
    Node n;
    n.name = key;
    n.parent = parent;
    n.depth = int(state.open.size());
    state.nodes.push_back(n);
    state.nodes[std::size_t(parent)].children.push_back(node);
  }
  state.open.push_back({node, Clock::now()});
  if (state.previous_push) state.previous_push(name);
}

void on_pop() {
  if (state.previous_pop) state.previous_pop();
  if (state.open.empty()) return;  // opened before the timer started: not timed
  fence();
  const auto o = state.open.back();
  state.open.pop_back();
  Node& n = state.nodes[std::size_t(o.node)];
  n.seconds += std::chrono::duration<double>(Clock::now() - o.start).count();
  ++n.calls;
}
}  // namespace

RegionTimer::RegionTimer() {
  namespace T = Kokkos::Tools::Experimental;
  if (state.active) throw Error("internal: two region timers at once");
  const auto before = T::get_callbacks();
  state = State{};
  state.active = true;
  state.previous_push = before.push_region;
  state.previous_pop = before.pop_region;
  state.nodes.push_back(Node{});
  T::set_push_region_callback(on_push);
  T::set_pop_region_callback(on_pop);
}

RegionTimer::~RegionTimer() {
  namespace T = Kokkos::Tools::Experimental;
  T::set_push_region_callback(state.previous_push);
  T::set_pop_region_callback(state.previous_pop);
  state.active = false;
}

std::vector<RegionTimer::Region> RegionTimer::regions() const {
  std::vector<Region> r;
  const std::function<void(int)> walk = [&](int at) {
    for (int c : state.nodes[std::size_t(at)].children) {
      const Node& n = state.nodes[std::size_t(c)];
      if (n.calls > 0) r.push_back(Region{n.name, n.depth, n.seconds, n.calls});
      walk(c);
    }
  };
  walk(0);
  return r;
}

}  // namespace kflow
