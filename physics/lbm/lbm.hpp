#pragma once
// physics/lbm: lattice Boltzmann method (Sepka Júnior 2015, the waLBerla
// GPU extension), D2Q9, D3Q19 and D3Q27.
//
// Method.  Populations f_i on the cells of the grid (no ghost layer on one
// rank: the walls lie half a cell outside the first and last cell, "halfway"
// bounce-back; on several ranks each block has one ghost layer that holds
// its neighbours' populations, docs/distributed.md).  One fused kernel per step: pull (stream on
// read), moments, collision, write.  Collision: BGK (single relaxation time, as in the paper) or
// TRT (two relaxation times, Ginzburg 2005, with the "magic" parameter Lambda = (1/w+ - 1/2)(1/w- -
// 1/2), default 3/16, which puts the bounce-back wall exactly halfway for Poiseuille flow
// independently of the viscosity; BGK's wall position depends on tau).  Equilibrium: the standard
// second-order compressible form w_i rho (1 + 3 c.u + 4.5 (c.u)^2 - 1.5 u.u)
// (the paper's Eq. 2.17 prints malformed c_s factors; this is the intended
// form).  TRT's antisymmetric part is (f_i - f_-i)/2 (the paper's Eq. 2.28
// prints a plus).  Body force: Guo et al. (2002) forcing, split into its
// symmetric and antisymmetric parts for TRT.
//
// Streaming (lattice.streaming): "two_grid" is the paper's A-B pull scheme
// (src -> dst, swap); "in_place" is the AA pattern of Bailey et al. (2009),
// one array, alternating a "local" step (read and write the cell's own
// slots, swapped) and a "stream" step (gather from the neighbours, scatter
// to them).  Both perform the same floating-point operations on the same
// values, so they give bit-identical fields (tested).
//
// Boundaries per side: "periodic", "no_slip" (halfway bounce-back),
// "moving_wall" (bounce-back with the Ladd correction 6 w_i rho0 c_i.u_w,
// the paper's simpleUBB, Eq. 2.19).  Decisions on the paper's open points:
//  - wall density in the moving-wall term: the reference density rho0 = 1,
//    not the neighbour's density from the previous step as in Listing 4.3
//    (the difference is of order Ma^2 * u_w; rho0 keeps the update local and
//    identical for both streaming schemes);
//  - a link that leaves the domain through an edge or corner (two or three
//    wall faces at once) takes wall velocity 0 if any of those faces is a
//    static wall (the lid's edges are no-slip), else the mean of the moving
//    faces' velocities;
//  - the Listing 4.2 typo (SE pulled from BW) does not arise: bounce-back is
//    written once for every direction from the opposite-direction table.
//
// Units.  The case gives physical quantities: Reynolds number Re, the
// characteristic speed U and length L (nu = U L / Re), grid and lengths
// (uniform spacing dx), wall velocities and the body force.  The lattice is
// fixed by either lattice.velocity (U in lattice units, default 0.1, as in
// the paper's cavity; then tau = 1/2 + 3 nu_lat) or lattice.tau (then
// U_lat = Re nu_lat / N_L).  Time: model time is physical time, and one
// step is one lattice step, dt = U_lat dx / U (Model::fixed_dt).
// Precision: run.precision = "double", "float", "float16s" or "float16c"
// (float arithmetic, each population stored in 16 bits as FluidX3D's FP16S
// and FP16C do: lbm_storage.hpp).
//
// Checks before the run (thresholds also in lbm.cpp):
//  error:   tau <= 0.5 (non-positive viscosity); lattice Mach number
//           Ma = u_max sqrt(3) > 0.6 (u_max the largest lattice speed of U
//           and the walls); grid Reynolds number u_max / nu_lat > 30;
//  warning: tau < 0.55; Ma > 0.3; u_max / nu_lat > 10.

#include <memory>
#include <string>
#include <vector>

#include <array>
#include <vector>

#include "kflow/geometry/body.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/field_table.hpp"
#include "kflow/model/model.hpp"

namespace kflow::lbm {

enum class Stencil { d2q9, d3q19, d3q27 };
// Sides: periodic, halfway bounce-back (no_slip), a moving wall (bounce-back with
// the Ladd term), a velocity inflow (the same, with a normal velocity and a
// profile: lbm_sides.hpp) and a pressure outflow (anti-bounce-back:
// lbm_outflow.hpp).
enum class Bc { periodic, no_slip, moving_wall, inflow, outflow };
// An outflow's condition: the side's density held, or carried out with the
// outgoing wave (lbm_outflow.hpp).
enum class OutflowKind { pressure, characteristic };
enum class Profile { uniform, parabolic, table };
// Walls on bodies (lbm_bodies.hpp): halfway bounce-back (staircase) or
// Bouzidi, Firdaouss & Lallemand's (2001) linear interpolation.
enum class Walls { bounce_back, interpolated };

// The output fields, in output order; conditional: w, on 3-D grids only.
enum class Field { density, velocity, u, v, w, vorticity_magnitude, flags };
inline constexpr std::array<FieldEntry<Field>, 7> field_table = {{
    {Field::density, "density"},
    {Field::velocity, "velocity", 3},
    {Field::u, "u"},
    {Field::v, "v"},
    {Field::w, "w", 1, true},
    {Field::vorticity_magnitude, "vorticity_magnitude"},
    {Field::flags, "flags"},
}};

struct Setup : ModelSetup {
  Stencil stencil = Stencil::d3q19;
  bool trt = false;
  double magic = 3.0 / 16.0;
  bool in_place = false;
  // Physical parameters.
  double reynolds = 100, velocity = 1, length = 1, viscosity = 0.01;
  double force[3] = {0, 0, 0};         // body force per unit mass (acceleration)
  Bc bc[3][2] = {};                    // [axis][0 low, 1 high]
  double wall_velocity[3][2][3] = {};  // moving wall; inflow (uniform, or the profile's peak)
  Profile profile[3][2] = {};          // inflow sides
  // A table inflow's velocity (physical) at the side's half-cell points
  // (lbm_inflow_table.hpp).
  std::vector<double> table[3][2];
  double ramp_time = 0;  // inflows rise as (1 - cos(pi t / T)) / 2 up to T
  // Bodies: ModelSetup::bodies ([[body]], kflow/model/case_geometry.hpp); their walls.
  Walls walls = Walls::interpolated;
  // Force coefficients c = 2 F / (rho0 U^2 A), A = L (2D, per unit depth) or
  // the area (3D); 0: not logged.
  double force_velocity = 0, force_length = 0, force_area = 0;
  // Moments c_m = 2 M / (rho0 U^2 A L) about each body's point (physical;
  // forces.moment_center, or the body's bounding-box centre).
  std::vector<std::array<double, 3>> moment_centers;
  std::vector<double> probes;  // analysis.pressure_probes: two points, delta_p = p(a) - p(b)
  // Lattice parameters (derived).
  double dx = 1, dt = 1;  // physical cell size and time per lattice step
  double u_lat = 0.1, nu_lat = 0, tau = 1;
  double omega_plus = 1, omega_minus = 1;
  double force_lat[3] = {0, 0, 0};
  double wall_lat[3][2][3] = {};      // wall velocities in lattice units
  double outflow_density[3][2] = {};  // outflow sides: rho = 1 + 3 p (lattice units)
  OutflowKind outflow[3][2] = {};     // outflow sides: their condition (lbm_outflow.hpp)
  double outflow_sigma[3][2] = {};    // characteristic: the level's relaxation
  // Initial state.
  enum class Initial { rest, taylor_green };
  Initial initial = Initial::rest;  // initial.type
  int tg_modes[3] = {1, 1, 1};      // wavenumbers per axis (k_d = 2 pi m_d / length_d)

  // The velocity components on a wall (halfway bounce-back puts the walls on
  // the domain's sides): 0, or a moving wall's velocity.
  bool boundary_value(const std::string& field, int axis, int side, const double*,
                      double& value) const override {
    const int comp = field == "u" || field == "velocity" ? 0
                     : field == "v"                      ? 1
                     : field == "w"                      ? 2
                                                         : -1;
    const Bc b = bc[axis][side];
    if (comp < 0 || b == Bc::periodic || b == Bc::outflow) return false;
    if (b == Bc::inflow && profile[axis][side] != Profile::uniform) return false;
    value = b == Bc::moving_wall || b == Bc::inflow ? wall_velocity[axis][side][comp] : 0.0;
    return true;
  }
};

// Reads and checks the model's keys (lbm.cpp; also used by the benchmark).
std::unique_ptr<ModelSetup> parse_case(Config& c);

// One model per (backend, precision, velocity set): P is double, float,
// kflow::Float16s or kflow::Float16c (float arithmetic, 16-bit storage:
// lbm_storage.hpp), Q 9, 19 or 27.  Defined in lbm_impl.hpp and instantiated
// by CMake in one translation unit per (backend, precision, Q), so that the
// stencils compile side by side.
template <class ExecSpace, class P, int Q>
std::unique_ptr<Model> make_stencil(const ModelSetup& setup);

// The factory registered per (backend, precision) (cmake/KflowModel.cmake).
template <class ExecSpace, class P>
std::unique_ptr<Model> make_model(const ModelSetup& setup) {
  const auto stencil = static_cast<const Setup&>(setup).stencil;
  if (stencil == Stencil::d2q9) return make_stencil<ExecSpace, P, 9>(setup);
  if (stencil == Stencil::d3q19) return make_stencil<ExecSpace, P, 19>(setup);
  return make_stencil<ExecSpace, P, 27>(setup);
}

}  // namespace kflow::lbm
