// kflow::body_geometry, instantiated once per execution space of this
// Kokkos (the voxeliser is a large template: compiled in every model unit
// that calls it, it cost each lbm unit several seconds).

#include "kflow/core/case_geometry.hpp"

#include <cstdint>
#include <string>

#include "kflow/core/error.hpp"

namespace kflow {

template <class ExecSpace>
geometry::Geometry<ExecSpace> body_geometry(const ExecSpace& space,
                                            const std::vector<geometry::Body>& bodies,
                                            const geometry::NodeGrid& nodes,
                                            const geometry::Directions& dirs, bool normals) {
  geometry::LinkOptions opt;
  opt.normals = normals;
  auto g = geometry::voxelise(space, bodies, nodes, dirs, opt);
  // A body that covers no node (smaller than a cell, outside the domain,
  // inside an earlier body) or bodies that leave no fluid node are
  // errors, all of them named at once: a run would be silently wrong.
  const auto* p = g.flags.data();
  std::string problems;
  std::int64_t solid = 0;
  for (const auto& b : bodies) {
    const auto value = std::uint8_t(b.id + 1);
    std::int64_t n = 0;
    Kokkos::parallel_reduce(
        "kflow::body_geometry::count",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
            space, 0, std::int64_t(g.flags.size())),
        KOKKOS_LAMBDA(std::int64_t m, std::int64_t & c) { c += p[m] == value; }, n);
    solid += n;
    if (n == 0)
      problems += "\n  [[body]] '" + b.name +
                  "' covers no cell of the grid: it is smaller than a cell, lies outside the "
                  "domain or inside an earlier body (a body needs at least one cell centre "
                  "inside it)";
  }
  if (!bodies.empty() && solid == std::int64_t(g.flags.size()))
    problems += "\n  the bodies cover every cell of the grid (" + std::to_string(solid) +
                " cells): no fluid is left (expected bodies inside the domain)";
  if (!problems.empty()) throw Error("the case's bodies leave no flow to compute:" + problems);
  return g;
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
