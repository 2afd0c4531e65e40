#pragma once
// What the kernels of physics/lbm know of the grid and its sides: the block's
// extents, ghost layers, periodic and moving faces, the body force and the
// relaxation rates (Geometry, passed by value), the stored-index offsets of
// the velocities, the moving-wall term and the cell coordinates of a linear
// index.

#include <Kokkos_Core.hpp>

#include "lbm_lattice.hpp"

// Full unrolling keeps f[Q] in registers (nvcc: both passes; GCC host code).
#if defined(__CUDACC__)
#define KFLOW_LBM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define KFLOW_LBM_UNROLL _Pragma("GCC unroll 32")
#else
#define KFLOW_LBM_UNROLL
#endif
// Loops that only GPUs unroll (f in registers there): on CPUs the loops of
// the diagnostics and the output, which are not in the step, stay loops
// (unrolled, gather() and its callers were a quarter of an lbm unit's compile
// time, docs/getting-started.md).
#if defined(__CUDACC__)
#define KFLOW_LBM_UNROLL_GPU _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define KFLOW_LBM_UNROLL_GPU _Pragma("GCC unroll 1")
#else
#define KFLOW_LBM_UNROLL_GPU
#endif

namespace kflow::lbm {

// Everything a kernel needs about the grid and the boundaries (by value).
// Cells are addressed by their coordinates in the block, 0..n-1 per axis;
// on several ranks the block is stored with a ghost layer on every axis
// (gh = 1), so that coordinate -1 or n of an axis whose side borders
// another block (halo) is that block's cell, held in the ghost layer.
template <class Real>
struct Geometry {
  int n[3];           // cells of the block per axis (1 beyond the dimension)
  int s[3];           // stored cells per axis: n + 2 gh
  int gh[3];          // ghost layers per axis (0 on one rank)
  int periodic[3];    // axis wraps onto the block's own opposite side
  int halo[3][2];     // side borders another block (its cells in the ghost layer)
  int moving[3][2];   // face is a moving wall or an inflow (else static, when neither above)
  Real uw[3][2][3];   // wall velocities (lattice units): an inflow's peak
  int profile[3][2];  // a moving face's velocity: 0 uniform, 1 parabolic across the face,
                      // 2 a table's (`table` from `table_at`)
  Real scale[3][2];   // a moving face's velocity factor in time (an inflow's ramp)
  int cells[3];       // the global grid's cells per axis, and the block's first cell
  int offset[3];      // in it (the parabolic profile)
  // Bodies: per stored cell 1 for a solid cell, which the step skips; null
  // without bodies.
  const unsigned char* solid;
  // Bodies, 16-bit storage on GPUs: the Interior launch's indices of the
  // fluid cells of the pairs (x = 2k, 2k + 1) that hold a solid cell, which
  // the two-cell launch leaves to a launch of their own (lbm_pairs.hpp);
  // null: no list (the cell launch takes a lattice with bodies).
  const int* mixed;
  int mixed_count;
  // Table inflows: their velocities (lattice units) at the half-cell points
  // of each side's tangential axes e1 < e2, 3 a point, point k1 + (2
  // cells[e1] + 1) k2 from table_at[d][side] on (lbm_inflow_table.hpp).
  const Real* table;
  int table_at[3][2];
  Real force[3];  // body force (lattice units)
  int forced;     // any force component non-zero
  Real omega_p, omega_m;

  // The stored index of the cell at block coordinates t (ghosts: -1 and n).
  KOKKOS_INLINE_FUNCTION int index(const int t[3]) const {
    return (t[0] + gh[0]) + s[0] * ((t[1] + gh[1]) + s[1] * (t[2] + gh[2]));
  }

  // The velocity of moving face (d, side) where the link from cell x along
  // dd crosses it (halfway, at x + dd / 2): uniform, the parabolic profile
  // 4 t (1 - t) per axis across the face (a duct: the product), t the
  // position across the global grid, or a table's at that point; times the
  // face's scale.
  KOKKOS_INLINE_FUNCTION void face_velocity(int d, int side, const int x[3], const int dd[3],
                                            Real w[3]) const {
    Real f = scale[d][side];
    if (profile[d][side] == 2) {
      const int e1 = d == 0 ? 1 : 0, e2 = d == 2 ? 1 : 2;
      const int k1 = 2 * (x[e1] + offset[e1]) + 1 + dd[e1];
      const int k2 = 2 * (x[e2] + offset[e2]) + 1 + dd[e2];
      const Real* v = table + table_at[d][side] + 3 * (k1 + (2 * cells[e1] + 1) * k2);
      for (int e = 0; e < 3; ++e) w[e] = v[e] * f;
      return;
    }
    if (profile[d][side])
      for (int e = 0; e < 3; ++e)
        if (e != d && cells[e] > 1) {
          const Real t =
              (Real(x[e] + offset[e]) + Real(0.5) + Real(0.5) * Real(dd[e])) / Real(cells[e]);
          f *= Real(4) * t * (Real(1) - t);
        }
    for (int e = 0; e < 3; ++e) w[e] = uw[d][side][e] * f;
  }

  // The cell (x + dx, y + dy, z + dz): its stored index in `nb`, or a wall.
  // For a wall, `u` receives the wall velocity of the link (lbm.hpp: 0 if
  // any crossed face is static, else the mean of the crossed moving faces)
  // and `any_moving` tells whether it can be non-zero.  A side bordering
  // another block is no wall: the link goes on into its cell.
  KOKKOS_INLINE_FUNCTION bool neighbour(const int x[3], int dx, int dy, int dz, int& nb, Real u[3],
                                        bool& any_moving) const {
    const int dd[3] = {dx, dy, dz};
    int t[3];
    int crossed = 0;
    bool any_static = false;
    u[0] = u[1] = u[2] = Real(0);
    for (int d = 0; d < 3; ++d) {
      t[d] = x[d] + dd[d];
      if (dd[d] == 0) continue;  // folds away: callers pass the lattice's constants
      int side = -1;
      if (t[d] < 0)
        side = 0;
      else if (t[d] >= n[d])
        side = 1;
      if (side < 0 || halo[d][side]) continue;
      if (periodic[d]) {
        t[d] += side == 0 ? n[d] : -n[d];
        continue;
      }
      ++crossed;
      if (moving[d][side]) {
        Real w[3];
        face_velocity(d, side, x, dd, w);
        for (int e = 0; e < 3; ++e) u[e] += w[e];
      } else {
        any_static = true;
      }
    }
    if (crossed == 0) {
      nb = index(t);
      return false;
    }
    any_moving = !any_static;
    if (any_static) {
      u[0] = u[1] = u[2] = Real(0);
    } else if (crossed > 1) {
      for (int e = 0; e < 3; ++e) u[e] /= Real(crossed);
    }
    return true;
  }
};

// The stored-index offset of each velocity c_i in the block g describes.
template <class L, class Real>
Offsets<L::Q> offsets(const Geometry<Real>& g) {
  Offsets<L::Q> off{};
  for (int i = 0; i < L::Q; ++i)
    off.v[i] = L::c(i, 0) + g.s[0] * (L::c(i, 1) + g.s[1] * L::c(i, 2));
  return off;
}

// The moving-wall (Ladd) term for a population pulled in direction i from a
// wall moving with u: 6 w_i rho0 (c_i . u), rho0 = 1 (lbm.hpp).
template <class L, class Real>
KOKKOS_INLINE_FUNCTION Real wall_term(int i, const Real u[3]) {
  return Real(6 * L::w(i)) *
         (Real(L::c(i, 0)) * u[0] + Real(L::c(i, 1)) * u[1] + Real(L::c(i, 2)) * u[2]);
}

// Cell coordinates of a linear index (x fastest).
KOKKOS_INLINE_FUNCTION void coords(int idx, const int n[3], int x[3]) {
  x[0] = idx % n[0];
  const int r = idx / n[0];
  x[1] = r % n[1];
  x[2] = r / n[1];
}

KOKKOS_INLINE_FUNCTION bool away_from_edges(const int x[3], const int n[3], int dim) {
  bool in = x[0] > 0 && x[0] < n[0] - 1 && x[1] > 0 && x[1] < n[1] - 1;
  if (dim == 3) in = in && x[2] > 0 && x[2] < n[2] - 1;
  return in;
}

}  // namespace kflow::lbm
