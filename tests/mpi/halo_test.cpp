// The halo exchange (kflow/linalg/dist/halo.hpp) on every rank count it is
// started with: each block holds a function of the global cell index; after
// one exchange every face ghost must hold that function at the neighbouring
// global cell (wrapped on periodic axes), and owned cells must be unchanged.
// Then a field of 2 components per cell with edges and corners, component 0
// crossing only the low faces: every face, edge and corner ghost whose sides
// all border another block holds the function (each component where it
// crosses all those faces), every other ghost is untouched; and the reverse
// exchange brings ghost values back into the owned layers next to those
// faces, and nowhere else.
// Both checks run on the host space and, where it differs, the default
// (device) space; with KFLOW_HALO=nccl (CUDA builds with NCCL, a GPU per
// rank) the device's buffers go through NCCL.
// Run as: mpirun -n N kflow_halo_test DIM PX PY PZ PERIODIC_MASK NX NY NZ
// Exit status 0 on success; the first mismatch is printed.

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "kflow/linalg/dist/halo.hpp"

namespace {

using namespace kflow::linalg;

// The value of global cell (i, j, k): exact in double for these sizes.
KOKKOS_INLINE_FUNCTION double value(int i, int j, int k) {
  return 1.0 + i + 1000.0 * j + 1000000.0 * k;
}

template <int D, class Space>
int check(const dist::LocalGrid& lg, const dist::Transport& t) {
  Space space;
  auto f = make_field<double, D>(space, "kflow::test::halo_field", lg.local);
  const int g = lg.local.ghost, ox = lg.offset[0], oy = lg.offset[1], oz = lg.offset[2];
  auto h = Kokkos::create_mirror_view(f);
  Kokkos::deep_copy(h, -1.0);
  const auto own = lg.owned();
  for (int k = own.begin[2]; k < own.end[2]; ++k)
    for (int j = own.begin[1]; j < own.end[1]; ++j)
      for (int i = own.begin[0]; i < own.end[0]; ++i) {
        const double v = value(i - g + ox, j - g + oy, D == 3 ? k - g + oz : 0);
        if constexpr (D == 2)
          h(i, j) = v;
        else
          h(i, j, k) = v;
      }
  Kokkos::deep_copy(f, h);
  dist::Halo<Space, double, D> halo(space, lg, t);
  halo.exchange(f);
  Kokkos::deep_copy(h, f);
  const auto& dec = lg.decomposition;
  int bad = 0;
  auto at = [&](int i, int j, int k) -> double {
    if constexpr (D == 2)
      return h(i, j);
    else
      return h(i, j, k);
  };
  auto expect = [&](const char* what, int i, int j, int k, double want) {
    if (bad == 0 && at(i, j, k) != want) {
      std::fprintf(stderr, "rank %d: %s cell (%d, %d, %d) holds %.17g, expected %.17g\n", dec.rank,
                   what, i, j, k, at(i, j, k), want);
      bad = 1;
    }
  };
  for (int k = own.begin[2]; k < own.end[2]; ++k)
    for (int j = own.begin[1]; j < own.end[1]; ++j)
      for (int i = own.begin[0]; i < own.end[0]; ++i)
        expect("owned", i, j, k, value(i - g + ox, j - g + oy, D == 3 ? k - g + oz : 0));
  int faces = 0;
  for (int d = 0; d < D; ++d)
    for (int side = 0; side < 2; ++side) {
      if (!dec.split(d) || dec.neighbour(d, side) < 0) continue;
      ++faces;
      const auto r = lg.ghost_face(d, side);
      for (int k = r.begin[2]; k < r.end[2]; ++k)
        for (int j = r.begin[1]; j < r.end[1]; ++j)
          for (int i = r.begin[0]; i < r.end[0]; ++i) {
            int gi[3] = {i - g + ox, j - g + oy, D == 3 ? k - g + oz : 0};
            const int n = lg.global.cells[d];
            gi[d] = (gi[d] + n) % n;  // the periodic wrap
            expect("ghost", i, j, k, value(gi[0], gi[1], gi[2]));
          }
    }
  if (faces != halo.faces()) {
    std::fprintf(stderr, "rank %d: %d faces exchanged, expected %d\n", dec.rank, halo.faces(),
                 faces);
    bad = 1;
  }
  return bad;
}

// The components test (above).  Stored cells ghost-included, i fastest.
template <int D, class Space>
int check_components(const dist::LocalGrid& lg, const dist::Transport& t) {
  Space space;
  const auto& L = lg.local;
  const auto& dec = lg.decomposition;
  const int g = L.ghost, e0 = L.extent(0), e1 = L.extent(1), e2 = L.extent(2);
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> v("kflow::test::halo_components",
                                                                  std::size_t(e0) * e1 * e2, 2);
  // The exchanged copy in the space's memory.
  Kokkos::View<double**, Kokkos::LayoutLeft, typename Space::memory_space> dv(
      "kflow::test::halo_components_space", v.extent(0), 2);
  auto at = [&](int i, int j, int k, int c) -> double& {
    return v(i + e0 * (j + e1 * k), c);
  };
  // Global coordinates of stored cell (i, j, k), wrapped; which of its axes
  // lie beyond the block, and on which side.
  auto global = [&](int i, int j, int k, int gi[3]) {
    const int s[3] = {i, j, k};
    for (int d = 0; d < 3; ++d) {
      gi[d] = d < D ? s[d] - g + lg.offset[d] : 0;
      if (d < D) gi[d] = (gi[d] + lg.global.cells[d]) % lg.global.cells[d];
    }
  };
  auto side_of = [&](int d, int s) {
    return s < g ? 0 : s >= g + L.cells[d] ? 1 : -1;
  };
  auto cval = [&](const int gi[3], int c) {
    return value(gi[0], gi[1], gi[2]) + 0.25 * c;
  };
  int bad = 0;
  auto expect = [&](const char* what, int i, int j, int k, int c, double want) {
    if (bad == 0 && at(i, j, k, c) != want) {
      std::fprintf(stderr,
                   "rank %d: %s cell (%d, %d, %d) component %d holds %.17g, expected %.17g\n",
                   dec.rank, what, i, j, k, c, at(i, j, k, c), want);
      bad = 1;
    }
  };
  auto each = [&](auto&& fn) {
    for (int k = 0; k < e2; ++k)
      for (int j = 0; j < e1; ++j)
        for (int i = 0; i < e0; ++i) fn(i, j, k);
  };
  dist::HaloPattern p;
  p.components = 2;
  p.across = [](int, int side) {
    return side == 0 ? std::vector<int>{0, 1} : std::vector<int>{1};
  };
  p.edges_and_corners = true;
  dist::Halo<Space, double, D> halo(space, lg, t, p);
  // Forward: owned cells hold the function, ghosts -1.
  each([&](int i, int j, int k) {
    int gi[3];
    global(i, j, k, gi);
    const int s[3] = {i, j, k};
    bool ghost = false;
    for (int d = 0; d < D; ++d) ghost = ghost || side_of(d, s[d]) >= 0;
    for (int c = 0; c < 2; ++c) at(i, j, k, c) = ghost ? -1.0 : cval(gi, c);
  });
  Kokkos::deep_copy(dv, v);
  halo.exchange(dist::components_on(lg, dv));
  Kokkos::deep_copy(v, dv);
  each([&](int i, int j, int k) {
    int gi[3];
    global(i, j, k, gi);
    const int s[3] = {i, j, k};
    bool ghost = false, reached = true, low_only = true;
    for (int d = 0; d < D; ++d) {
      const int side = side_of(d, s[d]);
      if (side < 0) continue;
      ghost = true;
      reached = reached && dec.split(d) && dec.neighbour(d, side) >= 0;
      low_only = low_only && side == 0;
    }
    for (int c = 0; c < 2; ++c) {
      const bool filled = !ghost || (reached && (c == 1 || low_only));
      expect(ghost ? "ghost" : "owned", i, j, k, c, filled ? cval(gi, c) : -1.0);
    }
  });
  // Reverse, every component crossing: ghosts hold the function, owned
  // cells 0; afterwards owned cells next to a face with a neighbour hold it.
  p.across = nullptr;
  dist::Halo<Space, double, D> back(space, lg, t, p);
  each([&](int i, int j, int k) {
    int gi[3];
    global(i, j, k, gi);
    const int s[3] = {i, j, k};
    bool ghost = false;
    for (int d = 0; d < D; ++d) ghost = ghost || side_of(d, s[d]) >= 0;
    for (int c = 0; c < 2; ++c) at(i, j, k, c) = ghost ? cval(gi, c) : 0.0;
  });
  Kokkos::deep_copy(dv, v);
  back.reverse(dist::components_on(lg, dv), dist::ReplaceAll{});
  Kokkos::deep_copy(v, dv);
  const auto own = lg.owned();
  for (int k = own.begin[2]; k < own.end[2]; ++k)
    for (int j = own.begin[1]; j < own.end[1]; ++j)
      for (int i = own.begin[0]; i < own.end[0]; ++i) {
        int gi[3];
        global(i, j, k, gi);
        const int s[3] = {i, j, k};
        bool near = false;
        for (int d = 0; d < D; ++d)
          for (int side = 0; side < 2; ++side)
            near = near || (dec.split(d) && dec.neighbour(d, side) >= 0 &&
                            s[d] == (side ? g + L.cells[d] - 1 : g));
        for (int c = 0; c < 2; ++c) expect("owned (reverse)", i, j, k, c, near ? cval(gi, c) : 0.0);
      }
  return bad;
}

// Both checks on Space.
template <class Space>
int check_space(const Grid& grid, const dist::Decomposition& dec, const dist::Transport& t) {
  const auto lg = dist::make_local_grid(grid, dec);
  int bad = grid.dim == 2 ? check<2, Space>(lg, t) : check<3, Space>(lg, t);
  // The same blocks with one ghost layer, components, edges and corners.
  auto g1 = grid;
  g1.ghost = 1;
  const auto lg1 = dist::make_local_grid(g1, dec);
  return std::max(
      bad, grid.dim == 2 ? check_components<2, Space>(lg1, t) : check_components<3, Space>(lg1, t));
}

// The transport of the device space: NCCL with KFLOW_HALO=nccl.
dist::Transport device_transport(int rank, int size, bool* nccl) {
  dist::Transport t(MPI_COMM_WORLD);
  *nccl = false;
#ifdef KFLOW_HAVE_NCCL
  const char* e = std::getenv("KFLOW_HALO");
  if (e && std::string(e) == "nccl" && dist::nccl_space<Kokkos::DefaultExecutionSpace> &&
      size > 1) {
    ncclUniqueId id{};
    if (rank == 0) dist::detail::nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, int(sizeof id), MPI_BYTE, 0, MPI_COMM_WORLD);
    dist::detail::nccl_check(ncclCommInitRank(&t.nccl, size, id, rank), "ncclCommInitRank");
    *nccl = true;
  }
#else
  (void)rank, (void)size;
#endif
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Kokkos::initialize(argc, argv);
  {
    // args: dim px py pz periodic_mask nx ny nz
    if (argc < 9) {
      std::fprintf(stderr, "usage: kflow_halo_test DIM PX PY PZ PERIODIC_MASK NX NY NZ\n");
      bad = 2;
    } else {
      Grid grid;
      grid.dim = std::atoi(argv[1]);
      dist::Decomposition dec;
      dec.dim = grid.dim;
      for (int d = 0; d < 3; ++d) {
        dec.ranks[d] = std::atoi(argv[2 + d]);
        dec.periodic[d] = (std::atoi(argv[5]) >> d) & 1;
        grid.cells[d] = d < grid.dim ? std::atoi(argv[6 + d]) : 1;
      }
      dec.global_cells = grid.cells;
      dec.rank = rank;
      if (dec.size() != size) {
        std::fprintf(stderr, "%d blocks for %d ranks\n", dec.size(), size);
        bad = 2;
      } else {
        using Host = Kokkos::DefaultHostExecutionSpace;
        using Device = Kokkos::DefaultExecutionSpace;
        bad = check_space<Host>(grid, dec, MPI_COMM_WORLD);
        if constexpr (!std::is_same_v<Host, Device>) {
          bool nccl = false;
          auto t = device_transport(rank, size, &nccl);
          bad = std::max(bad, check_space<Device>(grid, dec, t));
          if (rank == 0)
            std::printf("device space %s: %s\n", Device::name(),
                        nccl ? "NCCL, device to device" : "staged through host memory");
#ifdef KFLOW_HAVE_NCCL
          if (t.nccl) ncclCommDestroy(t.nccl);
#endif
        }
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("halo exchange on %d ranks: %s\n", size, bad ? "FAILED" : "ok");
  Kokkos::finalize();
  MPI_Finalize();
  return bad;
}
