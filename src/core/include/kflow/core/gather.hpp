#pragma once
// A distributed run's host data in the global grid's layout, so that its
// output is the same files a single rank writes: fields gathered from every
// block to rank 0 (frames, line samples), checkpoint arrays gathered into
// the global layout (any rank count restarts from them) and cut back into
// one rank's block on restore.  With one rank each returns its input.

#include <vector>

#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/model/model.hpp"

namespace kflow {

// Rank 0: the field on the global grid; other ranks: an empty field.
HostField gather_field(const HostField& local, const linalg::dist::LocalGrid& grid);
// Rank 0: each array (one per block, extents of the block with its ghost
// layers, and for a field of C components stored component-major a last
// extent C) as one array on the global grid, its ghost layers zero (a model
// refills ghosts before it reads them); other ranks: empty.
std::vector<StateArray> gather_state(const std::vector<StateArray>& local,
                                     const linalg::dist::LocalGrid& grid);
// This rank's block (ghost layers included) of arrays on the global grid.
std::vector<StateArray> block_of_state(const std::vector<StateArray>& global,
                                       const linalg::dist::LocalGrid& grid);

}  // namespace kflow
