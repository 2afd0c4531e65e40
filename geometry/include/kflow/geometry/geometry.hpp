#pragma once
// kflow::geometry: bodies (shapes and closed triangle meshes) voxelised into a
// model's grid of nodes on any Kokkos execution space: the solid flag of
// every node and the boundary links with their wall fractions q.  Depends on
// Kokkos only (docs/geometry.md).
//
//   std::vector<Body> bodies = ...;          // shapes, or meshes from read_stl(), read_obj()
//   Geometry<Space> g = voxelise(space, bodies, nodes, Directions(list));
//   g.flags(i, j, k)   0 fluid, id + 1 solid
//   g.links            node, dir, body, q (and normal) per boundary link

#include <vector>

#include "kflow/geometry/body.hpp"
#include "kflow/geometry/directions.hpp"
#include "kflow/geometry/flags.hpp"
#include "kflow/geometry/links.hpp"
#include "kflow/geometry/mesh.hpp"
#include "kflow/geometry/node_grid.hpp"
#include "kflow/geometry/obj.hpp"
#include "kflow/geometry/scene.hpp"
#include "kflow/geometry/shape.hpp"
#include "kflow/geometry/stl.hpp"
#include "kflow/geometry/transform.hpp"

namespace kflow::geometry {

template <class ExecSpace>
struct Geometry {
  using memory_space = typename ExecSpace::memory_space;
  NodeGrid grid;
  SolidFlags<memory_space> flags;
  BoundaryLinks<memory_space> links;
  FlagStats stats;
};

// Flags and boundary links of `bodies` on `grid` for the link directions
// `dirs` (none: flags only).
template <class ExecSpace>
Geometry<ExecSpace> voxelise(const ExecSpace& space, const std::vector<Body>& bodies,
                             const NodeGrid& grid, const Directions& dirs = {},
                             const LinkOptions& opt = {}) {
  Geometry<ExecSpace> g;
  g.grid = grid;
  const auto scene = upload(space, bodies);
  g.flags = solid_flags(space, scene, grid, &g.stats);
  g.links = boundary_links(space, scene, grid, g.flags, dirs, opt);
  return g;
}

}  // namespace kflow::geometry
