#pragma once
// Line samples ([[output.lines]]): a field interpolated at points along a
// segment, appended to line_<name>.csv at every frame.

#include <string>
#include <vector>

#include "kflow/linalg/grid.hpp"
#include "kflow/model/model.hpp"

namespace kflow::io {

struct LineSpec {
  std::string name, field, reference;  // reference: CSV path ("" if none)
  double from[3] = {0, 0, 0}, to[3] = {0, 0, 0};
  int points = 0;
};

// Samples a cell-centred host field along a line (linear interpolation
// between cell centres, clamped at the outermost centres).
std::vector<double> sample_line(const linalg::Grid& grid, const HostField& f, const LineSpec& line);

// Appends the samples at time t to the CSV `path` (header "time,s,x,y,z,<field>"
// when the file is new).  Throws kflow::Error when writing fails.
void append_line_csv(const std::string& path, const LineSpec& line, double t,
                     const std::vector<double>& values);

}  // namespace kflow::io
