#pragma once
// Case plumbing every model shares: the [grid] table and the [boundary]
// sides of a box, read and checked the same way for every model.

#include <array>
#include <string>

#include "kflow/linalg/grid.hpp"
#include "kflow/model/config.hpp"

namespace kflow {

// The largest grid a case may ask for.  Kernels index the cells of a field
// (ghost layers included) with 32-bit ints, so the stored cells must stay
// below 2^31; 2e9 interior cells leaves room for the ghost layers.
inline constexpr double kMaxCells = 2e9;

// [grid] cells = [nx, ny(, nz)] (min_dim..max_dim entries), length (positive,
// default 1 per axis), origin (default 0).  `expected` completes the message
// for a missing `cells` ("[nx, ny] or [nx, ny, nz]").  The ghost layers are
// the model's: the returned grid keeps Grid's default.
linalg::Grid parse_grid(const Config::Section& grid, int min_dim, int max_dim,
                        const std::string& expected);

// The side names of a box, by axis and side (low, high).
inline constexpr const char* side_names[3][2] = {
    {"west", "east"}, {"south", "north"}, {"bottom", "top"}};

// For each side of a dim-D box (axis-major: west, east, south, north[,
// bottom, top]) calls parse(key, axis, side), which reads the model's kind of
// side and returns whether it is periodic; a side named beyond dim is an
// error; periodic sides must come in pairs.  Returns periodic[axis].
template <class Parse>
std::array<bool, 3> parse_sides(const Config::Section& boundary, int dim, Parse&& parse) {
  std::array<std::array<bool, 2>, 3> periodic{};
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < 2; ++s) {
      const std::string key = side_names[a][s];
      if (a >= dim) {
        if (boundary.has(key))
          boundary.fail(key, "a 2D case has no " + key + " side (only west, east, south, north)");
        continue;
      }
      periodic[a][s] = parse(key, a, s);
    }
  std::array<bool, 3> both{};
  for (int a = 0; a < dim; ++a) {
    const bool lo = periodic[a][0], hi = periodic[a][1];
    if (lo != hi)
      boundary.fail(side_names[a][lo ? 1 : 0], std::string("'") + side_names[a][lo ? 0 : 1] +
                                                   "' is periodic, so its partner must be "
                                                   "periodic too");
    both[a] = lo;
  }
  return both;
}

}  // namespace kflow
