#pragma once
// physics/split3d: the kernels of one fractional step, apart from the model
// so that the tests build and solve single directions' rows with them.
//
// Fields hold every node, boundary nodes included: extents e[d] = n[d] + 2,
// LayoutLeft (x fastest, the paper's layout).  A direction's systems are its
// grid lines through the interior nodes of the other two directions; each
// line's first and last unknowns are the boundary nodes (Dirichlet or
// zero-gradient rows), the rows between are (Berezin et al. 2012, sec. 4)
//
//   a = -u~/(2h) - nu/h^2,  b = 1/tau + 2 nu/h^2,  c = u~/(2h) - nu/h^2,
//   d = f_in/tau + S,
//
// u~ the nonlinear layer's velocity along the direction; S the explicit
// sources from the nonlinear layer: -dT~/dx_d (+ body force) for the velocity
// component along d, ((gamma-1)/(gamma Re)) Phi_d for T, 0 otherwise.
//
// Along a periodic axis the lines are the n interior nodes as cyclic systems
// (Tridiag::start_rows_cyclic), every row an interior row whose a and c reach
// round the loop; nodes 0 and n + 1 are ghost copies of nodes n and 1, kept
// by `wrap` so that every explicit stencil (sources, Phi, the divergence)
// wraps too.

#include <Kokkos_Core.hpp>

#include <string>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/transpose.hpp"
#include "kflow/linalg/tridiag.hpp"

namespace kflow::split3d {

// Boundary rows per side and variable.
enum Row : int { dirichlet = 0, zero_gradient = 1 };

// What the kernels need, by value on the device.
template <class Real>
struct Params {
  int e[3] = {3, 3, 3};  // nodes per axis, boundary nodes included
  Real h[3] = {1, 1, 1};
  Real rh[3] = {Real(0.5), Real(0.5), Real(0.5)};  // 1/(2h): central differences multiply
  Real tau = 1;                                    // fractional step
  Real nu = 1, kappa = 1;                          // 1/Re, 1/(Re Pr)
  Real diss = 0;                                   // (gamma - 1)/(gamma Re)
  Real grad_t = 1;                                 // coefficient of -grad T (the code's v_T = 1)
  Real force[3] = {0, 0, 0};
  int row[6][4] = {};           // Row per side (2 axis + high) and variable (u, v, w, T)
  int periodic[3] = {0, 0, 0};  // 1: the axis is periodic (cyclic lines, ghost copies)
  // Node spacing along axis d (h and rh together).
  void spacing(int d, double hd) { h[d] = Real(hd), rh[d] = Real(0.5 / hd); }
};

// The four variables u, v, w, T (the state, the nonlinear layer, a fractional
// step's input or output).  make_vars puts them one after the other in one
// array, `all` (the fused sweep solves the four in one batch); elsewhere
// `all` may be empty.
template <class Real, class Mem>
struct Vars {
  linalg::Field3<Real, Mem> q[4];
  Kokkos::View<Real*, Mem> all;
};

template <class Real, class ExecSpace>
Vars<Real, typename ExecSpace::memory_space> make_vars(const ExecSpace& space,
                                                       const std::string& label,
                                                       const std::size_t (&e)[3]) {
  using Mem = typename ExecSpace::memory_space;
  Vars<Real, Mem> v;
  const std::size_t span = e[0] * e[1] * e[2];
  v.all = Kokkos::View<Real*, Mem>(Kokkos::view_alloc(space, label), 4 * span);
  for (int q = 0; q < 4; ++q)  // unmanaged views into `all` (which owns the memory)
    v.q[q] = linalg::Field3<Real, Mem>(v.all.data() + q * span, e[0], e[1], e[2]);
  return v;
}

template <class Real, class ExecSpace>
Vars<Real, typename ExecSpace::memory_space> make_vars(const ExecSpace& space,
                                                       const std::string& label,
                                                       const linalg::Grid& g) {
  const std::size_t e[3] = {std::size_t(g.extent(0)), std::size_t(g.extent(1)),
                            std::size_t(g.extent(2))};
  return make_vars<Real>(space, label, e);
}

// The same problem with the x and y axes exchanged, u and v with them:
// direction X of p is direction Y of swap_xy(p).  X's lines, contiguous in
// memory and so uncoalesced for one GPU thread a line, become strided lines
// that consecutive threads read coalesced (the transposed mapping,
// docs/models/split3d.md, "Assembly").
template <class Real>
Params<Real> swap_xy(const Params<Real>& p) {
  Params<Real> t = p;
  const int ax[3] = {1, 0, 2}, var[4] = {1, 0, 2, 3};
  for (int d = 0; d < 3; ++d) {
    t.e[d] = p.e[ax[d]], t.h[d] = p.h[ax[d]], t.rh[d] = p.rh[ax[d]];
    t.force[d] = p.force[ax[d]], t.periodic[d] = p.periodic[ax[d]];
  }
  for (int side = 0; side < 6; ++side)
    for (int q = 0; q < 4; ++q) t.row[side][q] = p.row[2 * ax[side / 2] + side % 2][var[q]];
  return t;
}

// dst = src in the exchanged frame (dst's u is src's v transposed, and so
// on); the same call maps back.  The four fields in one launch.
template <class ExecSpace, class Real, class Mem>
void swap_xy(const ExecSpace& space, const Vars<Real, Mem>& src, const Vars<Real, Mem>& dst) {
  using A = Kokkos::Array<linalg::Field3<Real, Mem>, 4>;
  linalg::transpose_xy(space, A{src.q[1], src.q[0], src.q[2], src.q[3]},
                       A{dst.q[0], dst.q[1], dst.q[2], dst.q[3]});
}

// The same into dst and also (src read once).
template <class ExecSpace, class Real, class Mem>
void swap_xy(const ExecSpace& space, const Vars<Real, Mem>& src, const Vars<Real, Mem>& dst,
             const Vars<Real, Mem>& also) {
  using A = Kokkos::Array<linalg::Field3<Real, Mem>, 4>;
  linalg::transpose_xy(space, A{src.q[1], src.q[0], src.q[2], src.q[3]},
                       A{dst.q[0], dst.q[1], dst.q[2], dst.q[3]},
                       A{also.q[0], also.q[1], also.q[2], also.q[3]});
}

template <class Real, class Mem>
using Flat = Kokkos::View<Real*, Mem>;

// Per node a Solid value (split3d.hpp: 0 fluid, 1 fixed temperature, 2
// adiabatic); an empty View when there are no obstacles.
template <class Mem>
using Mask = Kokkos::View<unsigned char***, Kokkos::LayoutLeft, Mem>;

// A field's storage as one array (the index space of the TridiagShape).
template <class F>
Flat<typename F::value_type, typename F::memory_space> flat(const F& f) {
  return Flat<typename F::value_type, typename F::memory_space>(f.data(), f.span());
}

// The systems of direction dir: every node along it (a periodic axis: the n
// interior nodes, a cyclic system), the interior nodes of the other two
// directions.
template <class Real>
linalg::TridiagShape line_systems(const Params<Real>& p, int dir) {
  const long e[3] = {p.e[0], p.e[1], p.e[2]}, st[3] = {1, e[0], e[0] * e[1]};
  linalg::TridiagShape s;
  s.n = p.periodic[dir] ? e[dir] - 2 : e[dir];
  s.stride = st[dir];
  if (p.periodic[dir]) s.offset = st[dir];
  int slot = 0;
  for (int d = 0; d < 3; ++d) {
    if (d == dir) continue;
    s.offset += st[d];
    s.count[slot] = e[d] - 2;
    s.system_stride[slot] = st[d];
    ++slot;
  }
  return s;
}

// Variables first .. first + count - 1 of a batch of the four (Vars::all:
// the systems' third count the variable, system_stride[2] the span).
inline linalg::TridiagShape vars_of(linalg::TridiagShape sh, int first, int count) {
  sh.offset += first * sh.system_stride[2];
  sh.count[2] = count;
  return sh;
}

// The box of nodes direction dir solves for: lo <= (i, j, k) < hi.
template <class Real>
void line_box(const Params<Real>& p, int dir, int (&lo)[3], int (&hi)[3]) {
  for (int d = 0; d < 3; ++d) lo[d] = 1, hi[d] = p.e[d] - 1;
  if (!p.periodic[dir]) lo[dir] = 0, hi[dir] = p.e[dir];
}

// The interior nodes.
template <class Real>
void interior_box(const Params<Real>& p, int (&lo)[3], int (&hi)[3]) {
  for (int d = 0; d < 3; ++d) lo[d] = 1, hi[d] = p.e[d] - 1;
}

// Central difference of f along axis ax at node (i, j, k); rh = 1/(2h)
// (a product, not a division: the T rows take nine of them).
template <class Real, class F>
KOKKOS_INLINE_FUNCTION Real ddx(const F& f, int ax, Real rh, int i, int j, int k) {
  const int di = ax == 0, dj = ax == 1, dk = ax == 2;
  return (f(i + di, j + dj, k + dk) - f(i - di, j - dj, k - dk)) * rh;
}

// The dissipation function's part of direction d (Berezin et al. 2012, sec. 3):
//   Phi_d = sum_c (d_d u_c)^2 + (d_d u_d)^2 + sum_{e != d} (d_e u_d)(d_d u_e),
// e.g. Phi_x = 2 u_x^2 + v_x^2 + w_x^2 + u_y v_x + u_z w_x; at the node of
// flat index m, off[a] the flat distance of neighbours along axis a (central
// differences as ddx).
template <class Real, class Mem>
KOKKOS_INLINE_FUNCTION Real phi(const Params<Real>& p, const Vars<Real, Mem>& nl,
                                const int (&off)[3], int d, long m) {
  auto dd = [&](int c, int a) {  // d_a u_c
    const Real* q = nl.q[c].data();
    return (q[m + off[a]] - q[m - off[a]]) * p.rh[a];
  };
  Real r = 0;
  for (int c = 0; c < 3; ++c) {
    const Real g = dd(c, d);
    r += g * g;
    if (c == d)
      r += g * g;
    else
      r += dd(d, c) * g;
  }
  return r;
}

// Rows of variable q (0..2 velocity, 3 temperature) in direction dir, from
// the nonlinear layer nl and the step's input in.  A node inside an obstacle
// is an identity row keeping its value: the fluid rows beside it see a
// Dirichlet wall, so a line through obstacles is its fluid segments, each
// with Dirichlet ends, in one system of the batch (a cyclic one along a
// periodic axis: the identity rows cut the loop into segments, the one
// across the seam included).  T on an adiabatic obstacle's node beside fluid
// along dir is the zero-gradient row f_s - f_fluid = 0 (at most one fluid
// neighbour per line: parsing refuses thinner obstacles).
//
// at(q, i, j, k) is the row of variable q at node (i, j, k); line(f, st) the
// rows of the line from flat index f along dir, variable q's nodes at q span
// + node (Tridiag::solve_rows' row source: the assembly fused into the solve
// of the variables in one batch, Vars::all or a part of it; f is decomposed
// once a line).  Flat indices are ints: the model refuses 4 (n+2)^3 >= 2^31.
// Part narrows a batch to the velocity or the temperature rows at compile
// time, so that the fused sweep launches the two apart: a GPU kernel runs at
// the occupancy of its largest path, and the T rows (the dissipation's nine
// differences) need more registers than the velocity rows.
enum class RowPart { all, velocity, temperature };

// Walls at the bodies' true surface (numerics.body_walls = "interpolated"):
// a sweep's mask marks with cut_node the fluid nodes that have a body's
// node beside them along the sweep's direction, and Cut holds, per node of
// the sweep's frame, the wall's distance below and above along that
// direction in node spacings (the geometry layer's link fraction q; 1
// where no wall cuts the link).  Such a node's row is the three-point
// difference on the unequal spacings q_lo h, q_hi h (Shortley & Weller
// 1938), the wall's value at the body's node: second order in the wall's
// position where the staircase is first.
constexpr unsigned char cut_node = 4;
template <class Mem>
struct Cut {
  Kokkos::View<float*, Mem> lo, hi;  // empty: no cut rows
};

template <class Real, class Mem, RowPart Part = RowPart::all>
struct LineRows {
  using Row = linalg::TridiagRow<Real>;
  Params<Real> p;
  int dir;
  Vars<Real, Mem> nl, in;
  Mask<Mem> solid;  // empty without obstacles; cut_node marks cut rows
  Cut<Mem> cut;
  int span;    // nodes per variable (line(): variable q's lines start at q span)
  int off[3];  // flat distance of neighbours along each axis
  int lo_row[4], hi_row[4], last;
  Real cd[2], cu, bb[2], rt, src[4];  // [0] velocity, [1] temperature
  bool masked, wraps;

  LineRows(const Params<Real>& p_, int dir_, const Vars<Real, Mem>& nl_, const Vars<Real, Mem>& in_,
           const Mask<Mem>& solid_, const Cut<Mem>& cut_ = {})
      : p(p_), dir(dir_), nl(nl_), in(in_), solid(solid_), cut(cut_) {
    span = p.e[0] * p.e[1] * p.e[2];
    off[0] = 1, off[1] = p.e[0], off[2] = p.e[0] * p.e[1];
    for (int q = 0; q < 4; ++q) {
      lo_row[q] = p.row[2 * dir][q], hi_row[q] = p.row[2 * dir + 1][q];
      src[q] = 0;
    }
    src[dir] = p.force[dir];  // the body force acts on the velocity along dir
    last = p.e[dir] - 1;
    const Real h = p.h[dir];
    for (int t = 0; t < 2; ++t) {
      cd[t] = (t ? p.kappa : p.nu) / (h * h);
      bb[t] = 1 / p.tau + 2 * cd[t];
    }
    cu = p.rh[dir], rt = 1 / p.tau;
    masked = solid.data() != nullptr, wraps = p.periodic[dir] != 0;
  }

  KOKKOS_INLINE_FUNCTION static constexpr bool temp_of(int var) {  // T's row
    return Part == RowPart::temperature || (Part == RowPart::all && var == 3);
  }

  KOKKOS_INLINE_FUNCTION Row at(int var, int i, int j, int k) const {
    const unsigned char here = masked ? solid(i, j, k) : 0;
    if (here & 3) {
      Row r{0, 1, 0, in.q[var](i, j, k)};
      if (temp_of(var) && (here & 3) == 2) {  // adiabatic (docs/models/split3d.md)
        const int di = dir == 0, dj = dir == 1, dk = dir == 2;
        const int at = dir == 0 ? i : dir == 1 ? j : k;
        // a neighbour is fluid when not solid and not a boundary node
        // (a periodic axis has none: its ghosts stand for nodes n and 1)
        const bool lo = (wraps || at - 1 > 0) && !(solid(i - di, j - dj, k - dk) & 3);
        const bool hi = (wraps || at + 1 < last) && !(solid(i + di, j + dj, k + dk) & 3);
        if (lo)
          r.a = -1, r.d = 0;
        else if (hi)
          r.c = -1, r.d = 0;
      }
      return r;
    }
    const int at = dir == 0 ? i : dir == 1 ? j : k;
    if (at == 0 || at == last) {
      const int row = at == 0 ? lo_row[var] : hi_row[var];
      return Row{at == last && row == zero_gradient ? Real(-1) : Real(0), Real(1),
                 at == 0 && row == zero_gradient ? Real(-1) : Real(0),
                 row == dirichlet ? in.q[var](i, j, k) : Real(0)};
    }
    if (here & cut_node) return cut_row(var, i + off[1] * j + off[2] * k);
    return fluid(var, i + off[1] * j + off[2] * k);
  }

  // A fluid node's row with a wall at q_lo h below or q_hi h above it (Cut):
  // the convecting and diffusing differences on the three points -q_lo h,
  // 0, q_hi h, the wall's value held by the body's node.  An adiabatic
  // body's side stays uncut in T's row (its node's row is T's zero gradient).
  KOKKOS_INLINE_FUNCTION Row cut_row(int var, long m) const {
    Row r = fluid(var, m);
    const bool temp = temp_of(var);
    Real a = Real(cut.lo(m)), b = Real(cut.hi(m));
    if (temp && (solid.data()[m - off[dir]] & 3) == 2) a = 1;
    if (temp && (solid.data()[m + off[dir]] & 3) == 2) b = 1;
    const Real u = nl.q[dir].data()[m], c = cd[temp], s = a + b;
    r.a = -u * cu * (2 * b / (a * s)) - c * (2 / (a * s));
    r.b = rt + u * cu * (2 * (b - a) / (a * b)) + c * (2 / (a * b));
    r.c = u * cu * (2 * a / (b * s)) - c * (2 / (b * s));
    return r;
  }

  // The row of a fluid node off the line's ends, flat index m (every row
  // that is not a boundary or solid node's).
  KOKKOS_INLINE_FUNCTION Row fluid(int var, long m) const {
    const bool temp = temp_of(var);
    const int t = temp;
    const Real u = nl.q[dir].data()[m];
    Real s = src[var];
    if (!temp && var == dir) {
      const Real* tl = nl.q[3].data();
      s -= p.grad_t * ((tl[m + off[dir]] - tl[m - off[dir]]) * p.rh[dir]);  // ddx
    }
    if (temp && p.diss != 0) s += p.diss * phi(p, nl, off, dir, m);  // gamma = 1: none
    return Row{-u * cu - cd[t], bb[t], u * cu - cd[t], in.q[var].data()[m] * rt + s};
  }

  struct Line {
    const LineRows* r = nullptr;
    int var = 0, i = 0, j = 0, k = 0;
    KOKKOS_INLINE_FUNCTION Row operator()(long n) const {
      const int d = int(n);
      return r->at(var, i + (r->dir == 0) * d, j + (r->dir == 1) * d, k + (r->dir == 2) * d);
    }
  };
  KOKKOS_INLINE_FUNCTION Line line(long f, long) const {
    const int var = int(f / span), m = int(f - long(var) * span), q = m / p.e[0];
    return {this, var, m - q * p.e[0], q % p.e[1], q / p.e[1]};
  }

  // CPUs' lanes (linalg's thomas_lanes): the lines from f + l ls, one
  // variable, lanes along one axis; row k off the lines' ends is fluid() at
  // node m0 + l ls + k st, in a loop over l that vectorises (the rows beside
  // an obstacle too: a fluid node's row is fluid() in at() as well), but for
  // the lanes whose node is solid there (others()).
  struct Lanes {
    const LineRows* r = nullptr;
    Line first;     // lane 0
    int lane_axis;  // the axis the lanes step along
    long m0, ls, st;
    KOKKOS_INLINE_FUNCTION Row operator()(long k, int l) const {
      Line c = first;
      (lane_axis == 0 ? c.i : lane_axis == 1 ? c.j : c.k) += l;
      return c(k);
    }
    KOKKOS_INLINE_FUNCTION int others(long k, int w, int* lane) const {
      const int at = int(k) + (r->dir == 0 ? first.i : r->dir == 1 ? first.j : first.k);
      if (at <= 0 || at >= r->last) return -1;
      if (!r->masked) return 0;
      const unsigned char* s = r->solid.data() + m0 + k * st;  // the fields' flat index
      int any = 0;  // a loop that vectorises first: most rows have none
      for (int l = 0; l < w; ++l) any |= s[l * ls];
      if (any == 0) return 0;
      int no = 0;
      for (int l = 0; l < w; ++l)
        if (s[l * ls]) lane[no++] = l;
      return no;
    }
    KOKKOS_INLINE_FUNCTION Row plain_row(long k, int l) const {
      return r->fluid(first.var, m0 + l * ls + k * st);
    }
    // The fields the rows read: the input, the convecting velocity, T's
    // next row (its gradient), the velocity (Phi; its rows, not the
    // neighbouring lines).
    KOKKOS_INLINE_FUNCTION void prefetch(long kb, long ke, int w) const {
      const int var = first.var, dir = r->dir;
      auto rows = [&](const Real* q, long b, long e) {
        linalg::prefetch_lanes(q + m0, ls, st, w, b, e);
      };
      rows(r->in.q[var].data(), kb, ke);
      rows(r->nl.q[dir].data(), kb, ke);
      if (!temp_of(var) && var == dir)
        rows(r->nl.q[3].data(), kb + 1, ke + 1 < r->last ? ke + 1 : r->last);
      if (temp_of(var) && r->p.diss != 0)
        for (int c = 0; c < 3; ++c)
          if (c != dir) rows(r->nl.q[c].data(), kb, ke);
    }
  };
  KOKKOS_INLINE_FUNCTION Lanes lanes(long f, long ls, long st) const {
    const Line c = line(f, st);
    return {this, c, ls == 1 ? 0 : ls == off[1] ? 1 : 2, f - long(c.var) * span, ls, st};
  }
};

// The nodes of `in` that direction dir's sweep does not solve (outside
// line_box: the boundary faces of the other two axes, and a periodic dir's
// ghosts) copied into `out`; the sweep writes every other node.  Returns the
// nodes copied.  (A copy of whole fields moved 26 times these bytes at 192^3.)
template <class ExecSpace, class Real, class Mem>
long copy_unsolved(const ExecSpace& space, const Params<Real>& p, int dir,
                   const Vars<Real, Mem>& in, const Vars<Real, Mem>& out) {
  int lo[3], hi[3];
  line_box(p, dir, lo, hi);
  long nodes = 0;
  for (int ax = 0; ax < 3; ++ax) {
    if (lo[ax] == 0 && hi[ax] == p.e[ax]) continue;  // every node along ax solved
    const int t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2, last = p.e[ax] - 1;
    nodes += 2L * p.e[t1] * p.e[t2];
    Kokkos::parallel_for(
        "kflow::split3d::copy_unsolved",
        linalg::GridPolicy<ExecSpace, 2>(space, {0, 0}, {p.e[t1], p.e[t2]}),
        KOKKOS_LAMBDA(int r, int s) {
          int g[3];
          g[t1] = r, g[t2] = s;
          for (int side = 0; side < 2; ++side) {
            g[ax] = side ? last : 0;
            for (int q = 0; q < 4; ++q) out.q[q](g[0], g[1], g[2]) = in.q[q](g[0], g[1], g[2]);
          }
        });
  }
  return nodes;
}

// Periodic axes: nodes 0 and n + 1 of every field of v become copies of nodes
// n and 1 (axis by axis, whole faces, so edges and corners wrap in each).
template <class ExecSpace, class Real, class Mem>
void wrap(const ExecSpace& space, const Params<Real>& p, const Vars<Real, Mem>& v) {
  for (int ax = 0; ax < 3; ++ax) {
    if (!p.periodic[ax]) continue;
    const int t1 = ax == 0 ? 1 : 0, t2 = ax == 2 ? 1 : 2, n = p.e[ax] - 2;
    Kokkos::parallel_for(
        "kflow::split3d::wrap", linalg::GridPolicy<ExecSpace, 2>(space, {0, 0}, {p.e[t1], p.e[t2]}),
        KOKKOS_LAMBDA(int r, int s) {
          int g[3], f[3];
          g[t1] = f[t1] = r, g[t2] = f[t2] = s;
          for (int side = 0; side < 2; ++side) {
            g[ax] = side ? n + 1 : 0;
            f[ax] = side ? 1 : n;
            for (int q = 0; q < 4; ++q) v.q[q](g[0], g[1], g[2]) = v.q[q](f[0], f[1], f[2]);
          }
        });
  }
}

// The nonlinear layer after a local iteration, on the nodes direction dir
// solved for: relaxed u~ <- (u~ + out)/2 or Picard u~ <- out.  Returns (in
// `change`, asynchronously) max |out - u~| over the velocity components.
// A flat reduction on GPUs (linalg::box_reduce; an MDRange reduction launches
// few blocks: 25.6 against 6.2 ms a step at 192^3 in double on the H200,
// docs/performance.md, "Tuning choices").
template <class ExecSpace, class Real, class Mem>
void update(const ExecSpace& space, const Params<Real>& p, int dir, bool picard,
            const Vars<Real, Mem>& nl, const Vars<Real, Mem>& out,
            const Kokkos::View<Real, Mem>& change) {
  int lo[3], hi[3];
  line_box(p, dir, lo, hi);
  linalg::box_reduce(
      space, "kflow::split3d::update", lo, hi,
      KOKKOS_LAMBDA(int i, int j, int k, Real& mx) {
        // Every load before the first store: a store to nl may alias the next
        // variable's loads, so a GPU thread would wait out one variable's
        // loads after another (docs/performance.md, "Tuning choices": split3d's
        // layer update).
        Real o[4], n[4];
        for (int q = 0; q < 4; ++q) o[q] = nl.q[q](i, j, k), n[q] = out.q[q](i, j, k);
        for (int q = 0; q < 4; ++q) {
          // a comparison, not fmax: g++ calls libm's fmaxf there (as much
          // time as the rest of the update on CPUs); NaN ignored by both
          const Real d = Kokkos::fabs(n[q] - o[q]);
          if (q < 3 && d > mx) mx = d;
          nl.q[q](i, j, k) = picard ? n[q] : Real(0.5) * (o[q] + n[q]);
        }
      },
      Kokkos::Max<Real, Mem>(change));
}

// X solved in the exchanged frame (swap_xy), its last local iteration:
// update's layer update of nl_t from out_t (pt the exchanged frame's
// parameters, its direction 1 X), written straight into the model's frame
// on the way back: out = out_t and nl = the updated nl_t, both transposed.
// One kernel reads what the update and the two transpositions back would
// read, 16 fields' worth instead of their 28.  It gives no max |out - u~|:
// only a stopping rule reads X's change, and only that of an iteration it
// may end early, and a max reduction here cost more than the traffic saved
// (docs/performance.md, "Variants tried and dropped").
template <class Real>
struct UpdateBack {
  int lo[3], hi[3];
  bool picard;
  // in: out_t's and nl_t's values at (i, j, k) of the exchanged frame; out:
  // the model's out and nl
  KOKKOS_INLINE_FUNCTION void operator()(int, int i, int j, int k, const Real (&in)[2],
                                         Real (&out)[2]) const {
    const Real n = in[0], o = in[1];
    const bool solved =
        i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
    out[0] = n;
    out[1] = !solved ? o : picard ? n : Real(0.5) * (o + n);
  }
};

template <class ExecSpace, class Real, class Mem>
void update_back(const ExecSpace& space, const Params<Real>& pt, bool picard,
                 const Vars<Real, Mem>& nl_t, const Vars<Real, Mem>& out_t,
                 const Vars<Real, Mem>& nl, const Vars<Real, Mem>& out) {
  UpdateBack<Real> map{};
  line_box(pt, 1, map.lo, map.hi);
  map.picard = picard;
  using A = Kokkos::Array<linalg::Field3<Real, Mem>, 8>;
  // field f of the exchanged frame is the model's variable f (u and v
  // exchanged: swap_xy)
  linalg::transpose_map_xy<2, 2>(
      space, "kflow::split3d::update_back",
      A{out_t.q[1], out_t.q[0], out_t.q[2], out_t.q[3], nl_t.q[1], nl_t.q[0], nl_t.q[2], nl_t.q[3]},
      A{out.q[0], out.q[1], out.q[2], out.q[3], nl.q[0], nl.q[1], nl.q[2], nl.q[3]}, map);
}

// The divergence error as the authors' public code computes it: per
// interior node (i, j, k) the net flux out of the dual cell
// [i-1, i] x [j-1, j] x [k-1, k], each face's normal velocity the mean of its
// four corners; written per node into flux (0 elsewhere), and the mean of
// |flux| over the interior nodes returned.
// A functor, not a lambda: in the CUDA build the lambda version crashed in
// the unit test that calls divergence() directly (a host call through a null
// pointer, on every backend); a functor has no nvcc lambda wrapper.
template <class Real, class Mem>
struct DivergenceFlux {
  linalg::Field3<Real, Mem> u, v, w, flux;
  Real ax, ay, az;
  KOKKOS_INLINE_FUNCTION void operator()(int i, int j, int k, double& acc) const {
    Real fx = 0, fy = 0, fz = 0;
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c) {
        fx += u(i, j - b, k - c) - u(i - 1, j - b, k - c);
        fy += v(i - b, j, k - c) - v(i - b, j - 1, k - c);
        fz += w(i - b, j - c, k) - w(i - b, j - c, k - 1);
      }
    const Real f = ax * fx + ay * fy + az * fz;
    flux(i, j, k) = f;
    acc += Kokkos::fabs(double(f));
  }
};

template <class ExecSpace, class Real, class Mem>
double divergence(const ExecSpace& space, const Params<Real>& p, const Vars<Real, Mem>& s,
                  const linalg::Field3<Real, Mem>& flux) {
  const int e0 = p.e[0], e1 = p.e[1], e2 = p.e[2];
  const Real ax = p.h[1] * p.h[2] / 4, ay = p.h[0] * p.h[2] / 4, az = p.h[0] * p.h[1] / 4;
  Kokkos::deep_copy(space, flux, Real(0));
  double sum = 0;
  int lo[3], hi[3];
  interior_box(p, lo, hi);
  linalg::box_reduce(space, "kflow::split3d::divergence", lo, hi,
                     DivergenceFlux<Real, Mem>{s.q[0], s.q[1], s.q[2], flux, ax, ay, az},
                     Kokkos::Sum<double>(sum));
  return sum / (double(e0 - 2) * (e1 - 2) * (e2 - 2));
}

}  // namespace kflow::split3d
