#pragma once
// Case plumbing for bodies in the flow, the same for every model: the
// [[body]] tables read and checked (shapes, and meshes from STL or
// Wavefront OBJ files, placed by translate, scale and rotate), and the call
// a model makes to voxelise them into its own nodes on its device
// (kflow::geometry).
//
//   [[body]]
//   shape = "sphere"            # box | sphere | circle (2D) | cylinder (3D) | stl | obj
//   center = [0.5, 0.5, 0.5]
//   radius = 0.1
//
// Body ids are the tables' order: 0, 1, ...  Keys, defaults and the
// placement rule are in docs/geometry.md.

#include <array>
#include <string>
#include <vector>

#include "kflow/geometry/geometry.hpp"
#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/linalg/grid.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/model.hpp"

namespace kflow {

// What a model asks of its bodies besides lying in the domain.
struct BodyRules {
  // keep_off[axis][side]: the domain sides (side 0 the low one) a body must
  // not reach, e.g. an inflow; `why` names them in the message ("an inflow").
  std::array<std::array<bool, 2>, 3> keep_off{};
  std::string why = "kept free of bodies";
};

// Reads the [[body]] tables of a case on `grid`'s domain: every key checked
// (an unknown shape, a key of another shape, a missing or bad value, an STL
// or OBJ file that cannot be read (with the mesh file's line, where it has
// one) or is not closed, a body outside the domain or touching a side of
// rules.keep_off: all reported together, with file, line and key).  Meshes
// come back in domain coordinates.  Adds to `notes` each body's bounding
// box in domain units (a wrong scale shows there).
std::vector<geometry::Body> parse_bodies(Config& c, const linalg::Grid& grid,
                                         const BodyRules& rules, std::vector<std::string>& notes);

// The bodies' surfaces as one binary STL file in domain coordinates
// (geometry::surface_mesh with the grid's smallest cell size): what a run
// writes as body.stl beside its frames.
std::string body_surface_stl(const std::vector<geometry::Body>& bodies, const linalg::Grid& grid);

// The cell centres of `grid` as nodes, its ghost layers included when
// `ghosts` (node (0, 0, 0) is then the first ghost cell's centre).
geometry::NodeGrid cell_centres(const linalg::Grid& grid, bool ghosts);

// The cell centres of a rank's block with its ghost layers (node (0, 0, 0)
// the first ghost cell's centre), at the global grid's coordinates bit for
// bit (NodeGrid::first); `own` receives the block's own nodes as the links'
// node box (LinkOptions::from, to).  One block: cell_centres(global, true).
geometry::NodeGrid block_centres(const linalg::dist::LocalGrid& block, geometry::LinkOptions& own);

// A model's bodies on its device: the solid flag of each of `nodes` and the
// boundary links of `dirs` (with their normals when opt.normals) from the
// nodes of opt's node box.  On several ranks `nodes` is a block's
// (block_centres): its checks (a body that covers no cell, no fluid left)
// count the nodes of the box over every rank (collective).  Compiled once
// per execution space in the model library (case_geometry_voxelise.cpp), not
// in every model unit that calls it.
template <class ExecSpace>
geometry::Geometry<ExecSpace> body_geometry(const ExecSpace& space,
                                            const std::vector<geometry::Body>& bodies,
                                            const geometry::NodeGrid& nodes,
                                            const geometry::Directions& dirs,
                                            const geometry::LinkOptions& opt = {});

// The bodies' solid flags at the set-up's cell centres, voxelised on the
// host (body_geometry's checks: a body that covers no cell, no fluid left),
// handed to setup.place_cells() where the model builds from them
// (ModelSetup::places_cells()).  `check`: voxelise even where the model does
// not ('kflow check' reports every body problem a run would).  Needs Kokkos
// running where there are bodies; once per set-up (a second call does
// nothing).  One block (models that place cells are not distributed).
void place_bodies(ModelSetup& setup, bool check);

#define KFLOW_BODY_GEOMETRY(SPACE)                                                                \
  geometry::Geometry<SPACE> body_geometry(const SPACE&, const std::vector<geometry::Body>&,       \
                                          const geometry::NodeGrid&, const geometry::Directions&, \
                                          const geometry::LinkOptions&)
#if defined(KOKKOS_ENABLE_SERIAL)
extern template KFLOW_BODY_GEOMETRY(Kokkos::Serial);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
extern template KFLOW_BODY_GEOMETRY(Kokkos::OpenMP);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
extern template KFLOW_BODY_GEOMETRY(Kokkos::Cuda);
#endif

}  // namespace kflow
