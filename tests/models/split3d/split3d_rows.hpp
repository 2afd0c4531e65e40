#pragma once
// The rows split3d's sweeps build in their Thomas solve (LineRows), stored
// for the tests: a, b, c into arrays and d into x, so that one direction's
// rows can be checked against the discrete operator and solved apart
// (Tridiag::solve, solve_cyclic).

#include <Kokkos_Core.hpp>

#include "kflow/linalg/field.hpp"
#include "split3d_kernels.hpp"

namespace kflow::split3d {

// The rows of every line of direction dir stored: a, b, c into their arrays,
// d into x (the solve's right-hand side and solution, in place).
template <class ExecSpace, class Real, class Mem>
void assemble(const ExecSpace& space, const Params<Real>& p, int dir, int var,
              const Vars<Real, Mem>& nl, const linalg::Field3<Real, Mem>& in,
              const Mask<Mem>& solid, const Flat<Real, Mem>& a, const Flat<Real, Mem>& b,
              const Flat<Real, Mem>& c, const linalg::Field3<Real, Mem>& x) {
  Vars<Real, Mem> ins;
  ins.q[var] = in;
  const LineRows<Real, Mem> rows(p, dir, nl, ins, solid);
  const int e0 = p.e[0], e1 = p.e[1];
  int lo[3], hi[3];
  line_box(p, dir, lo, hi);
  linalg::box_for(
      space, "kflow::tests::split3d_rows", lo, hi, KOKKOS_LAMBDA(int i, int j, int k) {
        const long m = i + long(e0) * (j + long(e1) * k);
        const auto r = rows.at(var, i, j, k);
        a(m) = r.a, b(m) = r.b, c(m) = r.c;
        x(i, j, k) = r.d;
      });
}

}  // namespace kflow::split3d
