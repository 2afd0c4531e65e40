#pragma once
// Small lbm cases with bodies, inflow and outflow, shared by the CPU tests
// (test_lbm_bodies.cpp) and the CUDA = OpenMP tests (test_gpu.cpp), which
// change them with --set overrides.

namespace kflow::test::lbm_cases {

// A small channel with a cylinder, an inflow and an outflow (a few steps).
inline const char* const channel = R"([case]
model = "lbm"
[grid]
cells = [60, 21]
length = [2.857142857142857, 1.0]
[lattice]
collision = "trt"
velocity = 0.05
[physics]
reynolds = 20.0
velocity = 1.0
length = 0.5
[boundary]
west = { type = "inflow", profile = "parabolic", max_velocity = 1.5 }
east = "outflow"
[[body]]
shape = "circle"
center = [0.8, 0.52]
radius = 0.25
[analysis]
pressure_probes = [0.45, 0.52, 1.15, 0.52]
[time]
steps = 40
[output]
fields = ["velocity", "density", "flags"]
)";

// The same in 3D: a sphere in a duct with a parabolic inflow (12 steps).
inline const char* const duct = R"([case]
model = "lbm"
[grid]
cells = [24, 12, 12]
length = [2.0, 1.0, 1.0]
[lattice]
collision = "trt"
velocity = 0.05
[physics]
reynolds = 10.0
[boundary]
west = { type = "inflow", profile = "parabolic", max_velocity = 2.0 }
east = "outflow"
[[body]]
shape = "sphere"
center = [0.7, 0.45, 0.52]
radius = 0.27
[time]
steps = 12
[output]
fields = ["velocity", "density"]
)";

}  // namespace kflow::test::lbm_cases
