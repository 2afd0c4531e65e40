#pragma once
// Small mac2d cases and a field difference, shared by test_mac2d.cpp and
// test_mac2d_solvers.cpp.

#include <algorithm>
#include <cmath>
#include <vector>

namespace kflow::test::mac2d_cases {

// max |a[i] - b[i]| over two fields' values (same layout).
inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

// Taylor-Green vortex u = sin x cos y, v = -cos x sin y on [0, 2 pi]^2,
// decaying as exp(-2 t / Re).  Re = 10 so that the diffusive limit sets dt
// (dt ~ h^2: the first-order time error falls as fast as the spatial one);
// gamma = 0 (central differences; donor-cell is first order).
inline const char* const taylor_green = R"([case]
model = "mac2d"
[grid]
cells = [16, 16]
length = [6.283185307179586, 6.283185307179586]
[physics]
reynolds = 10.0
gamma = 0.0
[boundary]
west = "periodic"
east = "periodic"
south = "periodic"
north = "periodic"
[initial]
type = "taylor_green"
[solver.pressure]
tolerance = 1e-10
max_iterations = 20000
[time]
end = 1.0
safety_factor = 0.5
)";

// Channel [0, 4] x [0, 1], uniform inflow u = 1, outflow east; the
// developed profile is u = 6 y (1 - y) (mean 1).
inline const char* const poiseuille = R"([case]
model = "mac2d"
[grid]
cells = [64, 40]
length = [4.0, 1.0]
[physics]
reynolds = 10.0
gamma = 0.0
[boundary]
west = { type = "inflow", velocity = 1.0 }
east = "outflow"
south = "no_slip"
north = "no_slip"
[initial]
velocity = [1.0, 0.0]
[solver.pressure]
tolerance = 1e-8
max_iterations = 20000
omega = 1.8
[time]
end = 4.0
safety_factor = 0.8
)";

inline const char* const cavity = R"([case]
model = "mac2d"
[grid]
cells = [30, 30]
[physics]
reynolds = 1000.0
gamma = 0.9
[boundary]
north = { type = "moving_wall", velocity = 1.0 }
[solver.pressure]
tolerance = 1e-6
check_every = 5
[time]
end = 1.0
safety_factor = 0.5
)";

}  // namespace kflow::test::mac2d_cases
