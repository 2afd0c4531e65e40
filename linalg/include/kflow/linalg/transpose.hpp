#pragma once
// Exchange of a 3D field's first two axes: dst(j, i, k) = src(i, j, k).
//
// Lines along the fastest axis are the uncoalesced ones for a GPU solver that
// gives each thread a line; transposed, they run along the second axis and
// consecutive threads read consecutive memory (split3d's X direction).  On
// GPUs a team moves a square tile (64 wide) through scratch memory so that reads and
// writes are both coalesced; on CPUs a work item transposes a plane.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/space.hpp"

namespace kflow::linalg {

namespace detail {

// N fields in one launch, each to D destinations (dst[f + N d]): a team of
// 512 threads moves one 64 x 64 tile of one plane of one field.  A thread
// takes W consecutive elements (W = 2: pairs read and written as one vector,
// for even extents), all its loads issued before its first store.
template <class View, int N, int D, int W>
struct TransposeTiles {
  using Real = typename View::non_const_value_type;
  static constexpr int tile = 64, threads = 512, across = tile / W, rows = threads / across,
                       per = tile / rows;
  struct alignas(W * sizeof(Real)) Vec {
    Real v[W];
  };
  Kokkos::Array<View, N> src;
  Kokkos::Array<View, N * D> dst;
  int tiles0, tiles1, e0, e1, e2;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    Real* s = static_cast<Real*>(m.team_scratch(0).get_shmem(sizeof(Real) * tile * (tile + 1)));
    int t = m.league_rank();
    const int ti = t % tiles0;
    t /= tiles0;
    const int tj = t % tiles1;
    t /= tiles1;
    const int k = t % e2, f = t / e2;
    const View& a = src[f];
    const int x = W * (m.team_rank() % across), y = m.team_rank() / across;
    Vec v[per];
    for (int n = 0; n < per; ++n) {  // read along i
      const int i = ti * tile + x, j = tj * tile + y + n * rows;
      if (i < e0 && j < e1)
        v[n] = *reinterpret_cast<const Vec*>(&a(i, j, k));
      else
        v[n] = Vec{};
    }
    for (int n = 0; n < per; ++n)
      for (int w = 0; w < W; ++w) s[(y + n * rows) * (tile + 1) + x + w] = v[n].v[w];
    m.team_barrier();
    for (int n = 0; n < per; ++n) {  // write along j
      const int r = y + n * rows, j = tj * tile + x, i = ti * tile + r;
      if (i < e0 && j < e1) {
        Vec o;
        for (int w = 0; w < W; ++w) o.v[w] = s[(x + w) * (tile + 1) + r];
        for (int d = 0; d < D; ++d) *reinterpret_cast<Vec*>(&dst[f + N * d](j, i, k)) = o;
      }
    }
  }
};

template <int W, int D, class ExecSpace, class View, std::size_t N, std::size_t ND>
void transpose_tiles(const ExecSpace& space, const Kokkos::Array<View, N>& src,
                     const Kokkos::Array<View, ND>& dst) {
  using T = TransposeTiles<View, int(N), D, W>;
  using Real = typename View::non_const_value_type;
  const int e0 = int(src[0].extent(0)), e1 = int(src[0].extent(1)), e2 = int(src[0].extent(2));
  const int t0 = (e0 + T::tile - 1) / T::tile, t1 = (e1 + T::tile - 1) / T::tile;
  Kokkos::TeamPolicy<ExecSpace, Kokkos::IndexType<int>, LightWeight> policy(
      space, t0 * t1 * e2 * int(N), T::threads);
  policy.set_scratch_size(0, Kokkos::PerTeam(sizeof(Real) * T::tile * (T::tile + 1)));
  Kokkos::parallel_for("kflow::linalg::transpose_xy", policy, T{src, dst, t0, t1, e0, e1, e2});
}

// src[f] to dst[f + N d] for every f and d < D.
template <int D, class ExecSpace, class View, std::size_t N, std::size_t ND>
void transpose_to(const ExecSpace& space, const Kokkos::Array<View, N>& src,
                  const Kokkos::Array<View, ND>& dst) {
  static_assert(View::rank == 3 && std::is_same_v<typename View::array_layout, Kokkos::LayoutLeft>,
                "linalg::transpose_xy: a rank-3 LayoutLeft View");
  static_assert(ND == N * D);
  using Real = typename View::non_const_value_type;
  const int e0 = int(src[0].extent(0)), e1 = int(src[0].extent(1)), e2 = int(src[0].extent(2));
  const auto extents = [](const View& v) {
    return "(" + std::to_string(v.extent(0)) + ", " + std::to_string(v.extent(1)) + ", " +
           std::to_string(v.extent(2)) + ")";
  };
  for (std::size_t f = 0; f < ND; ++f) {
    const View& a = src[f % N];
    const View& b = dst[f];
    if (int(a.extent(0)) != e0 || int(a.extent(1)) != e1 || int(a.extent(2)) != e2 ||
        int(b.extent(0)) != e1 || int(b.extent(1)) != e0 || int(b.extent(2)) != e2)
      throw std::invalid_argument("linalg::transpose_xy: dst's extents " + extents(b) +
                                  " are not src's " + extents(a) + " with the first two exchanged");
  }
  if constexpr (on_gpu<ExecSpace>) {
    // pairs where every row starts on a pair's boundary (even extents,
    // aligned data)
    bool pairs = e0 % 2 == 0 && e1 % 2 == 0;
    for (std::size_t f = 0; f < ND; ++f)
      for (const View* v : {&src[f % N], &dst[f]})
        pairs = pairs && reinterpret_cast<std::uintptr_t>(v->data()) % (2 * sizeof(Real)) == 0;
    if (pairs)
      transpose_tiles<2, D>(space, src, dst);
    else
      transpose_tiles<1, D>(space, src, dst);
  } else {
    // A work item transposes one plane k of one field: dst's rows are written
    // whole and in order, src is read down its columns (each cache line of
    // src used by consecutive i: a column's lines stay in cache).
    Kokkos::parallel_for("kflow::linalg::transpose_xy",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, e2 * int(N)), [=](int w) {
                           const int k = w % e2, f = w / e2;
                           const View& a = src[f];
                           for (int i = 0; i < e0; ++i)
                             for (int j = 0; j < e1; ++j)
                               for (int d = 0; d < D; ++d) dst[f + N * d](j, i, k) = a(i, j, k);
                         });
  }
}

}  // namespace detail

// src[f] to dst[f] for every f, one launch on GPUs (the launches' tails
// overlap): rank-3 LayoutLeft Views of the same extents.
template <class ExecSpace, class View, std::size_t N>
void transpose_xy(const ExecSpace& space, const Kokkos::Array<View, N>& src,
                  const Kokkos::Array<View, N>& dst) {
  detail::transpose_to<1>(space, src, dst);
}

// The same, each field also to also[f]: read once, written twice.
template <class ExecSpace, class View, std::size_t N>
void transpose_xy(const ExecSpace& space, const Kokkos::Array<View, N>& src,
                  const Kokkos::Array<View, N>& dst, const Kokkos::Array<View, N>& also) {
  Kokkos::Array<View, 2 * N> both;
  for (std::size_t f = 0; f < N; ++f) both[f] = dst[f], both[f + N] = also[f];
  detail::transpose_to<2>(space, src, both);
}

// View: a rank-3 LayoutLeft View (a Field3, or bytes such as an obstacle mask).
template <class ExecSpace, class View>
void transpose_xy(const ExecSpace& space, const View& src, const View& dst) {
  transpose_xy(space, Kokkos::Array<View, 1>{src}, Kokkos::Array<View, 1>{dst});
}

}  // namespace kflow::linalg
