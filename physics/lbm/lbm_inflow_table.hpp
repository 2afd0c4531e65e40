#pragma once
// An inflow profile from a CSV table (boundary.<side>.profile = "table"):
// the table's velocity sampled where the side's links cross it, at the
// half-cell points of the side (lbm_geometry.hpp: Geometry::face_velocity).

#include <string>
#include <vector>

#include "kflow/linalg/grid.hpp"
#include "kflow/model/config.hpp"

namespace kflow::lbm {

// The side's samples (physical units, 3 components each) at the points k1,
// k2 of its two tangential axes e1 < e2 (k = 0 .. 2 cells: the position
// origin + k dx / 2), sample k1 + (2 cells[e1] + 1) k2; an axis beyond the
// grid's dimension has cells 1 (k = 1).  The table (file `file` of the side's
// table `side_s`, relative to the case's directory) has one or, in 3D, two
// coordinate columns named after the side's tangential axes ("x", "y",
// "z"; two: every pair of their values once, a tensor grid) and the
// velocity columns "u", "v" (and "w" in 3D); it must cover the side.
// Problems are recorded on `side_s` (its `file` key); then the result is
// empty.
std::vector<double> inflow_table(const Config::Section& side_s, const std::string& directory,
                                 const linalg::Grid& g, int d, int side);

}  // namespace kflow::lbm
