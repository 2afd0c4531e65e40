#pragma once
// Exchange of a 3D field's first two axes: dst(j, i, k) = src(i, j, k).
//
// Lines along the fastest axis are the uncoalesced ones for a GPU solver that
// gives each thread a line; transposed, they run along the second axis and
// consecutive threads read consecutive memory (split3d's X direction).  On
// GPUs a team moves a tile (64 x 64, or 64 x 32 for a map of two inputs) through
// scratch memory so that reads and writes are both coalesced; on CPUs a work
// item transposes a plane.  A map may be applied on the way (transpose_map_xy).

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

// The plain transposition's map: one input, its value unchanged.
struct Unchanged {
  template <class Real>
  KOKKOS_INLINE_FUNCTION void operator()(int, int, int, int, const Real (&in)[1],
                                         Real (&out)[1]) const {
    out[0] = in[0];
  }
};

// N fields in one launch.  Field f reads src[f + N r] (r < R) at (i, j, k),
// map(f, i, j, k, in, out) gives V values from those R, and value v
// goes transposed to dst[f + N (C v + c)] for c < C.  A GPU team of 512
// threads moves one tile of one plane of one field, 64 along i and 64 / R
// along j (a thread's R inputs take the registers one input took), through
// one tile of scratch a value in turn.  A thread takes W consecutive
// elements (W = 2: pairs read and written as one vector, for even extents),
// all its loads issued before its first store.
template <class View, int N, int R, int V, int C, int W, class Map>
struct TransposeTiles {
  using Real = typename View::non_const_value_type;
  static constexpr int tile0 = 64, tile1 = 64 / R, threads = 512, pitch = tile0 + 1;
  // reading along i: `across` threads a row of the tile, `rows` rows at once
  static constexpr int across = tile0 / W, rows = threads / across, per = tile1 / rows;
  // writing along j
  static constexpr int across_w = tile1 / W, rows_w = threads / across_w, per_w = tile0 / rows_w;
  static constexpr std::size_t scratch = sizeof(Real) * tile1 * pitch;
  static_assert(per >= 1 && per_w >= 1 && rows * per == tile1 && rows_w * per_w == tile0);
  struct alignas(W * sizeof(Real)) Vec {
    Real v[W];
  };
  Kokkos::Array<View, N * R> src;
  Kokkos::Array<View, N * V * C> dst;
  Map map;
  int tiles0, tiles1, e0, e1, e2;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    // the size spelled out: device code may not refer to `scratch` itself
    Real* s = static_cast<Real*>(m.team_scratch(0).get_shmem(sizeof(Real) * tile1 * pitch));
    int t = m.league_rank();
    const int ti = t % tiles0;
    t /= tiles0;
    const int tj = t % tiles1;
    t /= tiles1;
    const int k = t % e2, f = t / e2;
    const int x = W * (m.team_rank() % across), y = m.team_rank() / across;
    const int xw = W * (m.team_rank() % across_w), yw = m.team_rank() / across_w;
    constexpr int M = R > V ? R : V;
    Vec v[per][M];                   // the inputs, then the map's values in their place
    for (int n = 0; n < per; ++n) {  // read along i
      const int i = ti * tile0 + x, j = tj * tile1 + y + n * rows;
      for (int r = 0; r < M; ++r)
        v[n][r] = r < R && i < e0 && j < e1
                      ? *reinterpret_cast<const Vec*>(&src[f + N * r](i, j, k))
                      : Vec{};
    }
    for (int n = 0; n < per; ++n) {
      const int i = ti * tile0 + x, j = tj * tile1 + y + n * rows;
      if (i < e0 && j < e1)
        for (int w = 0; w < W; ++w) {
          Real in[R], out[V];
          for (int r = 0; r < R; ++r) in[r] = v[n][r].v[w];
          map(f, i + w, j, k, in, out);
          for (int c = 0; c < V; ++c) v[n][c].v[w] = out[c];
        }
    }
    for (int c = 0; c < V; ++c) {
      if (c > 0) m.team_barrier();  // the last value's tile read
      for (int n = 0; n < per; ++n)
        for (int w = 0; w < W; ++w) s[(y + n * rows) * pitch + x + w] = v[n][c].v[w];
      m.team_barrier();
      for (int n = 0; n < per_w; ++n) {  // write along j
        const int r = yw + n * rows_w, j = tj * tile1 + xw, i = ti * tile0 + r;
        if (i < e0 && j < e1) {
          Vec o;
          for (int w = 0; w < W; ++w) o.v[w] = s[(xw + w) * pitch + r];
          for (int d = 0; d < C; ++d)
            *reinterpret_cast<Vec*>(&dst[f + N * (C * c + d)](j, i, k)) = o;
        }
      }
    }
  }
};

// A CPU work item transposes one plane k of one field: dst's rows are
// written whole and in order, src is read down its columns (each cache line
// of src used by consecutive i: a column's lines stay in cache).
template <class View, int N, int R, int V, int C, class Map>
struct TransposePlanes {
  using Real = typename View::non_const_value_type;
  Kokkos::Array<View, N * R> src;
  Kokkos::Array<View, N * V * C> dst;
  Map map;
  int e0, e1, e2;

  KOKKOS_INLINE_FUNCTION void operator()(int item) const {
    const int k = item % e2, f = item / e2;
    for (int i = 0; i < e0; ++i)
      for (int j = 0; j < e1; ++j) {
        Real in[R], out[V];
        for (int r = 0; r < R; ++r) in[r] = src[f + N * r](i, j, k);
        map(f, i, j, k, in, out);
        for (int c = 0; c < V; ++c)
          for (int d = 0; d < C; ++d) dst[f + N * (C * c + d)](j, i, k) = out[c];
      }
  }
};

template <int N, int R, int V, int C, class ExecSpace, class View, class Map>
void transpose_mapped(const ExecSpace& space, const std::string& label,
                      const Kokkos::Array<View, N * R>& src,
                      const Kokkos::Array<View, N * V * C>& dst, const Map& map) {
  static_assert(View::rank == 3 && std::is_same_v<typename View::array_layout, Kokkos::LayoutLeft>,
                "linalg::transpose_xy: a rank-3 LayoutLeft View");
  const int e0 = int(src[0].extent(0)), e1 = int(src[0].extent(1)), e2 = int(src[0].extent(2));
  const auto extents = [](const View& v) {
    return "(" + std::to_string(v.extent(0)) + ", " + std::to_string(v.extent(1)) + ", " +
           std::to_string(v.extent(2)) + ")";
  };
  for (int f = 0; f < N * R; ++f)
    if (int(src[f].extent(0)) != e0 || int(src[f].extent(1)) != e1 || int(src[f].extent(2)) != e2)
      throw std::invalid_argument(label + ": src's extents " + extents(src[f]) + " differ from " +
                                  extents(src[0]));
  for (int f = 0; f < N * V * C; ++f) {
    const View& b = dst[f];
    if (int(b.extent(0)) != e1 || int(b.extent(1)) != e0 || int(b.extent(2)) != e2)
      throw std::invalid_argument(label + ": dst's extents " + extents(b) + " are not src's " +
                                  extents(src[0]) + " with the first two exchanged");
  }
  if constexpr (on_gpu<ExecSpace>) {
    using Real = typename View::non_const_value_type;
    // pairs where every row starts on a pair's boundary (even extents,
    // aligned data)
    bool pairs = e0 % 2 == 0 && e1 % 2 == 0;
    for (const View& v : src)
      pairs = pairs && reinterpret_cast<std::uintptr_t>(v.data()) % (2 * sizeof(Real)) == 0;
    for (const View& v : dst)
      pairs = pairs && reinterpret_cast<std::uintptr_t>(v.data()) % (2 * sizeof(Real)) == 0;
    const auto tiles = [&](auto w) {
      using T = TransposeTiles<View, N, R, V, C, decltype(w)::value, Map>;
      const int t0 = (e0 + T::tile0 - 1) / T::tile0, t1 = (e1 + T::tile1 - 1) / T::tile1;
      Kokkos::TeamPolicy<ExecSpace, Kokkos::IndexType<int>, LightWeight> policy(
          space, t0 * t1 * e2 * N, T::threads);
      policy.set_scratch_size(0, Kokkos::PerTeam(T::scratch));
      Kokkos::parallel_for(label, policy, T{src, dst, map, t0, t1, e0, e1, e2});
    };
    if (pairs)
      tiles(std::integral_constant<int, 2>{});
    else
      tiles(std::integral_constant<int, 1>{});
  } else {
    using T = TransposePlanes<View, N, R, V, C, Map>;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(space, 0, e2 * N),
                         T{src, dst, map, e0, e1, e2});
  }
}

}  // namespace detail

// src[f] to dst[f] for every f, one launch on GPUs (the launches' tails
// overlap): rank-3 LayoutLeft Views of the same extents.
template <class ExecSpace, class View, std::size_t N>
void transpose_xy(const ExecSpace& space, const Kokkos::Array<View, N>& src,
                  const Kokkos::Array<View, N>& dst) {
  detail::transpose_mapped<int(N), 1, 1, 1>(space, "kflow::linalg::transpose_xy", src, dst,
                                            detail::Unchanged{});
}

// The same, each field also to also[f]: read once, written twice.
template <class ExecSpace, class View, std::size_t N>
void transpose_xy(const ExecSpace& space, const Kokkos::Array<View, N>& src,
                  const Kokkos::Array<View, N>& dst, const Kokkos::Array<View, N>& also) {
  Kokkos::Array<View, 2 * N> both;
  for (std::size_t f = 0; f < N; ++f) both[f] = dst[f], both[f + N] = also[f];
  detail::transpose_mapped<int(N), 1, 1, 2>(space, "kflow::linalg::transpose_xy", src, both,
                                            detail::Unchanged{});
}

// A map applied on the way, for a kernel that would read what a
// transposition reads (split3d's last layer update before its transposition
// back): N fields of R inputs each, src[f + N r], give V values each, value
// v to dst[f + N v].  map(f, i, j, k, in, out) is called once per element
// with in[R] read at src's (i, j, k) and writes out[V].  The same tiles and
// planes as transpose_xy (tiles half as wide along j for R = 2).  No
// reduction on the way: a team reduction over so small a tile cost more than
// the kernel's memory traffic on an H200.
template <int R, int V, class ExecSpace, class View, std::size_t NR, std::size_t NV, class Map>
void transpose_map_xy(const ExecSpace& space, const std::string& label,
                      const Kokkos::Array<View, NR>& src, const Kokkos::Array<View, NV>& dst,
                      const Map& map) {
  static_assert(NR % R == 0 && NV == NR / R * V,
                "transpose_map_xy: R inputs and V outputs a field");
  detail::transpose_mapped<int(NR / R), R, V, 1>(space, label, src, dst, map);
}

// View: a rank-3 LayoutLeft View (a Field3, or bytes such as an obstacle mask).
template <class ExecSpace, class View>
void transpose_xy(const ExecSpace& space, const View& src, const View& dst) {
  transpose_xy(space, Kokkos::Array<View, 1>{src}, Kokkos::Array<View, 1>{dst});
}

}  // namespace kflow::linalg
