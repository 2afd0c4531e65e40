#pragma once
// The velocity sets of physics/lbm (D2Q9, D3Q19, D3Q27): directions, weights,
// opposite directions and the linear index offsets kernels take by value.

#include <Kokkos_Core.hpp>

namespace kflow::lbm {

// Velocity sets.  Direction 0 is the rest particle; directions 2k-1 and 2k
// are opposite (so opp(i) = i + 1 for odd i, i - 1 for even i > 0).  Velocity
// i is packed as code(i) = (cx+1) + 3 (cy+1) + 9 (cz+1): a switch, not a local
// table, so that a run-time i costs a jump, not a table build.
template <int Q>
struct Lattice;

// The components of a packed velocity (shared by every lattice).
KOKKOS_INLINE_FUNCTION constexpr int velocity_component(int code, int d) {
  return d == 0 ? code % 3 - 1 : d == 1 ? code / 3 % 3 - 1 : code / 9 - 1;
}

template <>
struct Lattice<9> {
  static constexpr int D = 2, Q = 9;
  KOKKOS_INLINE_FUNCTION static constexpr int code(int i) {
    switch (i) {
      case 0:
        return 13;
      case 1:
        return 14;
      case 2:
        return 12;
      case 3:
        return 16;
      case 4:
        return 10;
      case 5:
        return 17;
      case 6:
        return 9;
      case 7:
        return 11;
      case 8:
        return 15;
      default:
        return 13;
    }
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c(int i, int d) {
    return velocity_component(code(i), d);
  }
  KOKKOS_INLINE_FUNCTION static constexpr double w(int i) {
    return i == 0 ? 4.0 / 9.0 : i < 5 ? 1.0 / 9.0 : 1.0 / 36.0;
  }
};

template <>
struct Lattice<19> {
  static constexpr int D = 3, Q = 19;
  KOKKOS_INLINE_FUNCTION static constexpr int code(int i) {
    switch (i) {
      case 0:
        return 13;
      case 1:
        return 14;
      case 2:
        return 12;
      case 3:
        return 16;
      case 4:
        return 10;
      case 5:
        return 22;
      case 6:
        return 4;
      case 7:
        return 17;
      case 8:
        return 9;
      case 9:
        return 11;
      case 10:
        return 15;
      case 11:
        return 23;
      case 12:
        return 3;
      case 13:
        return 5;
      case 14:
        return 21;
      case 15:
        return 25;
      case 16:
        return 1;
      case 17:
        return 7;
      case 18:
        return 19;
      default:
        return 13;
    }
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c(int i, int d) {
    return velocity_component(code(i), d);
  }
  KOKKOS_INLINE_FUNCTION static constexpr double w(int i) {
    return i == 0 ? 1.0 / 3.0 : i < 7 ? 1.0 / 18.0 : 1.0 / 36.0;
  }
};

// D3Q27: the 19 velocities of D3Q19 in the same order, then the 8 corners.
template <>
struct Lattice<27> {
  static constexpr int D = 3, Q = 27;
  KOKKOS_INLINE_FUNCTION static constexpr int code(int i) {
    switch (i) {
      case 19:
        return 26;
      case 20:
        return 0;
      case 21:
        return 8;
      case 22:
        return 18;
      case 23:
        return 20;
      case 24:
        return 6;
      case 25:
        return 24;
      case 26:
        return 2;
      default:
        return Lattice<19>::code(i);
    }
  }
  KOKKOS_INLINE_FUNCTION static constexpr int c(int i, int d) {
    return velocity_component(code(i), d);
  }
  KOKKOS_INLINE_FUNCTION static constexpr double w(int i) {
    return i == 0 ? 8.0 / 27.0 : i < 7 ? 2.0 / 27.0 : i < 19 ? 1.0 / 54.0 : 1.0 / 216.0;
  }
};

// Linear index offsets of the velocities (by value into kernels).
template <int Q>
struct Offsets {
  int v[Q];
};

KOKKOS_INLINE_FUNCTION constexpr int opp(int i) {
  return i == 0 ? 0 : (i & 1) ? i + 1 : i - 1;
}

}  // namespace kflow::lbm
