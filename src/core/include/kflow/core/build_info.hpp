#pragma once
// What this kflow was built with: the compiler, the C++ standard, the build
// type and flags, and the versions of Kokkos and the optional libraries as
// CMake found them.  `kflow info` prints it and every summary.json records it,
// since the toolchain root follows a moving Debian suite.

#include <string>
#include <utility>
#include <vector>

namespace kflow {

// (item, version) pairs: "compiler", "c++", "build", "kokkos", "vtk", ...
const std::vector<std::pair<std::string, std::string>>& build_info();
// One item's version ("" for an unknown item).
std::string build_info(const std::string& item);

}  // namespace kflow
