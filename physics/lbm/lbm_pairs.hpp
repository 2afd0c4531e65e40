#pragma once
// 16-bit storage on GPUs: the step's interior cells two a thread, x = 2k and
// 2k + 1 of a line away from the y and z faces.  A step with 16-bit
// populations is bound by instruction issue, not bandwidth: the pair's
// populations are read as 32-bit words (a link along x: the one value
// beyond the word by itself) and, where they stay in the cell, written as
// words; half the threads, fewer loads (docs/performance.md).  The same
// links, values and arithmetic as StepKernel::cell: the same bits.  Needs an
// even nx and no ghost layer along x (applies).  Compiled for the GPUs'
// launch (and for its test on the host), never in a CPU step; not with a
// profiled inflow on an x face (the cell launch takes those).  Bodies: a
// kernel of its own (Bodies = true) returns at once for a pair with a solid
// cell in it, and the fluid cells of such pairs (a few, where a line crosses
// a body's surface) take a small launch of their own over a list
// (MixedCells, mixed_pairs()), which keeps the pair kernel's own path
// short (1-4 % faster than the cell path inlined, docs/performance.md).  No two cells touch the
// same population slot in a step, in either scheme, so the two launches
// may run one after the other.  The kernel without bodies has no such test
// (a test at run time cost it 5 % in place and 14 % two-grid).

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "lbm_collide.hpp"
#include "lbm_step.hpp"

namespace kflow::lbm {

template <class Step, bool Bodies>
struct PairKernel {
  using L = typename Step::lattice;
  using Real = typename Step::real;
  using View = typename Step::view;
  static constexpr Mode M = Step::mode;
  Step k;

  static bool applies(const Step& s) {
    const auto& g = s.g;
    // (profiled inflows on the x faces take the cell launch)
    return sizeof(typename View::stored_type) == 2 && g.gh[0] == 0 && g.n[0] % 2 == 0 &&
           g.n[0] >= 4 && !g.profile[0][0] && !g.profile[0][1] && Bodies == (g.solid != nullptr) &&
           (!Bodies || g.mixed != nullptr);
  }
  int count() const { return k.g.n[0] / 2 * (k.g.n[1] - 2) * (L::D == 3 ? k.g.n[2] - 2 : 1); }
  KOKKOS_INLINE_FUNCTION void operator()(int p) const {
    const Geometry<Real>& g = k.g;
    using S = typename View::stored_type;
    constexpr int Q = L::Q;
    const int* off = k.offs.v;
    const int nx = g.n[0], hp = nx / 2, iy = g.n[1] - 2;
    const int q = p % hp, r = p / hp;
    const int x[3] = {2 * q, 1 + r % iy, L::D == 3 ? 1 + r / iy : 0};
    const int ia = g.index(x), ib = ia + 1;  // ia even: a word holds the pair
    if constexpr (Bodies) {
      if (g.solid[ia] || g.solid[ib]) return;  // its fluid cell: MixedCells
    }
    const bool first = q == 0, last = q == hp - 1;  // a at x = 0, b at nx - 1
    const bool wall = !g.periodic[0];               // the x faces (no halo: gh = 0)
    const S* in = k.src.v.data();
    S* out = k.dst.v.data();
    const std::size_t N = k.src.v.stride(1);
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
        const int dd[3] = {-L::c(i, 0), -L::c(i, 1), -L::c(i, 2)};
        Real u[3];
        if (first && g.moving[0][0] && L::c(i, 0) == 1) {
          g.face_velocity(0, 0, x, dd, u);
          fa[i] += wall_term<L>(i, u);
        }
        if (last && g.moving[0][1] && L::c(i, 0) == -1) {
          const int xb[3] = {x[0] + 1, x[1], x[2]};
          g.face_velocity(0, 1, xb, dd, u);
          fb[i] += wall_term<L>(i, u);
        }
      }
    }
    collide_cell<L>(fa, g);
    collide_cell<L>(fb, g);
    KFLOW_LBM_UNROLL
    for (int i = 0; i < Q; ++i) {
      const S ea = View::encode(i, fa[i]), eb = View::encode(i, fb[i]);
      if constexpr (M != Mode::aa_stream) {
        const int slot = M == Mode::two_grid ? i : opp(i);
        st2(slot, ia, ea, eb);
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
};

// The fluid cells of the pairs with a solid cell in them, one a thread (the
// cell launch's path), after PairKernel<Step, true>.
template <class Step>
struct MixedCells {
  Step k;
  KOKKOS_INLINE_FUNCTION void operator()(int j) const { k(Interior{}, k.g.mixed[j]); }
};

namespace detail {
// Pair p's cell a, and whether exactly one of the pair is solid: then m is
// its fluid cell's Interior index.
template <class Real>
struct MixedPair {
  Geometry<Real> g;
  int hp, iy;
  KOKKOS_INLINE_FUNCTION bool operator()(int p, int& m) const {
    const int q = p % hp, r = p / hp;
    const int x[3] = {2 * q, 1 + r % iy, g.n[2] > 1 ? 1 + r / iy : 0};
    const int ia = g.index(x);
    const bool sa = g.solid[ia] != 0, sb = g.solid[ia + 1] != 0;
    m = r * g.n[0] + 2 * q + (sa ? 1 : 0);
    return sa != sb;
  }
};
}  // namespace detail

// The list of MixedCells into `list`, g.mixed and g.mixed_count set (an odd
// nx: no list, g.mixed null).
template <class ExecSpace, class Real, class List>
void mixed_pairs(const ExecSpace& space, Geometry<Real>& g, List& list) {
  g.mixed = nullptr, g.mixed_count = 0;
  const int nx = g.n[0], hp = nx / 2, iy = g.n[1] - 2, iz = g.n[2] - 2;
  if (!g.solid || nx % 2 != 0 || iy < 1) return;
  const int pairs = hp * iy * (g.n[2] > 1 ? iz : 1);
  const detail::MixedPair<Real> at{g, hp, iy};
  int count = 0;
  Kokkos::parallel_reduce(
      "kflow::lbm::mixed_pairs_count",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, pairs),
      KOKKOS_LAMBDA(int p, int& c) {
        int m;
        c += at(p, m);
      },
      count);
  list = List("kflow::lbm::mixed_cells", std::size_t(count > 0 ? count : 1));
  const auto l = list;
  Kokkos::parallel_scan(
      "kflow::lbm::mixed_pairs",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, pairs),
      KOKKOS_LAMBDA(int p, int& offset, bool final) {
        int m;
        if (at(p, m)) {
          if (final) l(offset) = m;
          ++offset;
        }
      });
  space.fence("kflow::lbm::mixed_pairs");
  g.mixed = list.data(), g.mixed_count = count;
}

}  // namespace kflow::lbm
