// kflow::body_geometry, instantiated once per execution space of this
// Kokkos (the voxeliser is a large template: compiled in every model unit
// that calls it, it cost each lbm unit several seconds).

#include "kflow/model/case_geometry.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"

namespace kflow {

namespace {
// Whether node m (i fastest) lies in the box [lo, hi).
struct OwnNode {
  int lo[3], hi[3], nx, ny;
  KOKKOS_INLINE_FUNCTION bool operator()(std::int64_t m) const {
    const int i = int(m % nx), j = int(m / nx % ny), k = int(m / nx / ny);
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
};
}  // namespace

template <class ExecSpace>
geometry::Geometry<ExecSpace> body_geometry(const ExecSpace& space,
                                            const std::vector<geometry::Body>& bodies,
                                            const geometry::NodeGrid& nodes,
                                            const geometry::Directions& dirs,
                                            const geometry::LinkOptions& opt) {
  auto g = geometry::voxelise(space, bodies, nodes, dirs, opt);
  // A body that covers no node (smaller than a cell, outside the domain,
  // inside an earlier body) or bodies that leave no fluid node are
  // errors, all of them named at once: a run would be silently wrong.
  // The nodes of the box (a block's own: summed over the ranks).
  const auto* p = g.flags.data();
  int lo[3], hi[3];
  for (int d = 0; d < 3; ++d)
    lo[d] = std::max(opt.from[d], 0), hi[d] = std::min(opt.to[d], nodes.n[d]);
  const OwnNode own{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, nodes.n[0], nodes.n[1]};
  const double nodes_owned =
      parallel::sum(double(hi[0] - lo[0]) * double(hi[1] - lo[1]) * double(hi[2] - lo[2]));
  std::string problems;
  double solid = 0;
  for (const auto& b : bodies) {
    const auto value = std::uint8_t(b.id + 1);
    std::int64_t count = 0;
    Kokkos::parallel_reduce(
        "kflow::body_geometry::count",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
            space, 0, std::int64_t(g.flags.size())),
        KOKKOS_LAMBDA(std::int64_t m, std::int64_t & c) { c += p[m] == value && own(m); }, count);
    const double n = parallel::sum(double(count));
    solid += n;
    if (n == 0)
      problems += "\n  [[body]] '" + b.name +
                  "' covers no cell of the grid: it is smaller than a cell, lies outside the "
                  "domain or inside an earlier body (a body needs at least one cell centre "
                  "inside it)";
  }
  if (!bodies.empty() && solid == nodes_owned)
    problems += "\n  the bodies cover every cell of the grid (" +
                std::to_string(std::int64_t(solid)) +
                " cells): no fluid is left (expected bodies inside the domain)";
  if (!problems.empty()) throw Error("the case's bodies leave no flow to compute:" + problems);
  return g;
}

void place_bodies(ModelSetup& setup, bool check) {
  if (setup.cells_placed) return;
  setup.cells_placed = true;
  if (!setup.places_cells() && !(check && !setup.bodies.empty())) return;
  const auto g = setup.cells_grid();
  std::vector<unsigned char> solid(std::size_t(g.interior_cells()), 0);
  if (!setup.bodies.empty()) {
    const Kokkos::DefaultHostExecutionSpace host;
    const auto geo =
        body_geometry(host, setup.bodies, cell_centres(g, false), geometry::Directions{});
    const auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.flags);
    std::copy(flags.data(), flags.data() + solid.size(), solid.begin());
  }
  if (setup.places_cells()) setup.place_cells(solid);
}

#if defined(KOKKOS_ENABLE_SERIAL)
template KFLOW_BODY_GEOMETRY(Kokkos::Serial);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template KFLOW_BODY_GEOMETRY(Kokkos::OpenMP);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
template KFLOW_BODY_GEOMETRY(Kokkos::Cuda);
#endif

}  // namespace kflow
