#pragma once
// The flux limiter of the models' bounded second-order convection schemes
// (vorticity2d's and mac2d's `numerics.convection = "tvd"`): van Leer's,
// applied to the upwind value at a control-volume face.
//
// Van Leer's limiter psi(r) = (r + |r|) / (1 + |r|) is second order on
// smooth monotone data, symmetric (psi(r) / r = psi(1 / r)), and smooth for
// r > 0, so steady states converge without the limiter switching between
// branches (minmod and superbee are piecewise linear); it lies between
// minmod (the most diffusive TVD limiter) and superbee (the most
// compressive).  It is 0 at extrema: there the face value is the upwind one.

#include <Kokkos_Core.hpp>

namespace kflow::limiter {

// Van Leer's limited correction of an upwind face value, psi(r) b / 2 with
// r = a / b: ab / (a + b) for slopes of the same sign (a the upwind slope,
// b the downwind one), 0 otherwise.  It lies between 0 and min(a, b), so the
// face value stays between the upwind and downwind values.
template <class Real>
KOKKOS_INLINE_FUNCTION Real van_leer(Real a, Real b) {
  return a * b > 0 ? a * b / (a + b) : Real(0);
}

// The limited face value between the upwind value `up` and the downwind
// value `down`, with `far` the value one further upwind.
template <class Real>
KOKKOS_INLINE_FUNCTION Real face_value(Real far, Real up, Real down) {
  return up + van_leer(up - far, down - up);
}

}  // namespace kflow::limiter
