// physics/lbm/lbm_launch.hpp: the GPUs' launches (a thread per cell, interior
// and edge cells apart; two cells a thread in 16 bits, lbm_pairs.hpp) against
// the CPUs' line launch (lbm_step.hpp), on a host space, bit for bit.

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <random>

#include "kflow/model/precision.hpp"
#include "lbm_launch.hpp"
#include "lbm_storage.hpp"

namespace {

// One step of every streaming mode on a host space, by lines (the CPUs'
// launch) and by cells (the GPUs' interior and edge launches): the bits of
// every population must agree.  Walls, a moving wall, a periodic axis, a
// halo (ghost layer) and a body force put every kind of link on the edge
// cells; each set-up has its moving wall, periodic pair or halo on the x
// faces once (the interior launch takes their links itself).
struct LinkSetup {
  int periodic;         // axis, or -1
  int lid, side;        // the moving wall's axis and side
  bool xhalo;           // x = -1 and nx are another block's cells (ghosts)
  bool bodies = false;  // a fifth of the cells solid (skipped), at random
};

template <class L, class Real = double, class Stored = Real>
void lines_against_cells(const int (&n)[3], const LinkSetup& setup) {
  namespace lb = kflow::lbm;
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Pops = lb::Populations<L, Real, Stored, Space::memory_space>;
  Space space;
  lb::Geometry<Real> g{};
  for (int d = 0; d < 3; ++d) g.n[d] = g.s[d] = n[d];
  if (setup.periodic >= 0) g.periodic[setup.periodic] = 1;
  if (setup.xhalo) g.gh[0] = 1, g.s[0] = n[0] + 2, g.halo[0][0] = g.halo[0][1] = 1;
  g.moving[setup.lid][setup.side] = 1;
  g.uw[setup.lid][setup.side][0] = setup.lid == 0 ? 0 : 0.05;  // tangential
  g.uw[setup.lid][setup.side][1] = setup.lid == 1 ? 0 : 0.03;
  g.uw[setup.lid][setup.side][2] = setup.lid == 2 || L::D == 2 ? 0 : -0.02;
  g.force[0] = 1e-5, g.forced = 1;
  g.omega_p = 1.2, g.omega_m = 1.5;
  const auto off = lb::offsets<L>(g);
  const int cells = g.s[0] * g.s[1] * g.s[2];
  std::mt19937 rng(7);
  // Bodies: solid cells alone, in pairs and next to the faces (the two-cell
  // launch with one or both of a pair solid).
  Kokkos::View<unsigned char*, Space::memory_space> solid("solid", setup.bodies ? cells : 0);
  if (setup.bodies) {
    for (int m = 0; m < cells; ++m) solid(m) = rng() % 5 == 0;
    g.solid = solid.data();
  }
  Kokkos::View<int*, Space::memory_space> mixed;  // the two-cell launch's other cells
  lb::mixed_pairs(space, g, mixed);
  auto make = [&](const char* name) {
    Pops p;
    p.v = decltype(p.v)(name, cells, L::Q);
    return p;
  };
  Pops init = make("init");
  std::uniform_real_distribution<double> u(0.9, 1.1);
  for (int m = 0; m < cells; ++m)
    for (int i = 0; i < L::Q; ++i) init.set(m, i, Real(L::w(i) * u(rng)));
  for (auto mode : {lb::Mode::two_grid, lb::Mode::aa_stream, lb::Mode::aa_local}) {
    Pops src[2] = {make("src0"), make("src1")}, dst[2] = {make("dst0"), make("dst1")};
    for (int k = 0; k < 2; ++k) {
      Kokkos::deep_copy(src[k].v, init.v);
      const Pops& out = mode == lb::Mode::two_grid ? dst[k] : src[k];
      if (k == 0)
        lb::kernels::step<L>(space, mode, src[k], out, g, off);
      else
        lb::kernels::step<L, true>(space, mode, src[k], out, g, off);
    }
    space.fence();
    const Pops* out = mode == lb::Mode::two_grid ? dst : src;
    long differ = 0, changed = 0;
    for (int m = 0; m < cells; ++m)
      for (int i = 0; i < L::Q; ++i) {
        differ += out[0].v(m, i) != out[1].v(m, i);
        changed += out[0].v(m, i) != init.v(m, i);
      }
    INFO("Q = " << L::Q << ", mode " << int(mode));
    CHECK(differ == 0);
    CHECK(changed > (setup.bodies ? cells / 2 : cells));  // the step did run
  }
}

}  // namespace

TEST_CASE("lbm: the GPUs' interior and edge launches give the CPUs' line launches' bits",
          "[unit]") {
  // {periodic axis, lid axis, lid side, x halo}
  const LinkSetup s3[] = {{1, 2, 1, false}, {2, 0, 0, false}, {0, 1, 0, false}, {-1, 2, 1, true}};
  const LinkSetup s2[] = {{0, 1, 1, false}, {-1, 0, 1, false}, {-1, 1, 0, true}};
  for (const auto& k : s3) {
    INFO("periodic " << k.periodic << ", lid " << k.lid << "/" << k.side << ", x halo " << k.xhalo);
    lines_against_cells<kflow::lbm::Lattice<19>>({37, 9, 7}, k);
    lines_against_cells<kflow::lbm::Lattice<27>>({11, 6, 5}, k);
  }
  for (const auto& k : s2) {
    INFO("periodic " << k.periodic << ", lid " << k.lid << "/" << k.side << ", x halo " << k.xhalo);
    lines_against_cells<kflow::lbm::Lattice<9>>({35, 8, 1}, k);
  }
}

TEST_CASE("lbm, 16-bit storage: the GPUs' two-cell launch gives the CPUs' line launches' bits",
          "[unit]") {
  // an even nx: the interior's cells two a thread (the x halo: one a thread)
  const LinkSetup s3[] = {{1, 2, 1, false},        {2, 0, 0, false},      {0, 1, 0, false},
                          {-1, 0, 1, false},       {-1, 2, 1, true},      {1, 2, 1, false, true},
                          {-1, 0, 1, false, true}, {-1, 2, 1, true, true}};
  const LinkSetup s2[] = {
      {0, 1, 1, false}, {-1, 0, 0, false}, {-1, 1, 0, true}, {-1, 0, 0, false, true}};
  for (const auto& k : s3) {
    INFO("periodic " << k.periodic << ", lid " << k.lid << "/" << k.side << ", x halo " << k.xhalo
                     << ", bodies " << k.bodies);
    lines_against_cells<kflow::lbm::Lattice<19>, float, std::uint16_t>({36, 9, 7}, k);
    lines_against_cells<kflow::lbm::Lattice<27>, float, std::uint16_t>({4, 6, 5}, k);
    lines_against_cells<kflow::lbm::Lattice<19>, float, kflow::Word16c>({36, 9, 7}, k);
  }
  for (const auto& k : s2) {
    INFO("periodic " << k.periodic << ", lid " << k.lid << "/" << k.side << ", x halo " << k.xhalo
                     << ", bodies " << k.bodies);
    lines_against_cells<kflow::lbm::Lattice<9>, float, std::uint16_t>({34, 8, 1}, k);
  }
}
