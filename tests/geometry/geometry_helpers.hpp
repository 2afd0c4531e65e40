#pragma once
// Shared by the geometry tests: results copied to the host, the lattice
// direction sets in lbm's order, node grids.

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kflow/geometry/geometry.hpp"
#include "lbm_lattice.hpp"

namespace kflow::test {

namespace geo = kflow::geometry;

// The source tree and the build's scratch folder (tests/unit/main.cpp).
std::string source_dir();
std::string scratch_dir();

// lbm's velocity set Q (D2Q9, D3Q19, D3Q27) in lbm's order.
template <int Q>
geo::Directions lattice_directions() {
  std::vector<std::array<int, 3>> list;
  for (int i = 0; i < Q; ++i)
    list.push_back({lbm::Lattice<Q>::c(i, 0), lbm::Lattice<Q>::c(i, 1), lbm::Lattice<Q>::c(i, 2)});
  return geo::Directions(list);
}

struct HostLink {
  int node, dir, body;
  double q;
  geo::Vec3 normal;
};

struct HostGeometry {
  geo::NodeGrid grid;
  std::vector<std::uint8_t> flags;  // grid.index(i, j, k)
  std::vector<HostLink> links;
  std::int64_t unresolved = 0, odd_columns = 0;
  std::uint8_t flag(int i, int j, int k) const { return flags[std::size_t(grid.index(i, j, k))]; }
};

template <class Space>
HostGeometry to_host(const geo::Geometry<Space>& g) {
  HostGeometry h;
  h.grid = g.grid;
  auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.flags);
  h.flags.assign(f.data(), f.data() + f.size());
  const auto& l = g.links;
  auto node = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.node);
  auto dir = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.dir);
  auto body = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.body);
  auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.q);
  auto n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), l.normal);
  for (std::int64_t k = 0; k < l.count; ++k) {
    HostLink hl{node(k), dir(k), body(k), q(k), {}};
    if (n.extent(0) > 0) hl.normal = {n(k, 0), n(k, 1), n(k, 2)};
    h.links.push_back(hl);
  }
  h.unresolved = l.unresolved;
  h.odd_columns = g.stats.odd_columns;
  return h;
}

template <class Space>
HostGeometry voxelise_on(const std::vector<geo::Body>& bodies, const geo::NodeGrid& grid,
                         const geo::Directions& dirs, bool normals = true) {
  geo::LinkOptions opt;
  opt.normals = normals;
  return to_host(geo::voxelise(Space(), bodies, grid, dirs, opt));
}

inline geo::NodeGrid cube_grid(int n, double h, geo::Vec3 origin = {}) {
  geo::NodeGrid g;
  for (int d = 0; d < 3; ++d) g.n[d] = n, g.h[d] = h, g.origin[d] = origin[d];
  return g;
}

inline geo::Body shape_body(int id, const geo::Shape& s) {
  geo::Body b;
  b.id = id;
  b.shape = s;
  return b;
}

inline geo::Body mesh_body(int id, const geo::TriangleMesh& m) {
  geo::Body b;
  b.id = id;
  b.is_mesh = true;
  b.mesh = m;
  return b;
}

}  // namespace kflow::test
