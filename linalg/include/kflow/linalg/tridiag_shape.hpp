#pragma once
// Where the unknowns of a batch of tridiagonal systems live (TridiagShape),
// the usual shapes (contiguous, interleaved, the lines of a grid field), and
// the error a solve reports on a zero pivot.  See tridiag.hpp.
//
// Unknown k of system m lives at the 1-D index
//
//   offset + k * stride + m0 * system_stride[0] + m1 * system_stride[1]
//          + m2 * system_stride[2],
//   m = m0 + count[0] * (m1 + count[1] * m2),
//
// in all five arrays a, b, c, d and x (1-D Views over the same index space;
// for a grid field, an unmanaged 1-D View of its data).  Two system strides
// let the lines of a LayoutLeft 3D field with ghost layers be solved in place
// in any direction: lines in x are contiguous (stride 1), lines in y and z
// interleaved (unknown k of neighbouring systems consecutive); the third
// batches such sets of lines (the fields of several variables in one array).

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace kflow::linalg {

struct TridiagShape {
  long n = 1;       // unknowns per system
  long stride = 1;  // index distance between unknowns k and k + 1 of a system
  long count[3] = {1, 1, 1};
  long system_stride[3] = {0, 0, 0};
  long offset = 0;

  long systems() const { return count[0] * count[1] * count[2]; }
  KOKKOS_INLINE_FUNCTION long first(long m) const {
    const long q = m / count[0];
    return offset + (m - q * count[0]) * system_stride[0] + (q % count[1]) * system_stride[1] +
           (q / count[1]) * system_stride[2];
  }
  // Largest index used + 1 (the arrays must be at least this long).
  long span() const {
    if (n < 1 || systems() < 1) return 0;
    return offset + (n - 1) * stride + (count[0] - 1) * system_stride[0] +
           (count[1] - 1) * system_stride[1] + (count[2] - 1) * system_stride[2] + 1;
  }
  // "interleaved": unknown k of consecutive systems is adjacent in memory.
  bool interleaved() const { return n > 1 && stride > 1 && system_stride[0] == 1; }
};

// `systems` systems of n unknowns each, one after the other.
inline TridiagShape contiguous_shape(long n, long systems) {
  TridiagShape s;
  s.n = n;
  s.stride = 1;
  s.count[0] = systems;
  s.system_stride[0] = n;
  return s;
}

// Unknown k of system m at k * systems + m.
inline TridiagShape interleaved_shape(long n, long systems) {
  TridiagShape s;
  s.n = n;
  s.stride = systems;
  s.count[0] = systems;
  s.system_stride[0] = 1;
  return s;
}

// The interior grid lines in direction `dir` (0, 1, 2) of a LayoutLeft field
// with extents e[0..2] (ghost layers included; e[2] = 1 for 2D) and `ghost`
// ghost layers on each side of the active directions (`dim` of them): one
// system per line, unknown k at interior cell k + ghost along dir.  Use with
// a 1-D unmanaged View of the field's data (span e0 e1 e2).
inline TridiagShape line_shape(const long e[3], int dim, int ghost, int dir) {
  if (dir < 0 || dir >= dim) throw std::invalid_argument("line_shape: direction out of range");
  const long st[3] = {1, e[0], e[0] * e[1]};
  long g[3] = {0, 0, 0};
  for (int d = 0; d < dim; ++d) g[d] = ghost;
  TridiagShape s;
  s.n = e[dir] - 2 * ghost;
  s.stride = st[dir];
  s.offset = g[0] * st[0] + g[1] * st[1] + g[2] * st[2];
  int slot = 0;
  for (int d = 0; d < 3; ++d) {
    if (d == dir) continue;
    s.count[slot] = d < dim ? e[d] - 2 * ghost : 1;
    s.system_stride[slot] = st[d];
    ++slot;
  }
  return s;
}

class ZeroPivot : public std::runtime_error {
 public:
  ZeroPivot(const std::string& method, long system, long n)
      : std::runtime_error("tridiagonal solve (" + method + "): zero or NaN pivot in system " +
                           std::to_string(system) + " (n = " + std::to_string(n) +
                           "); the solvers do not pivot and need a diagonally dominant (or "
                           "symmetric positive definite) matrix"),
        system_(system) {}
  long system() const { return system_; }

 private:
  long system_;
};

}  // namespace kflow::linalg
