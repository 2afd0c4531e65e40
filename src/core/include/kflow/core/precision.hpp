#pragma once
// The precisions a model can be built in (run.precision): "double", "float"
// and "float16s", 16-bit storage of the model's state with float arithmetic
// (FluidX3D's FP16S, Lehmann et al. 2022; lbm only).  CMake instantiates a
// model per precision with the type below as its template argument.

#include <string>

namespace kflow {

// The template argument of a model built for run.precision = "float16s".
struct Float16s {};

// Every precision name, in the order `kflow list` prints them.
inline constexpr const char* precision_names[] = {"double", "float", "float16s"};

// Bytes of one stored value of a model's state in `precision`.
inline int bytes_per_value(const std::string& precision) {
  return precision == "double" ? 8 : precision == "float" ? 4 : 2;
}

}  // namespace kflow
