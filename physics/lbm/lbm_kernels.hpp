#pragma once
// The kernels of physics/lbm besides the step (lbm_launch.hpp): the layouts
// of the stored post-collision populations, and the initialisation, output,
// checkpoint and norm kernels.

#include <Kokkos_Core.hpp>

#include "lbm_geometry.hpp"
#include "lbm_modes.hpp"
#include "lbm_moments.hpp"
#include "lbm_storage.hpp"

namespace kflow::lbm {

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

// f*_k of the cell x (block coordinates, stored index idx) in `layout` (a:
// the populations, read as Real, or their raw stored values).
template <class L, class Real, class View>
KOKKOS_INLINE_FUNCTION auto post(const View& a, const Geometry<Real>& g, Layout layout,
                                 const int x[3], int idx, int k) {
  if (layout == Layout::normal) return a(idx, k);
  if (layout == Layout::swapped) return a(idx, opp(k));
  int nb = idx;
  Real u[3];
  bool moving = false;
  return g.neighbour(x, L::c(k, 0), L::c(k, 1), L::c(k, 2), nb, u, moving) ? a(idx, opp(k))
                                                                           : a(nb, k);
}

// The post-collision populations of the block's cell m (x fastest) in
// `layout` (a: the populations, read as Real, or their raw stored values,
// read as T); away from the block's edges the pushed layout's neighbours
// without the wall checks.
template <class L, class Real, class View, class T>
KOKKOS_INLINE_FUNCTION void gather(const View& a, const Geometry<Real>& g, const int off[],
                                   Layout layout, int m, T f[L::Q]) {
  int x[3];
  coords(m, g.n, x);
  const int idx = g.index(x);
  const bool bulk = layout == Layout::pushed && away_from_edges(x, g.n, L::D);
  KFLOW_LBM_UNROLL_GPU
  for (int i = 0; i < L::Q; ++i)
    f[i] = bulk || (layout == Layout::pushed && i == 0) ? a(idx + off[i], i)
                                                        : post<L>(a, g, layout, x, idx, i);
}

namespace kernels {

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
// stored index (ghost layers, if any, untouched); rho0 = 1 and u = 0 in a
// body's cells.
template <class L, class Real, class ExecSpace, class View, class Out>
void macroscopic(const ExecSpace& space, const View& a, const Geometry<Real>& g,
                 const Offsets<L::Q>& off, Layout layout, const Out& out) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_for(
      "kflow::lbm::macroscopic",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n), KOKKOS_LAMBDA(int m) {
        int x[3];
        coords(m, g.n, x);
        const int idx = g.index(x);
        Real f[L::Q], rho = 1, u[3] = {0, 0, 0};  // a body's cells: rest, rho0
        if (!g.solid || !g.solid[idx]) {
          gather<L>(a, g, off.v, layout, m, f);
          moments<L>(f, g, rho, u);
        }
        out(idx, 0) = rho;
        for (int d = 0; d < 3; ++d) out(idx, 1 + d) = u[d];
      });
}

// Canonical (normal-layout) copy of the stored values (raw: bit for bit) of
// the block's cells (no ghost layers: out(m, i), m x fastest), for checkpoints.
// A body's cell holds zero words: its slots are written before any step
// reads them, and what a link left there lies on one rank in the cell, on
// several maybe in another block's ghost.
template <class L, class Real, class ExecSpace, class View>
void canonical(const ExecSpace& space, const View& a, const Geometry<Real>& g,
               const Offsets<L::Q>& off, Layout layout, const View& out) {
  using T = typename View::non_const_value_type;
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_for(
      "kflow::lbm::canonical", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int idx) {
        int x[3];
        coords(idx, g.n, x);
        T f[L::Q];
        if (g.solid && g.solid[g.index(x)])
          for (int i = 0; i < L::Q; ++i) f[i] = T{};
        else
          gather<L>(a, g, off.v, layout, idx, f);
        for (int i = 0; i < L::Q; ++i) out(idx, i) = f[i];
      });
}

// Over the block's fluid cells, lattice units: the largest squared speed,
// the sum of the kinetic energies (1/2 rho0 |u|^2) and the sum of the
// densities.
template <class L, class Real, class ExecSpace, class View>
void norms(const ExecSpace& space, const View& a, const Geometry<Real>& g, const Offsets<L::Q>& off,
           Layout layout, double& usq_max, double& energy, double& mass) {
  const int n = g.n[0] * g.n[1] * g.n[2];
  Kokkos::parallel_reduce(
      "kflow::lbm::norms", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, n),
      KOKKOS_LAMBDA(int idx, double& m, double& e, double& r) {
        if (g.solid) {
          int x[3];
          coords(idx, g.n, x);
          if (g.solid[g.index(x)]) return;
        }
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

// The densities rho(p, k) (lattice units; -1 for a body's cell) of the
// block's cells at(p, k) (x fastest, no ghosts), a host view.
template <class L, class Real, class ExecSpace, class View, class At>
Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> densities(
    const ExecSpace& space, const View& a, const Geometry<Real>& g, const Offsets<L::Q>& off,
    Layout layout, const At& at) {
  using Mem = typename ExecSpace::memory_space;
  const auto cells = Kokkos::create_mirror_view_and_copy(Mem(), at);
  // LayoutRight on every backend: the host copy has the layout of the
  // declared return type (a GPU view would default to LayoutLeft).
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> rho("kflow::lbm::densities", at.extent(0),
                                                       at.extent(1));
  const int n1 = int(at.extent(1));
  Kokkos::parallel_for(
      "kflow::lbm::densities",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, int(at.size())),
      KOKKOS_LAMBDA(int j) {
        const int p = j / n1, k = j % n1, m = cells(p, k);
        int x[3];
        coords(m, g.n, x);
        Real f[L::Q], r = -1, u[3];
        if (!g.solid || !g.solid[g.index(x)]) {
          gather<L>(a, g, off.v, layout, m, f);
          moments<L>(f, g, r, u);
        }
        rho(p, k) = double(r);
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rho);
}

}  // namespace kernels

}  // namespace kflow::lbm
