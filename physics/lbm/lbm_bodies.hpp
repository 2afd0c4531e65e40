#pragma once
// Walls on bodies (physics/lbm): the boundary links of kflow::geometry, a
// sparse list, corrected by a small kernel before each step, so that the
// step's bulk kernel stays the empty box's (it only skips solid cells).
//
// A link (x, d): x a fluid cell, x + c_d a solid one, the wall at the
// fraction q of the link.  The population f_dbar(x) (dbar = opp(d)) that the
// next step pulls from the solid cell is written there, from post-collision
// values f*:
//  bounce_back (halfway, staircase):  f_dbar = f*_d(x)
//  interpolated (Bouzidi, Firdaouss & Lallemand 2001, linear):
//    q <  1/2: f_dbar = 2q f*_d(x) + (1 - 2q) f*_d(x - c_d)
//    q >= 1/2: f_dbar = f*_d(x) / (2q) + (2q - 1) / (2q) f*_dbar(x)
//  Where x - c_d is not a fluid cell of the block (a gap one cell wide, a
//  domain wall) a link with q < 1/2 falls back to halfway bounce-back
//  (first order), and the model counts those links in a note.
// The slot the next step reads f_dbar(x) from: two-grid (y, dbar), y = x +
// c_d; in place, a stream step (y, d), a local step (x, dbar).  No link
// writes a slot another link reads, and every slot it reads is a fluid
// cell's: the links are independent, and both streaming schemes get the
// same values, bit for bit.
//
// Forces by momentum exchange: F = sum over a body's links of c_d (f*_d(x) +
// f_dbar(x)), the momentum the link's two populations hand to the wall over
// a step; moments M = sum (w - p) x c_d (f*_d(x) + f_dbar(x)) about a point
// p, each link's force taken at its wall point w = x + q c_d.  For a body at rest this is Wen et
// al.'s (2014) Galilean-invariant form, whose wall-velocity terms vanish.  The sum runs on the host
// over every rank's links in the one-rank link order (the geometry layer's: by cell, x fastest,
// then by direction), so that it has the same bits on any decomposition and any number of threads.
//
// Several ranks: a block's links are its own cells' (the geometry layer's
// node box), found on its cells and ghost layer, whose solid flags the
// links into the neighbours' cells need; the cell x - c_d of an
// interpolated wall may be a neighbour's, in the ghost layer.  Before a
// step the exchange has brought f*_d there (two-grid: d points into the
// block; in place, after a local step, slot dbar, pointing out of it); the
// force computed after a step needs the same exchange first, except in
// the pushed layout, where the block's own stream step wrote the values.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "kflow/model/parallel.hpp"
#include "lbm_geometry.hpp"
#include "lbm_kernels.hpp"
#include "lbm_modes.hpp"

namespace kflow::lbm {

// How a link takes its wall (BodyLinks::rule).
enum : unsigned char { link_halfway = 0, link_near = 1, link_far = 2 };

template <class Mem, class Real>
struct BodyLinks {
  Kokkos::View<int*, Mem> cell;  // the fluid cell, block coordinates (x fastest, no ghosts)
  Kokkos::View<unsigned char*, Mem> dir, body, rule;
  Kokkos::View<Real*, Mem> q;
  int count = 0;
};

// The cell x + dd in block coordinates y (periodic axes wrap; a side to
// another block leads into the ghost layer): false across a wall.
template <class Real>
KOKKOS_INLINE_FUNCTION bool shifted(const Geometry<Real>& g, const int x[3], const int dd[3],
                                    int y[3]) {
  for (int d = 0; d < 3; ++d) {
    y[d] = x[d] + dd[d];
    if (y[d] >= 0 && y[d] < g.n[d]) continue;
    const int side = y[d] < 0 ? 0 : 1;
    if (g.halo[d][side]) continue;
    if (!g.periodic[d]) return false;
    y[d] += side ? -g.n[d] : g.n[d];
  }
  return true;
}

// The returning population of link l and the post-collision one it answers.
template <class L, class Real, class Pops, class Links>
struct BodyWall {
  Pops a;
  Geometry<Real> g;
  Links links;
  Layout layout;  // of the stored populations
  KOKKOS_INLINE_FUNCTION void value(int l, int x[3], int& idx, int& d, Real& fd, Real& v) const {
    coords(links.cell(l), g.n, x);
    idx = g.index(x);
    d = links.dir(l);
    fd = post<L>(a, g, layout, x, idx, d);
    const int rule = links.rule(l);
    const Real q = links.q(l);
    if (rule == link_near) {
      const int dd[3] = {-L::c(d, 0), -L::c(d, 1), -L::c(d, 2)};
      int y[3] = {x[0], x[1], x[2]};
      shifted(g, x, dd, y);  // (a fluid cell: the rule's condition)
      v = Real(2) * q * fd + (Real(1) - Real(2) * q) * post<L>(a, g, layout, y, g.index(y), d);
    } else if (rule == link_far) {
      v = fd / (Real(2) * q) +
          (Real(2) * q - Real(1)) / (Real(2) * q) * post<L>(a, g, layout, x, idx, opp(d));
    } else {
      v = fd;
    }
  }
};

namespace kernels {

// Writes the links' returning populations where the next step (in `mode`)
// pulls them from; `layout` is the stored populations' now.
template <class L, class Real, class ExecSpace, class Pops, class Links>
void body_walls(const ExecSpace& space, const Pops& a, const Geometry<Real>& g,
                const Offsets<L::Q>& off, const Links& links, Mode mode, Layout layout) {
  if (links.count == 0) return;
  const BodyWall<L, Real, Pops, Links> w{a, g, links, layout};
  Kokkos::parallel_for(
      "kflow::lbm::body_walls",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, links.count),
      KOKKOS_LAMBDA(int l) {
        int x[3], idx, d;
        Real fd, v;
        w.value(l, x, idx, d, fd, v);
        if (mode == Mode::two_grid)
          a.set(idx + off.v[d], opp(d), v);
        else if (mode == Mode::aa_stream)
          a.set(idx + off.v[d], d, v);
        else
          a.set(idx, opp(d), v);
      });
}

// The momentum m = f*_d(x) + f_dbar(x) that link l hands to its wall (the
// force is the sum of c_d m), per link, on the host.
template <class L, class Real, class ExecSpace, class Pops, class Links>
Kokkos::View<double*, Kokkos::HostSpace> link_momenta(const ExecSpace& space, const Pops& a,
                                                      const Geometry<Real>& g, const Links& links,
                                                      Layout layout) {
  Kokkos::View<double*, typename ExecSpace::memory_space> m("kflow::lbm::link_momenta",
                                                            std::size_t(links.count));
  const BodyWall<L, Real, Pops, Links> w{a, g, links, layout};
  Kokkos::parallel_for(
      "kflow::lbm::link_momenta",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, links.count),
      KOKKOS_LAMBDA(int l) {
        int x[3], idx, d;
        Real fd, v;
        w.value(l, x, idx, d, fd, v);
        m(l) = double(fd) + double(v);
      });
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m);
}

// The solid flag (body id + 1) of every stored cell of the block, ghost
// layers included, from the geometry layer's flags (on the stored cells)
// into `solid`; the count of the block's own.
template <class ExecSpace, class Flags, class Real, class Solid>
double solid_cells(const ExecSpace& space, const Flags& flags, const Geometry<Real>& g,
                   Solid& solid, std::size_t stored) {
  solid = Solid("kflow::lbm::solid", stored);
  const auto s = solid;
  double count = 0;
  Kokkos::parallel_reduce(
      "kflow::lbm::solid_cells",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, g.s[0] * g.s[1] * g.s[2]),
      KOKKOS_LAMBDA(int m, double& c) {
        int t[3];
        coords(m, g.s, t);
        const unsigned char id = flags(t[0], t[1], t[2]);
        s(m) = id;
        bool own = true;
        for (int d = 0; d < 3; ++d) own = own && t[d] >= g.gh[d] && t[d] < g.gh[d] + g.n[d];
        c += own && id != 0;
      },
      count);
  return count;
}

// The block's solid cells with fluid on both sides along some lattice
// direction (a body, or a part of one, a cell thick there: the walls on
// its two sides meet in that cell).  g.solid set, ghost layers included.
template <class L, class Real, class ExecSpace>
double thin_cells(const ExecSpace& space, const Geometry<Real>& g) {
  double count = 0;
  Kokkos::parallel_reduce(
      "kflow::lbm::thin_cells",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, g.n[0] * g.n[1] * g.n[2]),
      KOKKOS_LAMBDA(int m, double& c) {
        int x[3];
        coords(m, g.n, x);
        if (!g.solid[g.index(x)]) return;
        bool thin = false;
        for (int i = 1; i < L::Q && !thin; ++i) {
          const int dd[3] = {L::c(i, 0), L::c(i, 1), L::c(i, 2)};
          const int back[3] = {-dd[0], -dd[1], -dd[2]};
          int y[3], z[3];
          thin = shifted(g, x, dd, y) && shifted(g, x, back, z) && !g.solid[g.index(y)] &&
                 !g.solid[g.index(z)];
        }
        c += thin;
      },
      count);
  return count;
}

// The body links from the geometry layer's (nodes: the block's stored
// cells, links from its own), each with its rule: interpolated walls fall
// back to halfway bounce-back where q < 1/2 and x - c_d is not a fluid cell
// (counted in `fallbacks`).  g.solid set, ghost layers included.
template <class L, class Real, class ExecSpace, class GeoLinks>
BodyLinks<typename ExecSpace::memory_space, Real> body_links(const ExecSpace& space,
                                                             const GeoLinks& gl,
                                                             const Geometry<Real>& g,
                                                             bool interpolated, int& fallbacks) {
  BodyLinks<typename ExecSpace::memory_space, Real> lk;
  const int count = int(gl.count);
  lk.count = count;
  lk.cell = decltype(lk.cell)("kflow::lbm::links::cell", count);
  lk.dir = decltype(lk.dir)("kflow::lbm::links::dir", count);
  lk.body = decltype(lk.body)("kflow::lbm::links::body", count);
  lk.rule = decltype(lk.rule)("kflow::lbm::links::rule", count);
  lk.q = decltype(lk.q)("kflow::lbm::links::q", count);
  fallbacks = 0;
  Kokkos::parallel_reduce(
      "kflow::lbm::link_rules",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, count),
      KOKKOS_LAMBDA(int l, int& fb) {
        int t[3];
        coords(gl.node(l), g.s, t);  // stored cell -> the block's cell m
        const int m = (t[0] - g.gh[0]) + g.n[0] * ((t[1] - g.gh[1]) + g.n[1] * (t[2] - g.gh[2]));
        const int d = gl.dir(l);
        const double q = gl.q(l);
        lk.cell(l) = m;
        lk.dir(l) = gl.dir(l);
        lk.body(l) = gl.body(l);
        lk.q(l) = Real(q);
        unsigned char rule = link_halfway;
        if (interpolated && q >= 0.5) {
          rule = link_far;
        } else if (interpolated) {
          int x[3], y[3];
          coords(m, g.n, x);
          const int dd[3] = {-L::c(d, 0), -L::c(d, 1), -L::c(d, 2)};
          if (shifted(g, x, dd, y) && !g.solid[g.index(y)])
            rule = link_near;
          else
            ++fb;
        }
        lk.rule(l) = rule;
      },
      fallbacks);
  return lk;
}

}  // namespace kernels

// Every rank's links in the one-rank order, found once at set-up: `order`
// lists the positions of the links gathered over the ranks (rank by rank,
// each rank's in its own order) by key (global cell index) Q + d,
// ascending; `what[k]` = body Q + d of gathered link k, `wall[k]` its wall
// point x + q c_d (global cell coordinates, the cell centres at integers;
// q = 1/2 for a halfway link), the moments' lever.  Collective.
struct LinkOrder {
  std::vector<std::size_t> order;
  std::vector<int> what;
  std::vector<std::array<double, 3>> wall;
};

template <class L, class Real, class Links>
LinkOrder link_order(const Links& links, const Geometry<Real>& g) {
  const auto cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), links.cell);
  const auto dir = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), links.dir);
  const auto body = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), links.body);
  const auto rule = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), links.rule);
  const auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), links.q);
  constexpr std::size_t per = 5;  // (key, what, wall point) per link
  std::vector<double> mine;
  mine.reserve(per * std::size_t(links.count));
  for (int l = 0; l < links.count; ++l) {
    int x[3];
    coords(cell(l), g.n, x);
    const double global =
        (x[0] + g.offset[0]) +
        double(g.cells[0]) * ((x[1] + g.offset[1]) + double(g.cells[1]) * (x[2] + g.offset[2]));
    const int d = dir(l);
    const double ql = rule(l) == link_halfway ? 0.5 : double(q(l));
    mine.push_back(global * L::Q + d);
    mine.push_back(double(body(l) * L::Q + d));
    for (int e = 0; e < 3; ++e) mine.push_back(x[e] + g.offset[e] + ql * L::c(d, e));
  }
  const auto all = parallel::all_gather(mine);
  LinkOrder o;
  const std::size_t n = all.size() / per;
  o.order.resize(n);
  o.what.resize(n);
  o.wall.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    o.what[k] = int(all[per * k + 1]);
    for (std::size_t e = 0; e < 3; ++e) o.wall[k][e] = all[per * k + 2 + e];
  }
  std::iota(o.order.begin(), o.order.end(), std::size_t(0));
  std::sort(o.order.begin(), o.order.end(),
            [&](std::size_t a, std::size_t b) { return all[per * a] < all[per * b]; });
  return o;
}

// The force and the moment about `center[b]` (global cell coordinates) on
// each body b (lattice units): over every rank's links (m: link_momenta)
// in the one-rank order (link_order), F = sum c_d m and M = sum (w - center)
// x c_d m, w the link's wall point.  Collective.
struct BodyLoad {
  std::array<double, 3> force{}, moment{};
};
template <class L, class M>
std::vector<BodyLoad> body_forces(const LinkOrder& o, const M& m,
                                  const std::vector<std::array<double, 3>>& center) {
  const auto all = parallel::all_gather(std::vector<double>(m.data(), m.data() + m.extent(0)));
  std::vector<BodyLoad> f(center.size());
  for (const std::size_t l : o.order) {
    const int w = o.what[l], d = w % L::Q;
    auto& b = f[std::size_t(w / L::Q)];
    double fl[3], r[3];
    for (int e = 0; e < 3; ++e) {
      fl[e] = L::c(d, e) * all[l];
      b.force[std::size_t(e)] += fl[e];
      r[e] = o.wall[l][std::size_t(e)] - center[std::size_t(w / L::Q)][std::size_t(e)];
    }
    b.moment[0] += r[1] * fl[2] - r[2] * fl[1];
    b.moment[1] += r[2] * fl[0] - r[0] * fl[2];
    b.moment[2] += r[0] * fl[1] - r[1] * fl[0];
  }
  return f;
}

}  // namespace kflow::lbm
