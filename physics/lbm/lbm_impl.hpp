#pragma once
// Kokkos implementation of physics/lbm (included only by the generated
// per-(backend, precision) translation units).  See lbm.hpp for the method
// and the decisions on the paper's open points.
//
// Data: populations in one View<Stored**, LayoutLeft>(cells, Q) (lbm_storage.hpp:
// Stored is Real, or binary16 for "float16s"), read and written as Real: structure of
// arrays, one plane per direction, x fastest within a plane; only fluid
// cells are stored (no ghost layer; walls are found from the cell index, so
// the kernels read no flag field).  Two arrays for two-grid streaming, one
// for in-place (AA) streaming.  One fused kernel per step over a 1-D range
// of cells (consecutive threads on consecutive x: coalesced).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "kflow/core/error.hpp"
#include "kflow/core/state_view.hpp"
#include "kflow/linalg/space.hpp"
#include "lbm.hpp"
#include "lbm_storage.hpp"

// Full unrolling keeps f[Q] in registers (nvcc: both passes; GCC host code).
#if defined(__CUDACC__)
#define KFLOW_LBM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define KFLOW_LBM_UNROLL _Pragma("GCC unroll 32")
#else
#define KFLOW_LBM_UNROLL
#endif

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

// Everything a kernel needs about the grid and the boundaries (by value).
template <class Real>
struct Geometry {
  int n[3];          // cells per axis (1 beyond the dimension)
  int periodic[3];   // axis is periodic
  int moving[3][2];  // face is a moving wall (else static, when not periodic)
  Real uw[3][2][3];  // wall velocities (lattice units)
  Real force[3];     // body force (lattice units)
  Real omega_p, omega_m;

  // The cell (x + dx, y + dy, z + dz): its index in `nb`, or a wall.  For a
  // wall, `u` receives the wall velocity of the link (lbm.hpp: 0 if any
  // crossed face is static, else the mean of the crossed moving faces) and
  // `any_moving` tells whether it can be non-zero.
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
      if (side < 0) continue;
      if (periodic[d]) {
        t[d] += side == 0 ? n[d] : -n[d];
        continue;
      }
      ++crossed;
      if (moving[d][side]) {
        for (int e = 0; e < 3; ++e) u[e] += uw[d][side][e];
      } else {
        any_static = true;
      }
    }
    if (crossed == 0) {
      nb = t[0] + n[0] * (t[1] + n[1] * t[2]);
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

// The moving-wall (Ladd) term for a population pulled in direction i from a
// wall moving with u: 6 w_i rho0 (c_i . u), rho0 = 1 (lbm.hpp).
template <class L, class Real>
KOKKOS_INLINE_FUNCTION Real wall_term(int i, const Real u[3]) {
  return Real(6 * L::w(i)) *
         (Real(L::c(i, 0)) * u[0] + Real(L::c(i, 1)) * u[1] + Real(L::c(i, 2)) * u[2]);
}

// Collision in place on f (pre-collision -> post-collision): TRT in
// symmetric/antisymmetric pairs (BGK: omega_m = omega_p), Guo forcing.
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide(Real f[L::Q], const Geometry<Real>& g) {
  constexpr int Q = L::Q;
  Real rho = 0, j[3] = {0, 0, 0};
  KFLOW_LBM_UNROLL
  for (int i = 0; i < Q; ++i) {
    rho += f[i];
    for (int d = 0; d < 3; ++d)
      if (L::c(i, d) != 0) j[d] += L::c(i, d) > 0 ? f[i] : -f[i];
  }
  const Real inv = Real(1) / rho;
  Real u[3];
  for (int d = 0; d < 3; ++d) u[d] = (j[d] + Real(0.5) * g.force[d]) * inv;
  const Real usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const Real uf = u[0] * g.force[0] + u[1] * g.force[1] + u[2] * g.force[2];
  const Real op = g.omega_p, om = g.omega_m;
  const Real sp = Real(1) - Real(0.5) * op, sm = Real(1) - Real(0.5) * om;
  {
    const Real w0 = Real(L::w(0));
    const Real eq = w0 * rho * (Real(1) - Real(1.5) * usq);
    f[0] += -op * (f[0] - eq) + sp * (w0 * Real(-3) * uf);
  }
  KFLOW_LBM_UNROLL
  for (int i = 1; i < Q; i += 2) {
    const Real w = Real(L::w(i));
    const Real cu = Real(L::c(i, 0)) * u[0] + Real(L::c(i, 1)) * u[1] + Real(L::c(i, 2)) * u[2];
    const Real cf = Real(L::c(i, 0)) * g.force[0] + Real(L::c(i, 1)) * g.force[1] +
                    Real(L::c(i, 2)) * g.force[2];
    const Real eq_p = w * rho * (Real(1) + Real(4.5) * cu * cu - Real(1.5) * usq);
    const Real eq_m = w * rho * Real(3) * cu;
    const Real fp = Real(0.5) * (f[i] + f[i + 1]), fm = Real(0.5) * (f[i] - f[i + 1]);
    const Real dp = -op * (fp - eq_p) + sp * (w * (Real(9) * cu * cf - Real(3) * uf));
    const Real dm = -om * (fm - eq_m) + sm * (w * Real(3) * cf);
    f[i] += dp + dm;
    f[i + 1] += dp - dm;
  }
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

// Streaming modes of the fused kernel.
enum class Mode { two_grid, aa_stream, aa_local };

// One lattice step for every cell.
//  two_grid:  f_i = src(x - c_i, i)   [wall: src(x, opp i) + term]; dst(x, i) = f*_i
//  aa_stream: f_i = a(x - c_i, opp i) [wall: a(x, i) + term];       a(x + c_i, i) = f*_i
//                                                                   [wall: a(x, opp i) = f*_i]
//  aa_local:  f_i = a(x, i)           [wall: a(x, i) + term];       a(x, opp i) = f*_i
// Each reads and adds the same values, so the schemes agree bit for bit.
struct Interior {};  // launch tags of StepKernel (GPUs): the cells away from
struct Edges {};     // the domain's edges, and the others

template <class L, class Real, class View, Mode M>
struct StepKernel {
  static constexpr int dim = L::D;
  View src, dst;  // aa_*: src == dst
  Geometry<Real> g;
  Offsets<L::Q> offs;  // linear index offset of c_i

  KOKKOS_INLINE_FUNCTION void operator()(int idx) const {
    int x[3];
    coords(idx, g.n, x);
    // Cells away from the domain's edges take the branch-free path; the
    // others check every link for walls and periodic wrap.
    if (away_from_edges(x, g.n, L::D))
      cell<true>(idx, x);
    else
      cell<false>(idx, x);
  }
  // GPUs: the two sets of cells in two launches, so that no warp holds
  // both paths.  Interior: m over (nx-2)(ny-2)(nz-2) cells, x fastest.
  KOKKOS_INLINE_FUNCTION void operator()(Interior, int m) const {
    const int ix = g.n[0] - 2, iy = g.n[1] - 2;
    int x[3];
    x[0] = 1 + m % ix;
    const int r = m / ix;
    x[1] = 1 + r % iy;
    x[2] = L::D == 3 ? 1 + r / iy : 0;
    cell<true>(x[0] + g.n[0] * (x[1] + g.n[1] * x[2]), x);
  }
  // Edges: m over the faces z = 0, nz-1 (3D), then y = 0, ny-1, then
  // x = 0, nx-1 (each without the cells counted before); edge_cells() of them.
  KOKKOS_INLINE_FUNCTION void operator()(Edges, int m) const {
    const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
    const int zs = L::D == 3 ? nz - 2 : 1, z0 = L::D == 3 ? 1 : 0;
    int x[3];
    if (L::D == 3 && m < 2 * nx * ny) {
      const int plane = nx * ny, r = m % plane;
      x[2] = m < plane ? 0 : nz - 1, x[0] = r % nx, x[1] = r / nx;
    } else {
      if (L::D == 3) m -= 2 * nx * ny;
      const int rows = nx * zs, cols = (ny - 2) * zs;
      if (m < 2 * rows) {
        const int r = m % rows;
        x[1] = m < rows ? 0 : ny - 1, x[0] = r % nx, x[2] = z0 + r / nx;
      } else {
        m -= 2 * rows;
        const int r = m % cols;
        x[0] = m < cols ? 0 : nx - 1, x[1] = 1 + r % (ny - 2), x[2] = z0 + r / (ny - 2);
      }
    }
    cell<false>(x[0] + nx * (x[1] + ny * x[2]), x);
  }
  int edge_cells() const {
    const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
    const int zs = L::D == 3 ? nz - 2 : 1;
    return (L::D == 3 ? 2 * nx * ny : 0) + 2 * nx * zs + 2 * (ny - 2) * zs;
  }
  // A line of cells along x at (y, z) = (x[1], x[2]) (CPUs): its ends and
  // every cell of an edge line by the checked path, the rest by the
  // branch-free one, as a SIMD loop over x (no two cells of a step touch
  // the same population slot, in either scheme).
  KOKKOS_INLINE_FUNCTION void line(int y, int z) const {
    const int nx = g.n[0], base = nx * (y + g.n[1] * z);
    int x[3] = {0, y, z};
    const bool inner = y > 0 && y < g.n[1] - 1 && (L::D == 2 || (z > 0 && z < g.n[2] - 1));
    if (!inner || nx < 3) {
      for (int i = 0; i < nx; ++i) x[0] = i, cell<false>(base + i, x);
      return;
    }
    cell<false>(base, x);
#if defined(_OPENMP) && !defined(__CUDA_ARCH__)
#pragma omp simd
#endif
    for (int i = 1; i < nx - 1; ++i) cell<true>(base + i, x);
    x[0] = nx - 1;
    cell<false>(base + nx - 1, x);
  }

  template <bool bulk>
  KOKKOS_INLINE_FUNCTION void cell(int idx, const int x[3]) const {
    constexpr int Q = L::Q;
    const int* off = offs.v;
    (void)x;  // the checked path's only
    Real f[Q];
    if constexpr (bulk) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) {
        if constexpr (M == Mode::two_grid)
          f[i] = src(idx - off[i], i);
        else if constexpr (M == Mode::aa_stream)
          f[i] = src(idx - off[i], opp(i));
        else
          f[i] = src(idx, i);
      }
    } else {
      KFLOW_LBM_UNROLL  // (f must stay in registers: no run-time index)
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
    collide<L>(f, g);
    if constexpr (M == Mode::two_grid) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) dst.set(idx, i, f[i]);
    } else if constexpr (M == Mode::aa_local) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) dst.set(idx, opp(i), f[i]);
    } else if constexpr (bulk) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) dst.set(idx + off[i], i, f[i]);
    } else {
      KFLOW_LBM_UNROLL  // (f must stay in registers: no run-time index)
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

// Layouts of the stored post-collision populations f*_i(x):
//  normal:  a(x, i)  (two-grid)
//  swapped: a(x, opp i)  (in-place, after a local step)
//  pushed:  a(x + c_i, i)  [wall: a(x, opp i)]  (in-place, after a stream step)
enum class Layout { normal, swapped, pushed };

// (a: the populations, read as Real, or their raw stored values, read as T)
template <class L, class Real, class View, class T>
KOKKOS_INLINE_FUNCTION void gather(const View& a, const Geometry<Real>& g, const int off[],
                                   Layout layout, int idx, T f[L::Q]) {
  int x[3];
  coords(idx, g.n, x);
  const bool bulk = away_from_edges(x, g.n, L::D);
  KFLOW_LBM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    if (layout == Layout::normal) {
      f[i] = a(idx, i);
    } else if (layout == Layout::swapped) {
      f[i] = a(idx, opp(i));
    } else if (bulk || i == 0) {
      f[i] = a(idx + off[i], i);
    } else {
      int nb = idx;
      Real u[3];
      bool moving = false;
      f[i] = g.neighbour(x, L::c(i, 0), L::c(i, 1), L::c(i, 2), nb, u, moving) ? a(idx, opp(i))
                                                                               : a(nb, i);
    }
  }
}

// Density and velocity (lattice units) from post-collision populations:
// rho = sum f*, rho u = sum c f* - F/2 (Guo forcing: the collision adds F).
template <class L, class Real>
KOKKOS_INLINE_FUNCTION void moments(const Real f[L::Q], const Geometry<Real>& g, Real& rho,
                                    Real u[3]) {
  rho = 0;
  u[0] = u[1] = u[2] = 0;
  KFLOW_LBM_UNROLL
  for (int i = 0; i < L::Q; ++i) {
    rho += f[i];
    for (int d = 0; d < 3; ++d) u[d] += Real(L::c(i, d)) * f[i];
  }
  for (int d = 0; d < 3; ++d) u[d] = (u[d] - Real(0.5) * g.force[d]) / rho;
}

namespace kernels {

// A step kernel over the lattice: GPUs a thread per cell; CPUs a task per
// line along x (StepKernel::line).
template <class ExecSpace, class Kernel>
void launch_step(const ExecSpace& space, const char* label, const Kernel& kernel) {
  const int nx = kernel.g.n[0], ny = kernel.g.n[1], nz = kernel.g.n[2];
  if constexpr (linalg::on_gpu<ExecSpace>) {
    // Interior and edge cells in two launches: a warp holding an edge cell
    // ran both paths (H200, D3Q19 512^3 in place, float16s: 17 757 -> 26 689
    // MLUPS; float unchanged; docs/performance.md).
    if (nx >= 3 && ny >= 3 && (Kernel::dim == 2 || nz >= 3)) {
      const int interior = (nx - 2) * (ny - 2) * (Kernel::dim == 3 ? nz - 2 : 1);
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, Interior>(space, 0, interior),
          kernel);
      Kokkos::parallel_for(std::string(label) + "_edges",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, Edges>(
                               space, 0, kernel.edge_cells()),
                           kernel);
    } else
      Kokkos::parallel_for(
          label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, nx * ny * nz),
          kernel);
  } else {
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, ny * nz),
        KOKKOS_LAMBDA(int l) { kernel.line(l % ny, l / ny); });
  }
}

template <class L, class Real, class ExecSpace, class View>
void step(const ExecSpace& space, Mode mode, const View& src, const View& dst,
          const Geometry<Real>& g, const Offsets<L::Q>& off) {
  auto make = [&](auto kernel) {
    kernel.src = src;
    kernel.dst = dst;
    kernel.g = g;
    kernel.offs = off;
    return kernel;
  };
  if (mode == Mode::two_grid)
    launch_step(space, "kflow::lbm::stream_collide_two_grid",
                make(StepKernel<L, Real, View, Mode::two_grid>{}));
  else if (mode == Mode::aa_stream)
    launch_step(space, "kflow::lbm::stream_collide_aa_stream",
                make(StepKernel<L, Real, View, Mode::aa_stream>{}));
  else
    launch_step(space, "kflow::lbm::stream_collide_aa_local",
                make(StepKernel<L, Real, View, Mode::aa_local>{}));
}

// Equilibrium populations of (rho, u), stored in `layout` (normal or swapped).
template <class L, class Real, class ExecSpace, class View, class Init>
void initialise(const ExecSpace& space, const View& a, const Geometry<Real>& g, Layout layout,
                const Init& init) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  const bool swapped = layout == Layout::swapped;
  Kokkos::parallel_for(
      "kflow::lbm::initialise", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int idx) {
        int x[3];
        coords(idx, g.n, x);
        double rho, u[3];
        init(x, rho, u);
        const double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        for (int i = 0; i < L::Q; ++i) {
          const double cu = L::c(i, 0) * u[0] + L::c(i, 1) * u[1] + L::c(i, 2) * u[2];
          const double feq = L::w(i) * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq);
          a.set(idx, swapped ? opp(i) : i, Real(feq));
        }
      });
}

// rho, u (lattice units) per cell into out(idx, 0..3).
template <class L, class Real, class ExecSpace, class View, class Out>
void macroscopic(const ExecSpace& space, const View& a, const Geometry<Real>& g,
                 const Offsets<L::Q>& off, Layout layout, const Out& out) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_for(
      "kflow::lbm::macroscopic",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n), KOKKOS_LAMBDA(int idx) {
        Real f[L::Q], rho, u[3];
        gather<L>(a, g, off.v, layout, idx, f);
        moments<L>(f, g, rho, u);
        out(idx, 0) = rho;
        for (int d = 0; d < 3; ++d) out(idx, 1 + d) = u[d];
      });
}

// Canonical (normal-layout) copy of the stored values (raw: bit for bit), for
// checkpoints.
template <class L, class Real, class ExecSpace, class View>
void canonical(const ExecSpace& space, const View& a, const Geometry<Real>& g,
               const Offsets<L::Q>& off, Layout layout, const View& out) {
  using T = typename View::non_const_value_type;
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_for(
      "kflow::lbm::canonical", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int idx) {
        T f[L::Q];
        gather<L>(a, g, off.v, layout, idx, f);
        for (int i = 0; i < L::Q; ++i) out(idx, i) = f[i];
      });
}

// Max speed, mean kinetic energy (1/2 rho0 |u|^2) and mean density, lattice units.
template <class L, class Real, class ExecSpace, class View>
void norms(const ExecSpace& space, const View& a, const Geometry<Real>& g, const Offsets<L::Q>& off,
           Layout layout, double& umax, double& energy, double& mass) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_reduce(
      "kflow::lbm::norms", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int idx, double& m, double& e, double& r) {
        Real f[L::Q], rho, u[3];
        gather<L>(a, g, off.v, layout, idx, f);
        moments<L>(f, g, rho, u);
        const double sq = double(u[0]) * u[0] + double(u[1]) * u[1] + double(u[2]) * u[2];
        m = sq > m ? sq : m;
        e += 0.5 * sq;
        r += rho;
      },
      Kokkos::Max<double>(umax), Kokkos::Sum<double>(energy), Kokkos::Sum<double>(mass));
  space.fence("kflow::lbm::norms");
  umax = std::sqrt(umax);
  energy /= n;
  mass /= n;
}

}  // namespace kernels

// Initial state (device-callable): rest, or the Taylor-Green vortex with its
// pressure (lattice units; rho = 1 + 3 p).
struct InitialState {
  int taylor_green = 0;
  double k[3] = {0, 0, 0};  // wavenumbers per cell
  double u0 = 0;
  int dim = 2;
  KOKKOS_INLINE_FUNCTION void operator()(const int x[3], double& rho, double u[3]) const {
    rho = 1;
    u[0] = u[1] = u[2] = 0;
    if (!taylor_green) return;
    // u = U sin(a x) cos(b y) [cos(c z)], v = -U (a/b) cos(a x) sin(b y) [cos(c z)], w = 0.
    const double X = k[0] * (x[0] + 0.5), Y = k[1] * (x[1] + 0.5), Z = k[2] * (x[2] + 0.5);
    const double cz = dim == 3 ? Kokkos::cos(Z) : 1.0, r = k[0] / k[1];
    u[0] = u0 * Kokkos::sin(X) * Kokkos::cos(Y) * cz;
    u[1] = -u0 * r * Kokkos::cos(X) * Kokkos::sin(Y) * cz;
    double p = 0.25 * u0 * u0 * (Kokkos::cos(2 * X) + r * r * Kokkos::cos(2 * Y));
    if (dim == 3) p *= 0.25 * (Kokkos::cos(2 * Z) + 2);
    rho = 1 + 3 * p;
  }
};

template <class ExecSpace, class P, int Q>
class Model final : public kflow::Model {
  using L = Lattice<Q>;
  using Mem = typename ExecSpace::memory_space;
  using Real = typename Precision<P>::real;
  using Stored = typename Precision<P>::stored;
  using View = Kokkos::View<Stored**, Kokkos::LayoutLeft, Mem>;
  using Pops = Populations<L, Real, Stored, Mem>;

 public:
  explicit Model(const Setup& s) : s_(s) {
    const auto& G = s_.grid;
    for (int d = 0; d < 3; ++d) {
      geo_.n[d] = d < G.dim ? G.cells[d] : 1;
      geo_.periodic[d] = d >= G.dim || s_.bc[d][0] == Bc::periodic;
      for (int side = 0; side < 2; ++side) {
        geo_.moving[d][side] = d < G.dim && s_.bc[d][side] == Bc::moving_wall;
        for (int e = 0; e < 3; ++e) geo_.uw[d][side][e] = Real(s_.wall_lat[d][side][e]);
      }
      geo_.force[d] = Real(s_.force_lat[d]);
    }
    geo_.omega_p = Real(s_.omega_plus);
    geo_.omega_m = Real(s_.omega_minus);
    for (int i = 0; i < Q; ++i)
      off_.v[i] = L::c(i, 0) + geo_.n[0] * (L::c(i, 1) + geo_.n[1] * L::c(i, 2));
    ncells_ = std::size_t(geo_.n[0]) * geo_.n[1] * geo_.n[2];
    a_.v =
        View(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "kflow::lbm::f"), ncells_, Q);
    if (!s_.in_place)
      b_.v = View(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "kflow::lbm::f_next"),
                  ncells_, Q);
    InitialState init;
    init.dim = G.dim;
    if (s_.initial == "taylor_green") {
      init.taylor_green = 1;
      init.u0 = s_.u_lat;
      for (int d = 0; d < G.dim; ++d)
        init.k[d] = 2 * 3.14159265358979323846 * s_.tg_modes[d] / G.cells[d];
    }
    layout_ = s_.in_place ? Layout::swapped : Layout::normal;
    kernels::initialise<L>(space_, a_, geo_, layout_, init);
  }

  const linalg::Grid& grid() const override { return s_.grid; }
  double bytes_per_cell_step() const override { return 2.0 * Q * sizeof(Stored); }
  void fence() override { space_.fence("kflow::lbm::fence"); }
  double stable_dt(double) const override { return s_.dt; }
  double fixed_dt() const override { return s_.dt; }

  // One lattice step (dt is always s_.dt: fixed_dt).
  void step(double, double) override {
    if (!s_.in_place) {
      kernels::step<L>(space_, Mode::two_grid, a_, b_, geo_, off_);
      std::swap(a_, b_);
    } else if (layout_ == Layout::swapped) {
      kernels::step<L>(space_, Mode::aa_stream, a_, a_, geo_, off_);
      layout_ = Layout::pushed;
    } else {
      kernels::step<L>(space_, Mode::aa_local, a_, a_, geo_, off_);
      layout_ = Layout::swapped;
    }
  }

  Diagnostics diagnostics(double) override {
    double umax = 0, energy = 0, mass = 0;
    kernels::norms<L>(space_, a_, geo_, off_, layout_, umax, energy, mass);
    const double c = s_.dx / s_.dt;  // lattice -> physical velocity
    // Faster than the lattice's speed of sound, 1/sqrt(3): the run has
    // diverged (a finite but meaningless state must not become a frame).
    if (umax > 1 / std::sqrt(3.0))
      throw Error("the flow diverged: lattice speed " + std::to_string(umax) +
                  " exceeds the lattice speed of sound 0.577 (Ma > 1); use a finer grid, a smaller "
                  "lattice.velocity or collision = \"trt\"");
    return {{"max_velocity", umax * c},
            {"kinetic_energy", energy * c * c},
            {"mean_density", mass},
            {"max_velocity_lattice", umax}};
  }

  HostField field(const std::string& name, double) override {
    const auto& G = s_.grid;
    Kokkos::View<double**, Kokkos::LayoutRight, Mem> m(
        Kokkos::view_alloc(space_, "kflow::lbm::moments"), ncells_, 4);
    kernels::macroscopic<L>(space_, a_, geo_, off_, layout_, m);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m);
    const double c = s_.dx / s_.dt;
    HostField f;
    f.name = name;
    const std::size_t n = ncells_;
    if (name == "density") {
      f.values.resize(n);
      for (std::size_t k = 0; k < n; ++k) f.values[k] = h(k, 0);
    } else if (name == "velocity") {
      f.components = 3;
      f.values.resize(3 * n);
      for (std::size_t k = 0; k < n; ++k)
        for (int d = 0; d < 3; ++d) f.values[3 * k + d] = h(k, 1 + d) * c;
    } else if (name == "u" || name == "v" || name == "w") {
      const int d = name == "u" ? 0 : name == "v" ? 1 : 2;
      f.values.resize(n);
      for (std::size_t k = 0; k < n; ++k) f.values[k] = h(k, 1 + d) * c;
    } else if (name == "vorticity_magnitude") {
      f.values = vorticity(h, c);
    } else if (name == "flags") {
      // 0 fluid, 1 next to a no-slip wall, 2 next to a moving wall.
      f.values.assign(n, 0.0);
      const int nx = geo_.n[0], ny = geo_.n[1], nz = geo_.n[2];
      for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
          for (int x = 0; x < nx; ++x) {
            const int p[3] = {x, y, z};
            double v = 0;
            for (int d = 0; d < G.dim; ++d)
              for (int side = 0; side < 2; ++side)
                if (!geo_.periodic[d] && p[d] == (side ? geo_.n[d] - 1 : 0))
                  v = std::max(v, geo_.moving[d][side] ? 2.0 : 1.0);
            f.values[x + std::size_t(nx) * (y + std::size_t(ny) * z)] = v;
          }
    } else {
      throw Error("lbm: no field '" + name + "'");
    }
    return f;
  }

  std::vector<StateArray> save_state() override {
    View c(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "kflow::lbm::canonical"),
           ncells_, Q);
    kernels::canonical<L>(space_, a_.v, geo_, off_, layout_, c);
    return {to_state(c, "f")};
  }

  // The checkpoint holds f* in the normal layout (either streaming scheme
  // can continue it, bit for bit).
  void restore_state(const std::vector<StateArray>& state) override {
    auto h = state_mirror(state, a_.v, "f");
    if (s_.in_place) {                                            // to the swapped layout
      auto t = Kokkos::create_mirror(Kokkos::HostSpace(), a_.v);  // not an alias of h
      for (std::size_t k = 0; k < ncells_; ++k)
        for (int i = 0; i < Q; ++i) t(k, opp(i)) = h(k, i);
      h = t;
      layout_ = Layout::swapped;
    }
    Kokkos::deep_copy(space_, a_.v, h);
    space_.fence("kflow::lbm::restore");
  }

 private:
  // |curl u| from the cell velocities (central differences, one-sided at
  // the walls; periodic axes wrap), physical units.
  template <class H>
  std::vector<double> vorticity(const H& h, double c) const {
    const int nx = geo_.n[0], ny = geo_.n[1], nz = geo_.n[2], dim = s_.grid.dim;
    const double dx = s_.dx;
    std::vector<double> out(ncells_);
    auto id = [&](int x, int y, int z) {
      return x + std::size_t(nx) * (y + std::size_t(ny) * z);
    };
    // d u_comp / d x_axis at (x, y, z).
    auto deriv = [&](int comp, int axis, int x, int y, int z) {
      int p[3] = {x, y, z}, lo[3] = {x, y, z}, hi[3] = {x, y, z};
      const int n = geo_.n[axis];
      double span = 2;
      if (n == 1) return 0.0;
      if (p[axis] > 0 && p[axis] < n - 1) {
        --lo[axis], ++hi[axis];
      } else if (geo_.periodic[axis]) {
        lo[axis] = (p[axis] - 1 + n) % n, hi[axis] = (p[axis] + 1) % n;
      } else if (p[axis] == 0) {
        ++hi[axis], span = 1;
      } else {
        --lo[axis], span = 1;
      }
      return (h(id(hi[0], hi[1], hi[2]), 1 + comp) - h(id(lo[0], lo[1], lo[2]), 1 + comp)) * c /
             (span * dx);
    };
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          const double wz = deriv(1, 0, x, y, z) - deriv(0, 1, x, y, z);
          double sq = wz * wz;
          if (dim == 3) {
            const double wx = deriv(2, 1, x, y, z) - deriv(1, 2, x, y, z);
            const double wy = deriv(0, 2, x, y, z) - deriv(2, 0, x, y, z);
            sq += wx * wx + wy * wy;
          }
          out[id(x, y, z)] = std::sqrt(sq);
        }
    return out;
  }

  Setup s_;
  ExecSpace space_{};
  Geometry<Real> geo_{};
  Offsets<Q> off_{};
  std::size_t ncells_ = 0;
  Pops a_, b_;
  Layout layout_ = Layout::normal;
};

// P: double, float or Float16s (lbm_storage.hpp).
template <class ExecSpace, class P>
std::unique_ptr<kflow::Model> make_model(const ModelSetup& setup) {
  const auto& s = static_cast<const Setup&>(setup);
  if (s.stencil == Stencil::d2q9) return std::make_unique<Model<ExecSpace, P, 9>>(s);
  if (s.stencil == Stencil::d3q19) return std::make_unique<Model<ExecSpace, P, 19>>(s);
  return std::make_unique<Model<ExecSpace, P, 27>>(s);
}

}  // namespace kflow::lbm
