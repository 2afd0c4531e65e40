// The distributed grid's index arithmetic (kflow/linalg/dist/decomposition.hpp,
// local_grid.hpp), which needs no MPI: blocks that tile every axis, the
// neighbours across each face with the periodic wrap, and a block's owned,
// sent and received index ranges.  The exchange itself runs under mpirun
// (tests/mpi).

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <array>
#include <set>

#include "kflow/linalg/dist/local_grid.hpp"

using namespace kflow::linalg;

TEST_CASE("blocks tile an axis, sizes differing by at most one", "[unit]") {
  for (int n : {1, 2, 7, 10, 13, 64})
    for (int p = 1; p <= n && p <= 9; ++p) {
      int next = 0, least = n, most = 0;
      for (int c = 0; c < p; ++c) {
        CHECK(dist::block_begin(n, p, c) == next);
        const int m = dist::block_cells(n, p, c);
        CHECK(m >= 1);
        least = std::min(least, m), most = std::max(most, m);
        next += m;
      }
      CHECK(next == n);
      CHECK(most - least <= 1);
    }
}

TEST_CASE("neighbours across faces, with the periodic wrap", "[unit]") {
  dist::Decomposition d;
  d.dim = 3;
  d.global_cells = {10, 7, 5};
  d.ranks = {3, 2, 1};
  d.periodic = {true, false, true};
  std::set<std::array<int, 3>> seen;
  for (int r = 0; r < d.size(); ++r) {
    d.rank = r;
    const auto c = d.coords();
    seen.insert(c);
    CHECK(d.rank_of(c) == r);
    // x: periodic over 3 blocks
    CHECK(d.coords_of(d.neighbour(0, 1))[0] == (c[0] + 1) % 3);
    CHECK(d.coords_of(d.neighbour(0, 0))[0] == (c[0] + 2) % 3);
    CHECK(d.coords_of(d.neighbour(0, 1))[1] == c[1]);
    // y: two blocks, walls at the ends
    CHECK(d.neighbour(1, 0) == (c[1] == 0 ? -1 : d.rank_of({c[0], 0, 0})));
    CHECK(d.neighbour(1, 1) == (c[1] == 1 ? -1 : d.rank_of({c[0], 1, 0})));
    // z: one periodic block is its own neighbour, and not split
    CHECK(d.neighbour(2, 0) == r);
    CHECK_FALSE(d.split(2));
  }
  CHECK(seen.size() == 6);
  d.rank = 4;  // coordinates (1, 1, 0)
  CHECK(d.begin(0) == 4);
  CHECK(d.cells(0) == 3);
  CHECK(d.begin(1) == 4);
  CHECK(d.cells(1) == 3);
}

TEST_CASE("a block's owned, sent and received ranges", "[unit]") {
  Grid g;
  g.dim = 2;
  g.cells = {10, 7, 1};
  g.length = {2.0, 1.0, 1.0};
  g.origin = {-1.0, 0.5, 0.0};
  dist::Decomposition d;
  d.dim = 2;
  d.global_cells = g.cells;
  d.ranks = {3, 1, 1};
  d.rank = 1;  // cells 4..6 in x
  const auto l = dist::make_local_grid(g, d);
  CHECK(l.offset[0] == 4);
  CHECK(l.offset[1] == 0);
  CHECK(l.local.cells[0] == 3);
  CHECK(l.local.cells[1] == 7);
  CHECK(l.local.origin[0] == -1.0 + 4 * 0.2);
  CHECK(l.local.extent(0) == 5);
  const auto own = l.owned();
  CHECK(own.begin == std::array<int, 3>{1, 1, 0});
  CHECK(own.end == std::array<int, 3>{4, 8, 1});
  CHECK(own.size() == 21);
  const auto send_hi = l.owned_face(0, 1), recv_lo = l.ghost_face(0, 0);
  CHECK(send_hi.begin == std::array<int, 3>{3, 1, 0});
  CHECK(send_hi.end == std::array<int, 3>{4, 8, 1});
  CHECK(recv_lo.begin == std::array<int, 3>{0, 1, 0});
  CHECK(recv_lo.end == std::array<int, 3>{1, 8, 1});
  const auto recv_hi = l.ghost_face(1, 1);
  CHECK(recv_hi.begin == std::array<int, 3>{1, 8, 0});
  CHECK(recv_hi.end == std::array<int, 3>{4, 9, 1});
}

TEST_CASE("a default decomposition is one block: the whole grid", "[unit]") {
  Grid g;
  g.dim = 3;
  g.cells = {7, 5, 3};
  g.length = {0.3, 1.1, 0.7};
  const auto l = dist::make_local_grid(g, dist::Decomposition{});
  CHECK(l.local == g);
  CHECK(l.offset == std::array<int, 3>{0, 0, 0});
  CHECK(l.decomposition.size() == 1);
  CHECK(l.decomposition.neighbour(0, 0) == -1);
}

TEST_CASE("blocks chosen for a rank count: fewest halo cells, slow axes split first", "[unit]") {
  using A = std::array<int, 3>;
  // A cube: halves along z, quarters as 1x2x2 (one face each on y and z,
  // against two whole faces for 1x1x4), eighths as 2x2x2.
  CHECK(dist::choose_blocks(1, 3, {64, 64, 64}) == A{1, 1, 1});
  CHECK(dist::choose_blocks(2, 3, {64, 64, 64}) == A{1, 1, 2});
  CHECK(dist::choose_blocks(3, 3, {64, 64, 64}) == A{1, 1, 3});
  CHECK(dist::choose_blocks(4, 3, {64, 64, 64}) == A{1, 2, 2});
  CHECK(dist::choose_blocks(8, 3, {64, 64, 64}) == A{2, 2, 2});
  // A long box is cut across its length; a flat one across its short faces.
  CHECK(dist::choose_blocks(4, 3, {1024, 64, 64}) == A{4, 1, 1});
  CHECK(dist::choose_blocks(4, 2, {1024, 64, 1}) == A{4, 1, 1});
  CHECK(dist::choose_blocks(2, 2, {64, 64, 1}) == A{1, 2, 1});
  // At least one cell per block: 3 ranks on 2 x 40 cells go along y.
  CHECK(dist::choose_blocks(3, 2, {2, 40, 1}) == A{1, 3, 1});
  // Nothing fits: 5 ranks on 2 x 2 cells.
  CHECK(dist::choose_blocks(5, 2, {2, 2, 1}) == A{0, 0, 0});
}
