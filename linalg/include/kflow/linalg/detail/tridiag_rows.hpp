#pragma once
// The row algebra every tridiagonal method shares (tridiag.hpp): rows and
// their elimination, pivot checks, the partition method's chunk reduction
// (reduce_chunk, also run on registers by the register kernels), and the
// checks, workspace and pivot flag of a batched solve.

#include <Kokkos_Core.hpp>

#include <climits>
#include <stdexcept>
#include <string>

#include "kflow/linalg/tridiag_shape.hpp"

namespace kflow::linalg::detail {

template <class Real>
struct Row {
  Real a, b, c, d;
};

// A pivot is bad when it is zero or NaN.
template <class Real>
KOKKOS_INLINE_FUNCTION bool bad_pivot(Real p) {
  return !(Kokkos::fabs(p) > Real(0));
}

template <class Flag>
KOKKOS_INLINE_FUNCTION void flag_system(const Flag& flag, long m) {
  Kokkos::atomic_min(&flag(), m);
}

// The step of CR and PCR: row r combined with the row lo it couples to
// through r.a and the row hi it couples to through r.c (each when present),
// so that the result no longer contains their diagonal unknowns; it couples
// to lo's and hi's outer neighbours instead.  Sets `bad` on a bad pivot.
template <class Real>
KOKKOS_INLINE_FUNCTION Row<Real> eliminate(const Row<Real>& r, const Row<Real>& lo, bool has_lo,
                                           const Row<Real>& hi, bool has_hi, bool& bad) {
  Row<Real> o{Real(0), r.b, Real(0), r.d};
  if (has_lo) {
    bad |= bad_pivot(lo.b);
    const Real k1 = r.a / lo.b;
    o.a = -lo.a * k1;
    o.b -= lo.c * k1;
    o.d -= lo.d * k1;
  }
  if (has_hi) {
    bad |= bad_pivot(hi.b);
    const Real k2 = r.c / hi.b;
    o.c = -hi.c * k2;
    o.b -= hi.a * k2;
    o.d -= hi.d * k2;
  }
  return o;
}

template <class ExecSpace, class Real>
using ScratchView = Kokkos::View<Real*, typename ExecSpace::scratch_memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// The row steps of reduce_chunk, on values (the register kernels run them on
// rows as they arrive).  (qa, qc, qd): the neighbour row already reduced.
// Rows s and s + 1: divided by their diagonal b.
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_normalise(Real b, Real& a, Real& c, Real& d, bool& bad) {
  bad |= bad_pivot(b);
  const Real r = Real(1) / b;
  a *= r;
  c *= r;
  d *= r;
}
// Rows s + 2 .. e: x_{i-1} eliminated with row i - 1 (a becomes the
// coefficient of x_s).
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_forward(Real qa, Real qc, Real qd, Real b, Real& a, Real& c,
                                          Real& d, bool& bad) {
  const Real ai = a, piv = b - ai * qc;
  bad |= bad_pivot(piv);
  const Real r = Real(1) / piv;
  a = -ai * qa * r;
  c *= r;
  d = (d - ai * qd) * r;
}
// Rows e - 2 .. s + 1: x_{i+1} eliminated with row i + 1 (c becomes the
// coefficient of x_e).
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_backward(Real qa, Real qc, Real qd, Real& a, Real& c, Real& d) {
  const Real ci = c;
  d -= ci * qd;
  a -= ci * qa;
  c = -ci * qc;
}
// Row s: x_{s+1} eliminated with row s + 1.
template <class Real>
KOKKOS_INLINE_FUNCTION void chunk_first(Real qa, Real qc, Real qd, Real& a, Real& c, Real& d,
                                        bool& bad) {
  const Real cs = c, piv = Real(1) - cs * qa;
  bad |= bad_pivot(piv);
  const Real r = Real(1) / piv;
  a *= r;
  c = -cs * qc * r;
  d = (d - cs * qd) * r;
}

// Reduces the rows s..e (e > s) of (sa, sb, sc, sd) -- slot of row i: map(i) --
// to the form
//   aa_s x_{s-1} + x_s + cc_s x_e     = dd_s
//   aa_i x_s     + x_i + cc_i x_e     = dd_i   (s < i < e)
//   aa_e x_s     + x_e + cc_e x_{e+1} = dd_e
// in place (aa in sa, cc in sc, dd in sd; sb is left as it was): a forward
// elimination of x_{i-1} with normalised rows, then a backward one of x_{i+1}
// (the "modified Thomas" step of the partition method).  Returns whether a
// pivot was bad.
template <class S, class Map>
KOKKOS_INLINE_FUNCTION bool reduce_chunk(const S& sa, const S& sb, const S& sc, const S& sd, int s,
                                         int e, Map map) {
  bool bad = false;
  for (int i = s; i <= s + 1; ++i) {
    const int p = map(i);
    chunk_normalise(sb(p), sa(p), sc(p), sd(p), bad);
  }
  for (int i = s + 2; i <= e; ++i) {
    const int p = map(i), q = map(i - 1);
    chunk_forward(sa(q), sc(q), sd(q), sb(p), sa(p), sc(p), sd(p), bad);
  }
  for (int i = e - 2; i > s; --i) {
    const int p = map(i), q = map(i + 1);
    chunk_backward(sa(q), sc(q), sd(q), sa(p), sc(p), sd(p));
  }
  if (e > s + 1) {
    const int ps = map(s), q = map(s + 1);
    chunk_first(sa(q), sc(q), sd(q), sa(ps), sc(ps), sd(ps), bad);
  }
  return bad;
}

// Rows s..e in reduce_chunk's form, with x_s and x_e known: every x_i into sd.
template <class S, class Map>
KOKKOS_INLINE_FUNCTION void chunk_solution(const S& sa, const S& sc, const S& sd, int s, int e,
                                           typename S::value_type xs, typename S::value_type xe,
                                           Map map) {
  for (int i = s + 1; i < e; ++i) {
    const int p = map(i);
    sd(p) = sd(p) - sa(p) * xs - sc(p) * xe;
  }
  sd(map(s)) = xs;
  sd(map(e)) = xe;
}

struct IdMap {
  KOKKOS_INLINE_FUNCTION int operator()(int i) const { return i; }
};

// The pivot flag of a solve: the first system that met a zero or NaN pivot
// (LONG_MAX: none), reduced on the device with atomic_min.
template <class ExecSpace>
class PivotFlag {
 public:
  using View = Kokkos::View<long, typename ExecSpace::memory_space>;
  explicit PivotFlag(const ExecSpace& space)
      : space_(space), flag_(Kokkos::view_alloc(space, "kflow::tridiag::flag")) {}
  const View& view() const { return flag_; }
  void reset() { Kokkos::deep_copy(space_, flag_, LONG_MAX); }
  // Throws ZeroPivot naming the first bad system, if any (waits for the solve).
  void check(const char* method, long n) const {
    long first = LONG_MAX;
    space_.fence("kflow::linalg::tridiag::check");
    Kokkos::deep_copy(first, flag_);
    if (first != LONG_MAX) throw ZeroPivot(method, first, n);
  }

 private:
  ExecSpace space_;
  View flag_;
};

// Throws std::invalid_argument unless the shape is valid and every array spans it.
template <class... V>
void validate(const TridiagShape& sh, const V&... arrays) {
  if (sh.n < 1 || sh.count[0] < 0 || sh.count[1] < 0 || sh.count[2] < 0 || sh.stride < 0 ||
      sh.system_stride[0] < 0 || sh.system_stride[1] < 0 || sh.system_stride[2] < 0 ||
      sh.offset < 0)
    throw std::invalid_argument(
        "tridiag: n must be >= 1 and counts and strides >= 0 (n = " + std::to_string(sh.n) + ")");
  const long span = sh.span();
  for (long s : {long(arrays.extent(0))...})
    if (s < span)
      throw std::invalid_argument("tridiag: an array holds " + std::to_string(s) +
                                  " values, the shape needs " + std::to_string(span));
}

// Grows a workspace to at least `size` values (contents not kept).
template <class ExecSpace, class Array>
void grow(const ExecSpace& space, Array& w, long size) {
  if (long(w.extent(0)) < size)
    w = Array(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "kflow::tridiag::ws"), size);
}

}  // namespace kflow::linalg::detail
