#pragma once
// ParaView output: VTK XML image data (.vti) through VTK's own writer
// (appended raw binary, zlib-compressed).  The .pvd collection that lists
// the frames is in pvd.hpp and needs no VTK.

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "kflow/linalg/grid.hpp"
#include "kflow/model/model.hpp"

namespace kflow::io {

// True when this build links VTK and can write .vti files.
bool vtk_available();

// Cell-centred `fields` on the interior of `grid`, written atomically.
// Throws kflow::Error when VTK is not available or writing fails.
void write_vti(const std::string& path, const linalg::Grid& grid,
               const std::vector<HostField>& fields, double time);

// A block of cells of `grid` (the global grid): `cells` cells from cell
// `offset` on, its extent in the global grid's index space (a piece of a
// .pvti).  `fields` hold the block's cells, x fastest.
struct Block {
  std::array<int, 3> offset{}, cells{};
};
void write_vti_piece(const std::string& path, const linalg::Grid& grid, const Block& block,
                     const std::vector<HostField>& fields, double time);

// The parallel image file (.pvti) that joins the pieces `files` (names
// relative to the .pvti's directory, one per block) into `grid`; `fields`
// give the arrays' names and components (their values are in the pieces).
// Written atomically; needs no VTK.
void write_pvti(const std::string& path, const linalg::Grid& grid,
                const std::vector<HostField>& fields, const std::vector<Block>& blocks,
                const std::vector<std::string>& files);

// Reads back a .vti written by write_vti, or a .pvti and its pieces (used by
// tests and `kflow compare`).
std::vector<HostField> read_vti(const std::string& path, linalg::Grid* grid = nullptr);

}  // namespace kflow::io
