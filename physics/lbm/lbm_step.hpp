#pragma once
// The fused stream-collide step of physics/lbm in its three streaming modes
// (StepKernel): on GPUs a thread per cell, interior and edge cells in
// separate launches; on CPUs a SIMD loop per line along x.  The launches are
// in lbm_launch.hpp.

#include <Kokkos_Core.hpp>

#include "lbm_collide.hpp"
#include "lbm_geometry.hpp"
#include "lbm_modes.hpp"

namespace kflow::lbm {

struct Interior {};  // launch tags of StepKernel (GPUs): the cells away from
struct Edges {};     // the domain's edges, and the others

template <class L, class Real, class View, Mode M>
struct StepKernel {
  using lattice = L;
  using real = Real;
  using view = View;
  static constexpr Mode mode = M;
  static constexpr int dim = L::D;
  View src, dst;  // aa_*: src == dst
  Geometry<Real> g;
  Offsets<L::Q> offs;  // linear index offset of c_i

  KOKKOS_INLINE_FUNCTION void operator()(int m) const {
    int x[3];
    coords(m, g.n, x);
    const int idx = g.index(x);
    if (g.solid && g.solid[idx]) return;  // a body's cell (a uniform branch without bodies)
    // Cells away from the block's edges take the branch-free path; the
    // others check every link for walls and periodic wrap.
    if (away_from_edges(x, g.n, L::D))
      cell<true>(idx, x);
    else
      cell<false>(idx, x);
  }
  // GPUs: the two sets of cells in two launches, so that no warp holds
  // both paths.  Interior: the lines along x away from the y and z faces,
  // whole, nx (ny-2)(nz-2) cells, so that a warp's cells keep the lines'
  // 128-byte alignment; a line's end cells take the branch-free path with
  // their x face's links selected in it (side), so that the x faces, whose
  // cells lie a line apart, are not read and written again by a launch of
  // their own (a sector per value: docs/performance.md).
  KOKKOS_INLINE_FUNCTION void operator()(Interior, int m) const {
    const int nx = g.n[0], iy = g.n[1] - 2;
    int x[3];
    x[0] = m % nx;
    const int r = m / nx;
    x[1] = 1 + r % iy;
    x[2] = L::D == 3 ? 1 + r / iy : 0;
    const int idx = g.index(x);
    if (g.solid && g.solid[idx]) return;
    cell<true>(idx, x, x[0] == 0 ? -1 : (x[0] == nx - 1 ? 1 : 0));
  }
  // Edges: m over the faces z = 0, nz-1 (3D), then y = 0, ny-1 (without
  // the cells counted before); edge_cells() of them.
  KOKKOS_INLINE_FUNCTION void operator()(Edges, int m) const {
    const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
    const int zs = L::D == 3 ? nz - 2 : 1, z0 = L::D == 3 ? 1 : 0;
    int x[3];
    if (L::D == 3 && m < 2 * nx * ny) {
      const int plane = nx * ny, r = m % plane;
      x[2] = m < plane ? 0 : nz - 1, x[0] = r % nx, x[1] = r / nx;
    } else {
      if (L::D == 3) m -= 2 * nx * ny;
      const int rows = nx * zs, r = m % rows;
      x[1] = m < rows ? 0 : ny - 1, x[0] = r % nx, x[2] = z0 + r / nx;
    }
    const int idx = g.index(x);
    if (g.solid && g.solid[idx]) return;
    cell<false>(idx, x);
  }
  int edge_cells() const {
    const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
    const int zs = L::D == 3 ? nz - 2 : 1;
    return (L::D == 3 ? 2 * nx * ny : 0) + 2 * nx * zs;
  }
  // A line of cells along x at (y, z) = (x[1], x[2]) (CPUs): its ends and
  // every cell of an edge line by the checked path, the rest by the
  // branch-free one, as a SIMD loop over x (no two cells of a step touch
  // the same population slot, in either scheme).
  KOKKOS_INLINE_FUNCTION void line(int y, int z) const {
    const int nx = g.n[0];
    int x[3] = {0, y, z};
    const int base = g.index(x);
    const bool inner = y > 0 && y < g.n[1] - 1 && (L::D == 2 || (z > 0 && z < g.n[2] - 1));
    if (!inner || nx < 3) {
      for (int i = 0; i < nx; ++i)
        if (!g.solid || !g.solid[base + i]) x[0] = i, checked(base + i, x);
      return;
    }
    if (g.solid) {  // bodies: the runs of fluid cells between solid ones
      for (int i = 0; i < nx;) {
        if (g.solid[base + i]) {
          ++i;
          continue;
        }
        int e = i;
        while (e < nx && !g.solid[base + e]) ++e;
        run(base, x, i, e);
        i = e;
      }
      return;
    }
    run(base, x, 0, nx);
  }
  // Cells [b, e) of an inner line: its end cells checked, the others as a
  // SIMD loop.  A call on CPUs: line() takes it for a whole line and for
  // each run of fluid cells between bodies, and inlined twice the loop
  // doubled the unit's compile time.
  KFLOW_LBM_CHECKED_FUNCTION void run(int base, int x[3], int b, int e) const {
    const int nx = g.n[0];
    if (b == 0) x[0] = 0, checked(base, x), ++b;
    const int last = e == nx ? nx - 1 : e;
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#pragma omp simd
#endif
    for (int i = b; i < last; ++i) cell<true>(base + i, x);
    if (e == nx && last >= b) x[0] = nx - 1, checked(base + nx - 1, x);
  }
  // The checked path of a line's end cells and of the edge lines (CPUs), as
  // a call: inlined beside the SIMD loop's cell, its three copies made the
  // line function three times larger and slower to compile, for a few
  // percent of the cells.
  KFLOW_LBM_CHECKED_FUNCTION void checked(int idx, const int x[3]) const {
    cell<false>(idx, x);
  }

  // A cell's step.  bulk: the branch-free path of a cell away from the y
  // and z faces; `side` -1 or +1 puts it at x = 0 or nx-1, where the links
  // across that x face are selected as the checked path (Geometry::neighbour)
  // takes them: into the ghost layer (halo), wrapped (periodic) or bounced
  // back, with a moving wall's term.  Otherwise the checked path.
  template <bool bulk>
  KOKKOS_FORCEINLINE_FUNCTION void cell(int idx, const int x[3], int side = 0) const {
    constexpr int Q = L::Q;
    const int* off = offs.v;
    (void)x;  // the checked path's only
    const int face = side > 0, nx = g.n[0];
    const bool open = side == 0 || g.halo[0][face];
    const bool wrap = !open && g.periodic[0], wall = !open && !g.periodic[0];
    const bool xmoving = wall && g.moving[0][face];
    Real f[Q];
    if constexpr (bulk) {
      // The links across a line end's x face (from x - c_i, c_i,x = -side)
      // under a branch that only the warps holding a line's end cells take.
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) {
        if (M != Mode::aa_local && side != 0 && side == -L::c(i, 0)) {
          const int from = wall ? idx : idx - off[i] - (wrap ? side * nx : 0);
          f[i] = src(from, (M == Mode::two_grid) == wall ? opp(i) : i);
        } else if constexpr (M == Mode::two_grid) {
          f[i] = src(idx - off[i], i);
        } else if constexpr (M == Mode::aa_stream) {
          f[i] = src(idx - off[i], opp(i));
        } else {
          f[i] = src(idx, i);
        }
      }
      if (xmoving) {
        KFLOW_LBM_UNROLL
        for (int i = 0; i < Q; ++i)
          if (L::c(i, 0) == -side) {
            const int dd[3] = {-L::c(i, 0), -L::c(i, 1), -L::c(i, 2)};
            Real u[3];
            g.face_velocity(0, face, x, dd, u);
            f[i] += wall_term<L>(i, u);
          }
      }
    } else {
      // (f must stay in registers: no run-time index)
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) {
        int nb = idx;
        Real u[3];
        bool moving = false;
        if (g.neighbour(x, -L::c(i, 0), -L::c(i, 1), -L::c(i, 2), nb, u, moving)) {
          const Real v = M == Mode::two_grid ? src(idx, opp(i)) : src(idx, i);
          f[i] = moving ? v + wall_term<L>(i, u) : v;
        } else {
          if constexpr (M == Mode::two_grid)
            f[i] = src(nb, i);
          else if constexpr (M == Mode::aa_stream)
            f[i] = src(nb, opp(i));
          else
            f[i] = src(idx, i);
        }
      }
    }
    if constexpr (bulk)
      collide_cell<L>(f, g);
    else
      collide_checked<L>(f, g);
    if constexpr (M == Mode::two_grid) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) dst.set(idx, i, f[i]);
    } else if constexpr (M == Mode::aa_local) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) dst.set(idx, opp(i), f[i]);
    } else if constexpr (bulk) {
      // The links across a line end's x face are stored after the others,
      // in a branch only end cells take (a select in every store raised the
      // kernel's registers: docs/performance.md).
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i)
        if (side == 0 || side != L::c(i, 0)) dst.set(idx + off[i], i, f[i]);
      if (side != 0) {
        KFLOW_LBM_UNROLL
        for (int i = 0; i < Q; ++i)
          if (L::c(i, 0) == side)  // the link to x + c_i crosses the face
            dst.set(wall ? idx : idx + off[i] - (wrap ? side * nx : 0), wall ? opp(i) : i, f[i]);
      }
    } else {
      // (f must stay in registers: no run-time index)
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) {
        int nb = idx;
        Real u[3];
        bool moving = false;
        if (g.neighbour(x, L::c(i, 0), L::c(i, 1), L::c(i, 2), nb, u, moving))
          dst.set(idx, opp(i), f[i]);
        else
          dst.set(nb, i, f[i]);
      }
    }
  }
};

}  // namespace kflow::lbm
