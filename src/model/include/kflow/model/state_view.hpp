#pragma once
// A model's device arrays to and from checkpoint arrays (StateArray): the
// raw bytes of a View through a host mirror, typed by the View's value type.
// Header-only and Kokkos-dependent: for the models' implementation headers.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kflow/model/error.hpp"
#include "kflow/model/model.hpp"
#include "kflow/model/precision.hpp"

namespace kflow {

// The checkpoint's name for a stored value type.
template <class T>
constexpr const char* state_type() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float> ||
                    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, Word16c>,
                "a checkpoint array holds float64, float32, float16s or float16c values");
  return std::is_same_v<T, double>          ? "float64"
         : std::is_same_v<T, float>         ? "float32"
         : std::is_same_v<T, std::uint16_t> ? "float16s"   // lbm's binary16 words
                                            : "float16c";  // lbm's Word16c words
}

// `f`'s values as the checkpoint array `name` (f's label by default).
template <class View>
StateArray to_state(const View& f, std::string name = "") {
  using T = typename View::non_const_value_type;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  StateArray a;
  a.name = name.empty() ? f.label() : name;
  a.type = state_type<T>();
  for (unsigned d = 0; d < View::rank(); ++d) a.extents.push_back(h.extent(d));
  a.bytes.resize(h.span() * sizeof(T));
  std::memcpy(a.bytes.data(), h.data(), a.bytes.size());
  return a;
}

// A model's counters (steps, iteration totals, ...) as the checkpoint array
// "counters" (float64), and back: the values a checkpoint holds (none where
// it has no such array; an older checkpoint may hold fewer than today's).
inline StateArray counters_state(const std::vector<double>& values) {
  StateArray a;
  a.name = "counters";
  a.type = "float64";
  a.extents = {values.size()};
  a.bytes.resize(values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

inline std::vector<double> state_counters(const std::vector<StateArray>& state) {
  std::vector<double> c;
  for (const auto& a : state)
    if (a.name == "counters" && a.type == "float64") {
      c.resize(a.bytes.size() / sizeof(double));
      if (!c.empty()) std::memcpy(c.data(), a.bytes.data(), c.size() * sizeof(double));
    }
  return c;
}

// The array named `name` in `state`, or nullptr.
inline const StateArray* find_state(const std::vector<StateArray>& state, const std::string& name) {
  for (const auto& a : state)
    if (a.name == name) return &a;
  return nullptr;
}

// Host mirror of `f` holding the checkpoint array `name` (f's label by
// default); an error if it is missing or does not match f's type and size.
template <class View>
auto state_mirror(const std::vector<StateArray>& state, const View& f, std::string name = "") {
  using T = typename View::non_const_value_type;
  if (name.empty()) name = f.label();
  const StateArray* a = find_state(state, name);
  if (!a) throw Error("checkpoint: no array '" + name + "'");
  auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), f);
  if (a->type != state_type<T>() || a->bytes.size() != h.span() * sizeof(T))
    throw Error("checkpoint: array '" + name + "' does not match this grid and precision (" +
                a->type + ", " + std::to_string(a->bytes.size()) + " bytes; expected " +
                state_type<T>() + ", " + std::to_string(h.span() * sizeof(T)) + ")");
  std::memcpy(h.data(), a->bytes.data(), a->bytes.size());
  return h;
}

// `f` from the checkpoint array `name` (f's label by default).
template <class ExecSpace, class View>
void from_state(const ExecSpace& space, const std::vector<StateArray>& state, const View& f,
                const std::string& name = "") {
  auto h = state_mirror(state, f, name);
  Kokkos::deep_copy(space, f, h);
  space.fence("kflow::from_state");
}

}  // namespace kflow
