#pragma once
// `kflow bench geometry`: a closed mesh generated in code (no large file in
// the tree: a torus, tilted so that no symmetry helps, or a subdivided
// icosahedron) voxelised into a cube of size^3 nodes (the cell centres of
// the unit cube).  Rows: the mesh check on the host (once), the upload, the
// solid flags and the boundary links of D3Q19 (or D3Q27), each the best of
// --repeat; the notes give the counts, and the solid volume against the
// exact one.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "kflow/core/backend.hpp"
#include "kflow/core/bench.hpp"
#include "kflow/geometry/geometry.hpp"
#include "kflow/geometry/tessellate.hpp"
#include "kflow/model/error.hpp"

namespace kflow::geometry {

template <class Space, class Real>
std::vector<KernelBenchRow> bench(const KernelBenchOptions& o, std::ostream& log) {
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;
  const long size = o.params.get_int("size", gpu ? 512 : 128, 8);
  const long want = o.params.get_int("triangles", 1000000, 20);
  const auto shape = o.params.get_choice("body", "torus", {"torus", "sphere"});
  const auto stencil = o.params.get_choice("stencil", "D3Q19", {"D3Q19", "D3Q27"});
  const bool normals = o.params.get_int("normals", 0, 0) != 0;
  o.params.check_unknown("geometry");
  if (size > 1290)
    throw Error("bench geometry: --set size=" + std::to_string(size) +
                ": at most 1290 (nodes are indexed with an int)");
  const double pi = 3.141592653589793;

  // The mesh's size, known before it is made: torus n x m quads (two
  // triangles each), icosphere 20 4^level triangles.
  const double ring = 0.3, tube = 0.12;  // torus: n / m = ring / tube, facets about square
  const int n = std::max(3, int(std::lround(std::sqrt(double(want) / 2 * ring / tube))));
  const int m = std::max(3, int(std::lround(double(want) / (2.0 * n))));
  const int level = std::max(0, int(std::lround(std::log(double(want) / 20) / std::log(4.0))));
  const double triangles_made =
      shape == "torus" ? 2.0 * n * m : 20.0 * std::pow(4.0, double(level));
  NodeGrid grid;
  for (int d = 0; d < 3; ++d) {
    grid.n[d] = int(size);
    grid.h[d] = 1.0 / double(size);
    grid.origin[d] = 0.5 / double(size);
  }
  const double nodes = double(grid.count());

  // Memory, estimated before anything of that size is made.  On the
  // device: the flags, the triangles (72 bytes each), their column
  // crossings and bins (within 64 MiB of offsets and a few ints per
  // triangle), and the links (14 bytes, 38 with normals; at most 2 per node
  // near the surface: a generous 2 % of the nodes times the directions).
  // On the host: the mesh and its check's edge map, about 310 bytes a
  // triangle at the peak (3.09 GB measured for 10 M triangles on OpenMP,
  // the device's share included).
  const int q = stencil == "D3Q19" ? 19 : 27;
  const double device_need =
      nodes + 110.0 * triangles_made + 64.0 * (1 << 20) + 0.02 * nodes * q * (normals ? 38 : 14);
  const double host_need = 310.0 * triangles_made + (gpu ? 0.0 : device_need);
  const double free = available_memory(o.backend), host_free = available_memory("openmp");
  const std::string sizes = std::to_string(size) + "^3 nodes and " +
                            std::to_string(long(triangles_made)) + " triangles need about ";
  if (gpu && free > 0 && device_need > 0.9 * free)
    throw Error("bench geometry: " + sizes + std::to_string(device_need / 1e9) +
                " GB of device memory, " + std::to_string(free / 1e9) +
                " GB are free here; a smaller --set size or triangles");
  if (host_free > 0 && host_need > 0.9 * host_free)
    throw Error("bench geometry: " + sizes + std::to_string(host_need / 1e9) +
                " GB of host memory, " + std::to_string(host_free / 1e9) +
                " GB are free here; a smaller --set size or triangles");

  // The mesh, in the unit cube.
  auto t0 = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  Body body;
  double volume = 0;
  std::string what;
  if (shape == "torus") {
    body.mesh = transformed(torus_mesh({0.5, 0.5, 0.5}, ring, tube, n, m),
                            Transform::rotation({1, 0.3, 0}, 0.35, {0.5, 0.5, 0.5}));
    volume = 2 * pi * pi * ring * tube * tube;
    what = "torus " + std::to_string(n) + "x" + std::to_string(m);
  } else {
    body.mesh = sphere_mesh({0.5, 0.5, 0.5}, 0.35, level);
    volume = 4.0 / 3.0 * pi * 0.35 * 0.35 * 0.35;
    what = "icosphere level " + std::to_string(level);
  }
  body.is_mesh = true;
  const double make_s = since(t0);
  const long triangles = long(body.mesh.triangles());

  log << "kflow bench geometry: " << what << ", " << triangles << " triangles made in " << make_s
      << " s; checking it\n";
  t0 = std::chrono::steady_clock::now();
  const MeshReport report = check_mesh(body.mesh);
  const double check_s = since(t0);

  std::vector<std::array<int, 3>> list;
  for (int z = -1; z <= 1; ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x)
        if (q == 27 || x * x + y * y + z * z <= 2) list.push_back({x, y, z});
  const Directions dirs(list);
  LinkOptions opt;
  opt.normals = normals;

  Space space;
  const std::vector<Body> bodies{body};
  double upload_s = 1e300, flags_s = 1e300, links_s = 1e300;
  FlagStats stats;
  std::int64_t solid = 0, links = 0, unresolved = 0;
  for (int r = 0; r < std::max(1, o.repeat); ++r) {
    log << "kflow bench geometry: " << size << "^3 nodes, repetition " << r + 1 << "\n";
    t0 = std::chrono::steady_clock::now();
    const auto scene = upload(space, bodies);
    space.fence("kflow::geometry::bench");
    upload_s = std::min(upload_s, since(t0));
    t0 = std::chrono::steady_clock::now();
    const auto flags = solid_flags(space, scene, grid, &stats);
    space.fence("kflow::geometry::bench");
    flags_s = std::min(flags_s, since(t0));
    t0 = std::chrono::steady_clock::now();
    const auto bl = boundary_links(space, scene, grid, flags, dirs, opt);
    space.fence("kflow::geometry::bench");
    links_s = std::min(links_s, since(t0));
    solid = count_solid(space, flags);
    links = bl.count;
    unresolved = bl.unresolved;
  }
  if (stats.odd_columns != 0 || unresolved != 0)
    throw Error("bench geometry: " + std::to_string(stats.odd_columns) +
                " node columns with an odd crossing count and " + std::to_string(unresolved) +
                " unresolved links: the voxeliser is wrong");

  char label[200], note[300];
  std::vector<KernelBenchRow> rows;
  auto row = [&](double s) {
    KernelBenchRow r;
    r.label = label;
    r.seconds = s;
    r.note = note;
    rows.push_back(r);
  };
  std::snprintf(label, sizeof label, "mesh check on the host: %s, %ld triangles", what.c_str(),
                triangles);
  std::snprintf(note, sizeof note, "%zu boundary and %zu non-manifold edges, %zu degenerate; once",
                report.boundary_edges, report.nonmanifold_edges, report.degenerate);
  row(check_s);
  std::snprintf(label, sizeof label, "upload of the triangles");
  std::snprintf(note, sizeof note, "%.3g MB", 72.0 * triangles / 1e6);
  row(upload_s);
  const double h3 = grid.h[0] * grid.h[1] * grid.h[2];
  std::snprintf(label, sizeof label, "flags %ld^3 nodes", size);
  std::snprintf(note, sizeof note,
                "%.4g M nodes, %lld solid (volume %.4g, exact %.4g: %+.2f %%), %lld crossings, "
                "%lld odd columns",
                nodes / 1e6, (long long)solid, double(solid) * h3, volume,
                100 * (double(solid) * h3 / volume - 1), (long long)stats.crossings,
                (long long)stats.odd_columns);
  row(flags_s);
  std::snprintf(label, sizeof label, "boundary links %s%s", stencil.c_str(),
                normals ? " with normals" : "");
  std::snprintf(note, sizeof note, "%lld links, %lld unresolved", (long long)links,
                (long long)unresolved);
  row(links_s);
  std::snprintf(label, sizeof label, "upload + flags + links %ld^3", size);
  std::snprintf(note, sizeof note, "%ld triangles into %.4g M nodes", triangles, nodes / 1e6);
  row(upload_s + flags_s + links_s);
  return rows;
}

}  // namespace kflow::geometry
