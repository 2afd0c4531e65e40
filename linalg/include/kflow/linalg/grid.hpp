#pragma once
// Uniform 2D/3D cell-centred grid with ghost layers.  Host-side description
// only: it holds no data, so every layer (models, io, core) can share it.

#include <array>
#include <cstddef>
#include <string>

namespace kflow::linalg {

struct Grid {
  int dim = 2;                        // 2 or 3
  std::array<int, 3> cells{1, 1, 1};  // interior cells per direction (1 beyond dim)
  std::array<double, 3> length{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
  int ghost = 1;  // ghost layers on each side of every active direction

  double spacing(int d) const { return length[d] / cells[d]; }
  // Extent of a field including its ghost layers (1 in inactive directions).
  int extent(int d) const { return d < dim ? cells[d] + 2 * ghost : 1; }
  // Cell-centre coordinate of interior cell index i (0-based, no ghosts).
  double centre(int d, int i) const { return origin[d] + (i + 0.5) * spacing(d); }
  std::size_t interior_cells() const {
    std::size_t n = 1;
    for (int d = 0; d < dim; ++d) n *= static_cast<std::size_t>(cells[d]);
    return n;
  }
  // "128x128", "64x64x32"
  std::string cells_text() const {
    std::string s;
    for (int d = 0; d < dim; ++d) s += (d ? "x" : "") + std::to_string(cells[d]);
    return s;
  }
  std::size_t stored_cells() const {
    std::size_t n = 1;
    for (int d = 0; d < 3; ++d) n *= static_cast<std::size_t>(extent(d));
    return n;
  }
};

inline bool operator==(const Grid& a, const Grid& b) {
  return a.dim == b.dim && a.cells == b.cells && a.length == b.length && a.origin == b.origin &&
         a.ghost == b.ghost;
}

}  // namespace kflow::linalg
