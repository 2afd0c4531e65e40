#pragma once
// The precisions a model can be built in (run.precision): "double", "float",
// and "float16s" and "float16c", 16-bit storage of the model's state with
// float arithmetic (FluidX3D's FP16S and FP16C, Lehmann et al. 2022; lbm
// only).  CMake instantiates a model per precision with the type below as
// its template argument.

#include <cstdint>
#include <string>

namespace kflow {

// The template argument of a model built for run.precision = "float16s".
struct Float16s {};
// ... for run.precision = "float16c".
struct Float16c {};
// A stored "float16c" word: a type of its own, so that a checkpoint names
// which 16-bit format it holds.
enum class Word16c : std::uint16_t {};

// Every precision name, in the order `kflow list` prints them.
inline constexpr const char* precision_names[] = {"double", "float", "float16s", "float16c"};

// Bytes of one stored value of a model's state in `precision`.
inline int bytes_per_value(const std::string& precision) {
  return precision == "double" ? 8 : precision == "float" ? 4 : 2;
}

}  // namespace kflow
