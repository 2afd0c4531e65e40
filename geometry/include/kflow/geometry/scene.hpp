#pragma once
// The bodies on the device: each shape by value, each mesh as its triangles
// in device memory (t, vertex, axis), in domain coordinates.  Built once
// from the host bodies (upload), then voxelised into any node grid.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kflow/geometry/body.hpp"

namespace kflow::geometry {

// A triangle's 9 coordinates side by side (LayoutRight, on GPUs too): the
// links read triangles at random, 72 contiguous bytes each.
template <class MemSpace>
using TriangleView = Kokkos::View<double* [3][3], Kokkos::LayoutRight, MemSpace>;

template <class MemSpace>
struct DeviceBody {
  int id = 0;
  bool is_mesh = false;
  Shape shape;
  TriangleView<MemSpace> triangles;  // mesh: (t, vertex, axis)
  Box3 bounds;                       // domain coordinates
};

template <class MemSpace>
struct Scene {
  std::vector<DeviceBody<MemSpace>> bodies;  // in the order given: the first holds a node
  std::int64_t triangles() const {
    std::int64_t n = 0;
    for (const auto& b : bodies) n += std::int64_t(b.triangles.extent(0));
    return n;
  }
};

// Copies `bodies` to the memory of `space`.  Throws std::invalid_argument on
// an id outside [0, max_bodies) or used twice, or a mesh with no triangles.
template <class ExecSpace>
Scene<typename ExecSpace::memory_space> upload(const ExecSpace& space,
                                               const std::vector<Body>& bodies) {
  using Mem = typename ExecSpace::memory_space;
  Scene<Mem> scene;
  std::set<int> ids;
  for (const auto& b : bodies) {
    if (b.id < 0 || b.id >= max_bodies || !ids.insert(b.id).second)
      throw std::invalid_argument("geometry: body id " + std::to_string(b.id) + " is outside [0, " +
                                  std::to_string(max_bodies) + ") or used twice");
    DeviceBody<Mem> d;
    d.id = b.id;
    d.is_mesh = b.is_mesh;
    d.shape = b.shape;
    d.bounds = bounds(b);
    if (b.is_mesh) {
      const std::size_t n = b.mesh.triangles();
      if (n == 0) throw std::invalid_argument("geometry: " + b.mesh.source + ": no triangles");
      d.triangles = TriangleView<Mem>(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::geometry::triangles"), n);
      // The soup's vertices are already (t, vertex, axis), contiguous: copied as they are.
      static_assert(sizeof(Vec3) == 3 * sizeof(double));
      const Kokkos::View<const double* [3][3], Kokkos::LayoutRight, Kokkos::HostSpace,
                         Kokkos::MemoryUnmanaged>
          h(reinterpret_cast<const double*>(b.mesh.vertices.data()), n);
      Kokkos::deep_copy(space, d.triangles, h);
      space.fence("kflow::geometry::upload");  // (before the mesh may go)
    }
    scene.bodies.push_back(d);
  }
  return scene;
}

}  // namespace kflow::geometry
