#pragma once
// Exact solutions that cases and tests share (one copy of each formula).
//
// Fully developed laminar flow in a rectangular duct -a < y < a, -b < z < b,
// driven by the pressure gradient (or body force per unit mass) g along the
// duct, kinematic viscosity nu (White, Viscous Fluid Flow, 3rd ed., Eq. 3-48):
//
//   u(y, z) = 16 a^2 g / (nu pi^3) sum_{i odd} (-1)^((i-1)/2)
//             [1 - cosh(i pi z / 2a) / cosh(i pi b / 2a)] cos(i pi y / 2a) / i^3
//
// y and z from the duct's centre line.  The terms fall as 1/i^3: `terms`
// odd terms leave a tail below 1/(2 terms^2) of the leading factor (at the
// centre the series alternates and the tail is below the first term left out).

#include <cmath>

namespace kflow::exact {

inline double duct_velocity(double y, double z, double a, double b, double g, double nu,
                            long terms = 20000) {
  const double pi = 3.14159265358979323846;
  double sum = 0;
  for (long m = 0; m < terms; ++m) {
    const double i = 2.0 * m + 1, k = i * pi / (2 * a);
    // cosh(k z) / cosh(k b) without overflow (|z| <= b)
    const double ratio = (std::exp(k * (std::fabs(z) - b)) + std::exp(-k * (std::fabs(z) + b))) /
                         (1 + std::exp(-2 * k * b));
    sum += (m % 2 == 0 ? 1.0 : -1.0) * (1 - ratio) * std::cos(k * y) / (i * i * i);
  }
  return 16 * a * a * g / (nu * pi * pi * pi) * sum;
}

}  // namespace kflow::exact
