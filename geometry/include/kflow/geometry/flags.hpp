#pragma once
// The solid flag of every node of a grid: 0 for fluid, id + 1 for a node of
// body id (the first body of the scene that holds it).  Shapes by their
// analytic inside test (closed: a node on the surface is solid, and so is
// one within 1e-9 of the smallest node spacing of it, so that the rounding
// of a node's coordinates does not decide: DFG 3D-1Z's circle passes
// through 12 nodes a plane at h = 0.01); meshes by
// exact ray parity (detail/mesh_columns.hpp: a node exactly on the surface
// is solid where the body begins along +x, +y, +z and fluid where it ends).
// Each body visits only the nodes of its bounding box.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kflow/geometry/detail/mesh_columns.hpp"
#include "kflow/geometry/detail/node_range.hpp"
#include "kflow/geometry/node_grid.hpp"
#include "kflow/geometry/scene.hpp"
#include "kflow/geometry/shape.hpp"

namespace kflow::geometry {

// (i, j, k), i fastest: flags.data()[grid.index(i, j, k)] is flags(i, j, k).
template <class MemSpace>
using SolidFlags = Kokkos::View<std::uint8_t***, Kokkos::LayoutLeft, MemSpace>;

struct FlagStats {
  std::int64_t crossings = 0;    // ray-surface crossings of the meshes
  std::int64_t odd_columns = 0;  // columns with an odd count: 0 for closed meshes
};

template <class ExecSpace>
SolidFlags<typename ExecSpace::memory_space> solid_flags(
    const ExecSpace& space, const Scene<typename ExecSpace::memory_space>& scene,
    const NodeGrid& grid, FlagStats* stats = nullptr) {
  grid.check();
  SolidFlags<typename ExecSpace::memory_space> flags(
      Kokkos::view_alloc(space, "kflow::geometry::flags"), grid.n[0], grid.n[1], grid.n[2]);
  FlagStats st;
  for (const auto& b : scene.bodies) {
    const detail::NodeRange r = detail::node_range(grid, b.bounds);
    if (r.empty()) continue;
    const auto value = std::uint8_t(b.id + 1);
    if (b.is_mesh) {
      const auto s = detail::mesh_flags(space, b.triangles, grid, r, value, flags);
      st.crossings += s.crossings;
      st.odd_columns += s.odd_columns;
      continue;
    }
    const Shape shape = b.shape;
    const NodeGrid g = grid;
    const double tol = surface_margin(grid);
    using Policy =
        Kokkos::MDRangePolicy<ExecSpace,
                              Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
    Kokkos::parallel_for(
        "kflow::geometry::shape_flags",
        Policy(space, {r.lo[0], r.lo[1], r.lo[2]}, {r.hi[0] + 1, r.hi[1] + 1, r.hi[2] + 1}),
        KOKKOS_LAMBDA(int i, int j, int k) {
          if (flags(i, j, k) == 0 && inside(shape, g.node(i, j, k), tol)) flags(i, j, k) = value;
        });
  }
  if (stats) *stats = st;
  return flags;
}

// The number of solid nodes (flag != 0).
template <class ExecSpace>
std::int64_t count_solid(const ExecSpace& space,
                         const SolidFlags<typename ExecSpace::memory_space>& flags) {
  const auto* p = flags.data();
  std::int64_t n = 0;
  Kokkos::parallel_reduce(
      "kflow::geometry::count_solid", Kokkos::RangePolicy<ExecSpace>(space, 0, flags.size()),
      KOKKOS_LAMBDA(std::size_t m, std::int64_t & c) { c += p[m] != 0; }, n);
  return n;
}

}  // namespace kflow::geometry
