#pragma once
// ParaView collections (.pvd): the list of a run's frames with their model
// times.  Plain XML, written and read here without VTK.

#include <string>
#include <utility>
#include <vector>

namespace kflow::io {

// (model time, file name relative to the .pvd), in the order written.
using FrameList = std::vector<std::pair<double, std::string>>;

// Writes the collection atomically.
void write_pvd(const std::string& path, const FrameList& frames);

// Reads the DataSet entries of a collection written by write_pvd; a missing
// file is an empty list.  Throws kflow::Error on a damaged entry.
FrameList read_pvd(const std::string& path);

}  // namespace kflow::io
