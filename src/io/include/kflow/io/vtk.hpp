#pragma once
// ParaView output: VTK XML image data (.vti) through VTK's own writer
// (appended raw binary, zlib-compressed).  The .pvd collection that lists
// the frames is in pvd.hpp and needs no VTK.

#include <string>
#include <utility>
#include <vector>

#include "kflow/core/model.hpp"
#include "kflow/linalg/grid.hpp"

namespace kflow::io {

// True when this build links VTK and can write .vti files.
bool vtk_available();

// Cell-centred `fields` on the interior of `grid`, written atomically.
// Throws kflow::Error when VTK is not available or writing fails.
void write_vti(const std::string& path, const linalg::Grid& grid,
               const std::vector<HostField>& fields, double time);

// Reads back a .vti written by write_vti (used by tests and `kflow compare`).
std::vector<HostField> read_vti(const std::string& path, linalg::Grid* grid = nullptr);

}  // namespace kflow::io
