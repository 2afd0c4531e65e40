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
// a step.  For a body at rest this is Wen et al.'s (2014) Galilean-invariant
// form, whose wall-velocity terms vanish.

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

#include "lbm_geometry.hpp"
#include "lbm_kernels.hpp"
#include "lbm_step.hpp"

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
      int y[3];
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

// The force on body b (lattice units) that the next step's links exchange.
template <class L, class Real, class ExecSpace, class Pops, class Links>
void body_force(const ExecSpace& space, const Pops& a, const Geometry<Real>& g, const Links& links,
                Layout layout, int b, double force[3]) {
  force[0] = force[1] = force[2] = 0;
  if (links.count == 0) return;
  const BodyWall<L, Real, Pops, Links> w{a, g, links, layout};
  Kokkos::parallel_reduce(
      "kflow::lbm::body_force",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, links.count),
      KOKKOS_LAMBDA(int l, double& fx, double& fy, double& fz) {
        if (links.body(l) != b) return;
        int x[3], idx, d;
        Real fd, v;
        w.value(l, x, idx, d, fd, v);
        const double m = double(fd) + double(v);
        fx += L::c(d, 0) * m;
        fy += L::c(d, 1) * m;
        fz += L::c(d, 2) * m;
      },
      force[0], force[1], force[2]);
}

// The solid flag (body id + 1) of every stored cell of the block from the
// geometry layer's flags (cells, no ghosts) into `solid`; the count.
template <class ExecSpace, class Flags, class Real, class Solid>
double solid_cells(const ExecSpace& space, const Flags& flags, const Geometry<Real>& g,
                   Solid& solid, std::size_t stored) {
  solid = Solid("kflow::lbm::solid", stored);
  const auto s = solid;
  double count = 0;
  Kokkos::parallel_reduce(
      "kflow::lbm::solid_cells",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space, 0, g.n[0] * g.n[1] * g.n[2]),
      KOKKOS_LAMBDA(int m, double& c) {
        int x[3];
        coords(m, g.n, x);
        const unsigned char id = flags(x[0], x[1], x[2]);
        s(g.index(x)) = id;
        c += id != 0;
      },
      count);
  return count;
}

// The body links from the geometry layer's (nodes: the block's cells), each
// with its rule: interpolated walls fall back to halfway bounce-back where q
// < 1/2 and x - c_d is not a fluid cell (counted in `fallbacks`).  g.solid
// set.
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
        const int m = gl.node(l), d = gl.dir(l);
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

}  // namespace kflow::lbm
