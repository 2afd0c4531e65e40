#pragma once
// A number as kflow's messages write it: printf's %g with `digits`
// significant figures (6: "0.001", "1e+300", "inf").

#include <cstdio>
#include <string>

namespace kflow {

inline std::string number_text(double v, int digits = 6) {
  char b[40];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

}  // namespace kflow
