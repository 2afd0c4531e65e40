#pragma once
// The kernels of physics/lbm: the grid and boundary description a kernel
// takes by value (Geometry), the collision, the fused stream-collide step in
// its three streaming modes (StepKernel; GPUs a thread per cell, interior and
// edge cells in separate launches; CPUs a SIMD loop per line along x), and
// the initialisation, output and norm kernels (namespace kernels).

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kflow/linalg/space.hpp"
#include "lbm_lattice.hpp"
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

// Everything a kernel needs about the grid and the boundaries (by value).
// Cells are addressed by their coordinates in the block, 0..n-1 per axis;
// on several ranks the block is stored with a ghost layer on every axis
// (gh = 1), so that coordinate -1 or n of an axis whose side borders
// another block (halo) is that block's cell, held in the ghost layer.
template <class Real>
struct Geometry {
  int n[3];          // cells of the block per axis (1 beyond the dimension)
  int s[3];          // stored cells per axis: n + 2 gh
  int gh[3];         // ghost layers per axis (0 on one rank)
  int periodic[3];   // axis wraps onto the block's own opposite side
  int halo[3][2];    // side borders another block (its cells in the ghost layer)
  int moving[3][2];  // face is a moving wall (else static, when neither of the above)
  Real uw[3][2][3];  // wall velocities (lattice units)
  Real force[3];     // body force (lattice units)
  int forced;        // any force component non-zero
  Real omega_p, omega_m;

  // The stored index of the cell at block coordinates t (ghosts: -1 and n).
  KOKKOS_INLINE_FUNCTION int index(const int t[3]) const {
    return (t[0] + gh[0]) + s[0] * ((t[1] + gh[1]) + s[1] * (t[2] + gh[2]));
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
        for (int e = 0; e < 3; ++e) u[e] += uw[d][side][e];
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

// Collision in place on f (pre-collision -> post-collision): TRT in
// symmetric/antisymmetric pairs (BGK: omega_m = omega_p), Guo forcing.
// forced = false leaves the force terms out (a step is bound by instruction
// issue on GPUs: docs/performance.md); with a zero force both give the same
// bits, since every force term is then +0.
template <class L, bool forced = true, class Real>
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
  for (int d = 0; d < 3; ++d) u[d] = forced ? (j[d] + Real(0.5) * g.force[d]) * inv : j[d] * inv;
  const Real usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
  const Real uf = forced ? u[0] * g.force[0] + u[1] * g.force[1] + u[2] * g.force[2] : Real(0);
  const Real op = g.omega_p, om = g.omega_m;
  const Real sp = Real(1) - Real(0.5) * op, sm = Real(1) - Real(0.5) * om;
  {
    const Real w0 = Real(L::w(0));
    const Real eq = w0 * rho * (Real(1) - Real(1.5) * usq);
    if constexpr (forced)
      f[0] += -op * (f[0] - eq) + sp * (w0 * Real(-3) * uf);
    else
      f[0] += -op * (f[0] - eq);
  }
  KFLOW_LBM_UNROLL
  for (int i = 1; i < Q; i += 2) {
    const Real w = Real(L::w(i));
    const Real cu = Real(L::c(i, 0)) * u[0] + Real(L::c(i, 1)) * u[1] + Real(L::c(i, 2)) * u[2];
    const Real eq_p = w * rho * (Real(1) + Real(4.5) * cu * cu - Real(1.5) * usq);
    const Real eq_m = w * rho * Real(3) * cu;
    const Real fp = Real(0.5) * (f[i] + f[i + 1]), fm = Real(0.5) * (f[i] - f[i + 1]);
    Real dp = -op * (fp - eq_p), dm = -om * (fm - eq_m);
    if constexpr (forced) {
      const Real cf = Real(L::c(i, 0)) * g.force[0] + Real(L::c(i, 1)) * g.force[1] +
                      Real(L::c(i, 2)) * g.force[2];
      dp += sp * (w * (Real(9) * cu * cf - Real(3) * uf));
      dm += sm * (w * Real(3) * cf);
    }
    f[i] += dp + dm;
    f[i + 1] += dp - dm;
  }
}

// The collision a step takes: without the force terms where the force is
// zero (a uniform branch: every cell of a launch takes the same one).
template <class L, class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide_cell(Real f[L::Q], const Geometry<Real>& g) {
  if (g.forced)
    collide<L, true>(f, g);
  else
    collide<L, false>(f, g);
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
struct Edges {};     // the domain's edges, and the others; Pairs: the cells
struct Pairs {};     // away from the edges two a thread (16-bit storage)

template <class L, class Real, class View, Mode M>
struct StepKernel {
  static constexpr int dim = L::D;
  View src, dst;  // aa_*: src == dst
  Geometry<Real> g;
  Offsets<L::Q> offs;  // linear index offset of c_i

  KOKKOS_INLINE_FUNCTION void operator()(int m) const {
    int x[3];
    coords(m, g.n, x);
    // Cells away from the block's edges take the branch-free path; the
    // others check every link for walls and periodic wrap.
    if (away_from_edges(x, g.n, L::D))
      cell<true>(g.index(x), x);
    else
      cell<false>(g.index(x), x);
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
    cell<true>(g.index(x), x, x[0] == 0 ? -1 : (x[0] == nx - 1 ? 1 : 0));
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
    cell<false>(g.index(x), x);
  }
  int edge_cells() const {
    const int nx = g.n[0], ny = g.n[1], nz = g.n[2];
    const int zs = L::D == 3 ? nz - 2 : 1;
    return (L::D == 3 ? 2 * nx * ny : 0) + 2 * nx * zs;
  }
  // 16-bit storage (GPUs): the interior's cells two a thread, x = 2k and
  // 2k + 1 of a line away from the y and z faces.  A step with 16-bit
  // populations is bound by instruction issue, not bandwidth: the pair's
  // populations are read as 32-bit words (a link along x: the one value
  // beyond the word by itself) and, where they stay in the cell, written as
  // words; half the threads, fewer loads (docs/performance.md).  The same
  // links, values and arithmetic as cell(): the same bits.  Needs an even
  // nx, no ghost layer along x (pairs_apply).
  static constexpr bool pairs = sizeof(typename View::stored_type) == 2;
  bool pairs_apply() const { return pairs && g.gh[0] == 0 && g.n[0] % 2 == 0 && g.n[0] >= 4; }
  int pair_count() const { return g.n[0] / 2 * (g.n[1] - 2) * (L::D == 3 ? g.n[2] - 2 : 1); }
  KOKKOS_INLINE_FUNCTION void operator()(Pairs, int p) const {
    if constexpr (pairs) pair(p);
  }
  KOKKOS_INLINE_FUNCTION void pair(int p) const {
    using S = typename View::stored_type;
    constexpr int Q = L::Q;
    const int* off = offs.v;
    const int nx = g.n[0], hp = nx / 2, iy = g.n[1] - 2;
    const int k = p % hp, r = p / hp;
    const int x[3] = {2 * k, 1 + r % iy, L::D == 3 ? 1 + r / iy : 0};
    const int ia = g.index(x), ib = ia + 1;         // ia even: a word holds the pair
    const bool first = k == 0, last = k == hp - 1;  // a at x = 0, b at nx - 1
    const bool wall = !g.periodic[0];               // the x faces (no halo: gh = 0)
    const S* in = src.v.data();
    S* out = dst.v.data();
    const std::size_t N = src.v.stride(1);
    auto ld1 = [&](int slot, int idx) {
      return in[slot * N + std::size_t(idx)];
    };
    auto ld2 = [&](int slot, int idx) {
      return *reinterpret_cast<const std::uint32_t*>(in + slot * N + std::size_t(idx));
    };
    auto st1 = [&](int slot, int idx, S v) {
      out[slot * N + std::size_t(idx)] = v;
    };
    auto st2 = [&](int slot, int idx, S lo, S hi) {
      *reinterpret_cast<std::uint32_t*>(out + slot * N + std::size_t(idx)) =
          std::uint32_t(lo) | std::uint32_t(hi) << 16;
    };
    Real fa[Q], fb[Q];
    KFLOW_LBM_UNROLL
    for (int i = 0; i < Q; ++i) {
      const int cx = L::c(i, 0);
      S ha, hb;
      if constexpr (M == Mode::aa_local) {
        const std::uint32_t w = ld2(i, ia);
        ha = S(w & 0xffffu), hb = S(w >> 16);
      } else {
        // from x - c_i: the word of the row the link comes from; across a
        // wall the cell's own slot (cell(): f_i = src(x, opp i) two-grid,
        // src(x, i) in place), across a periodic face the line's other end
        const int slot = M == Mode::two_grid ? i : opp(i), back = M == Mode::two_grid ? opp(i) : i;
        const int o = off[i] - cx;  // the link's y and z part
        const std::uint32_t w = ld2(slot, ia - o);
        if (cx == 0) {
          ha = S(w & 0xffffu), hb = S(w >> 16);
        } else if (cx == 1) {
          hb = S(w & 0xffffu);
          ha = ld1(first && wall ? back : slot, !first ? ia - o - 1 : wall ? ia : ia - o - 1 + nx);
        } else {
          ha = S(w >> 16);
          hb = ld1(last && wall ? back : slot, !last ? ia - o + 2 : wall ? ib : ia - o + 2 - nx);
        }
      }
      fa[i] = View::decode(i, ha);
      fb[i] = View::decode(i, hb);
    }
    if (wall && ((first && g.moving[0][0]) || (last && g.moving[0][1]))) {
      KFLOW_LBM_UNROLL
      for (int i = 0; i < Q; ++i) {
        if (first && g.moving[0][0] && L::c(i, 0) == 1) fa[i] += wall_term<L>(i, g.uw[0][0]);
        if (last && g.moving[0][1] && L::c(i, 0) == -1) fb[i] += wall_term<L>(i, g.uw[0][1]);
      }
    }
    collide_cell<L>(fa, g);
    collide_cell<L>(fb, g);
    KFLOW_LBM_UNROLL
    for (int i = 0; i < Q; ++i) {
      const S ea = View::encode(i, fa[i]), eb = View::encode(i, fb[i]);
      if constexpr (M == Mode::two_grid) {
        st2(i, ia, ea, eb);
      } else if constexpr (M == Mode::aa_local) {
        st2(opp(i), ia, ea, eb);
      } else {
        // to x + c_i; across a wall into the cell's own slot opp(i), across
        // a periodic face to the line's other end
        const int cx = L::c(i, 0);
        const bool ca = first && cx == -1, cb = last && cx == 1;
        st1(ca && wall ? opp(i) : i, !ca ? ia + off[i] : wall ? ia : ia + off[i] + nx, ea);
        st1(cb && wall ? opp(i) : i, !cb ? ib + off[i] : wall ? ib : ib + off[i] - nx, eb);
      }
    }
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
          if (L::c(i, 0) == -side) f[i] += wall_term<L>(i, g.uw[0][face]);
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
    collide_cell<L>(f, g);
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

// The slots that a cell writes itself in an in-place stream step although
// they lie in its own storage: slot i of the stored cell (i0, i1, i2) when
// the link from x - c_i is a wall (the bounce-back of the cell's own f*).
// A reverse halo exchange keeps them: the neighbour block that sends its
// ghost's copy of the slot back did not write it.
template <class L, class Real>
struct WrittenByBounceBack {
  Geometry<Real> g;
  KOKKOS_INLINE_FUNCTION bool operator()(int i0, int i1, int i2, int i) const {
    const int x[3] = {i0 - g.gh[0], i1 - g.gh[1], i2 - g.gh[2]};
    int nb = 0;
    Real u[3];
    bool moving = false;
    return g.neighbour(x, -L::c(i, 0), -L::c(i, 1), -L::c(i, 2), nb, u, moving);
  }
};

// Layouts of the stored post-collision populations f*_i(x):
//  normal:  a(x, i)  (two-grid)
//  swapped: a(x, opp i)  (in-place, after a local step)
//  pushed:  a(x + c_i, i)  [wall: a(x, opp i)]  (in-place, after a stream step)
enum class Layout { normal, swapped, pushed };

// The post-collision populations of the block's cell m (x fastest) in
// `layout` (a: the populations, read as Real, or their raw stored values,
// read as T).
template <class L, class Real, class View, class T>
KOKKOS_INLINE_FUNCTION void gather(const View& a, const Geometry<Real>& g, const int off[],
                                   Layout layout, int m, T f[L::Q]) {
  int x[3];
  coords(m, g.n, x);
  const int idx = g.index(x);
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

// A step kernel over the lattice by cells, a thread per cell (the GPUs'
// launch; on host spaces for tests).  Interior and edge cells in two
// launches: a warp holding an edge cell ran both paths.
template <class ExecSpace, class Kernel>
void launch_cells(const ExecSpace& space, const char* label, const Kernel& kernel) {
  const int nx = kernel.g.n[0], ny = kernel.g.n[1], nz = kernel.g.n[2];
  if (nx >= 3 && ny >= 3 && (Kernel::dim == 2 || nz >= 3)) {
    const int interior = nx * (ny - 2) * (Kernel::dim == 3 ? nz - 2 : 1);  // whole lines
    if (kernel.pairs_apply())  // (at most 80 registers: 6 blocks of 128 a multiprocessor)
      Kokkos::parallel_for(
          label,
          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>, Kokkos::LaunchBounds<128, 6>,
                              Pairs>(space, 0, kernel.pair_count()),
          kernel);
    else
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
}

// A step kernel over the lattice: GPUs by cells (launch_cells); CPUs a task
// per line along x (StepKernel::line), or by cells where `cells` asks (a
// test of the GPUs' launches on the host).
template <class ExecSpace, class Kernel>
void launch_step(const ExecSpace& space, const char* label, const Kernel& kernel,
                 bool cells = false) {
  if constexpr (linalg::on_gpu<ExecSpace>) {
    launch_cells(space, label, kernel);
  } else if (cells) {
    launch_cells(space, label, kernel);
  } else {
    const int ny = kernel.g.n[1], nz = kernel.g.n[2];
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, ny * nz),
        KOKKOS_LAMBDA(int l) { kernel.line(l % ny, l / ny); });
  }
}

template <class L, class Real, class ExecSpace, class View>
void step(const ExecSpace& space, Mode mode, const View& src, const View& dst,
          const Geometry<Real>& g, const Offsets<L::Q>& off, bool cells = false) {
  auto make = [&](auto kernel) {
    kernel.src = src;
    kernel.dst = dst;
    kernel.g = g;
    kernel.offs = off;
    return kernel;
  };
  if (mode == Mode::two_grid)
    launch_step(space, "kflow::lbm::stream_collide_two_grid",
                make(StepKernel<L, Real, View, Mode::two_grid>{}), cells);
  else if (mode == Mode::aa_stream)
    launch_step(space, "kflow::lbm::stream_collide_aa_stream",
                make(StepKernel<L, Real, View, Mode::aa_stream>{}), cells);
  else
    launch_step(space, "kflow::lbm::stream_collide_aa_local",
                make(StepKernel<L, Real, View, Mode::aa_local>{}), cells);
}

// Equilibrium populations of (rho, u), stored in `layout` (normal or swapped).
template <class L, class Real, class ExecSpace, class View, class Init>
void initialise(const ExecSpace& space, const View& a, const Geometry<Real>& g, Layout layout,
                const Init& init) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  const bool swapped = layout == Layout::swapped;
  Kokkos::parallel_for(
      "kflow::lbm::initialise", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int m) {
        int x[3];
        coords(m, g.n, x);
        const int idx = g.index(x);
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

// rho, u (lattice units) per cell into out(idx, 0..3), idx the cell's
// stored index (ghost layers, if any, untouched).
template <class L, class Real, class ExecSpace, class View, class Out>
void macroscopic(const ExecSpace& space, const View& a, const Geometry<Real>& g,
                 const Offsets<L::Q>& off, Layout layout, const Out& out) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_for(
      "kflow::lbm::macroscopic",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n), KOKKOS_LAMBDA(int m) {
        Real f[L::Q], rho, u[3];
        gather<L>(a, g, off.v, layout, m, f);
        moments<L>(f, g, rho, u);
        int x[3];
        coords(m, g.n, x);
        const int idx = g.index(x);
        out(idx, 0) = rho;
        for (int d = 0; d < 3; ++d) out(idx, 1 + d) = u[d];
      });
}

// Canonical (normal-layout) copy of the stored values (raw: bit for bit) of
// the block's cells (no ghost layers: out(m, i), m x fastest), for checkpoints.
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

// Over the block's cells, lattice units: the largest squared speed, the sum
// of the kinetic energies (1/2 rho0 |u|^2) and the sum of the densities.
template <class L, class Real, class ExecSpace, class View>
void norms(const ExecSpace& space, const View& a, const Geometry<Real>& g, const Offsets<L::Q>& off,
           Layout layout, double& usq_max, double& energy, double& mass) {
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
      Kokkos::Max<double>(usq_max), Kokkos::Sum<double>(energy), Kokkos::Sum<double>(mass));
  space.fence("kflow::lbm::norms");
}

}  // namespace kernels

}  // namespace kflow::lbm
