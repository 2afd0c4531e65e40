#pragma once
// Names and lists shared by the files of kflow::io::RunOutput
// (run_output.cpp, carry_over.cpp, summary.cpp); not installed.

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace kflow::io {

// frame_NNNNN followed by `ext`.
inline std::string frame_name(long index, const std::string& ext) {
  char base[32];
  std::snprintf(base, sizeof base, "frame_%05ld", index);
  return std::string(base) + ext;
}

// "a, b, c and 2 more" for messages.
inline std::string list_of(const std::vector<std::string>& names, std::size_t most = 5) {
  std::string r;
  for (std::size_t k = 0; k < names.size() && k < most; ++k) r += (k ? ", " : "") + names[k];
  if (names.size() > most) r += " and " + std::to_string(names.size() - most) + " more";
  return r;
}

}  // namespace kflow::io
