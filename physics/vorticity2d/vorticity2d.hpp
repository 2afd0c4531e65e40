#pragma once
// physics/vorticity2d: 2D incompressible flow in the stream function and
// vorticity formulation with Boussinesq heat transport, as in the thesis of
// Baumann & Buran (TU Berlin 2010):
//
//   -lap psi = omega,   u = d psi/dy,  v = -d psi/dx
//   d omega/dt + c.grad omega = nu lap omega + C dT/dx      (C = beta g)
//   dT/dt + c.grad T = kappa lap T
//
// on a uniform grid of nx x ny interior nodes with a ring of boundary nodes at
// distance h (h = L / (n + 1)), the 5-point Laplacian, first-order upwind
// convection with face velocities from psi (or a TVD option), IMEX time
// stepping (implicit diffusion, explicit convection and buoyancy): three
// symmetric positive definite solves per step through linalg's solver
// interface.  Decisions on the thesis's typos and gaps: docs/models/vorticity2d.md.

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kflow/linalg/mg_options.hpp"
#include "kflow/linalg/solver.hpp"
#include "kflow/model/case_solver.hpp"
#include "kflow/model/field_table.hpp"
#include "kflow/model/model.hpp"

namespace kflow::vorticity2d {

// Sides in kflow's order: west, east, south, north (2 axis + high).
// An outflow is a zero normal gradient of psi, omega and T (the thesis
// prescribes an outflow velocity it does not give).
enum class Kind { wall, inflow, outflow };
enum class Profile { uniform, parabolic };
enum class Thermal { fixed, adiabatic };
// Boundary vorticity: the thesis's ghost-node rule (half of Thom's, first
// order), Thom's (first order) or Woods' (second order) formula.
enum class WallVorticity { thesis, thom, woods };

// The wall vorticity lags the implicit diffusion by a step, which bounds the
// step: nu dt / h^2 <= this (measured, docs/models/vorticity2d.md: the next
// 20 % up diverge on the Ra = 1e3 cavity; the stronger the formula's
// feedback, the smaller).
inline double wall_vorticity_limit(WallVorticity w) {
  return w == WallVorticity::woods ? 0.75 : w == WallVorticity::thom ? 1.5 : 4.0;
}
enum class Convection { upwind, tvd };

// The output fields, in output order.
enum class Field { stream_function, vorticity, temperature, velocity, u, v };
inline constexpr std::array<FieldEntry<Field>, 6> field_table = {{
    {Field::stream_function, "stream_function"},
    {Field::vorticity, "vorticity"},
    {Field::temperature, "temperature"},
    {Field::velocity, "velocity", 3},
    {Field::u, "u"},
    {Field::v, "v"},
}};

// The smallest solver tolerance a float run uses.  A float field's own
// rounding puts a floor under the true residual max|b - A x| / max|b|: about
// eps (L/h)^2 for the Poisson solve of psi (measured on 31^2: 1.5e-5), so
// 0.5 eps (n+1)^2 there; 32 eps for the well-conditioned omega and T solves.
inline double float_tolerance(int nx, int ny, bool poisson) {
  const double n1 = 1.0 + (nx > ny ? nx : ny), eps = 1.1920928955078125e-07;
  return poisson ? std::max(32 * eps, 0.5 * eps * n1 * n1) : 32 * eps;
}

struct Boundary {
  Kind kind = Kind::wall;
  double tangential = 0;  // wall: its velocity along the side (+x or +y)
  // inflow: the velocity into the domain over [lo, hi] along the side (a
  // wall at rest outside): uniform, or a parabola with maximum `normal`.
  Profile profile = Profile::uniform;
  double normal = 0, lo = 0, hi = 0;
  Thermal thermal = Thermal::adiabatic;
  double temperature = 0;  // fixed
  bool thermal_given = false;
};

struct Setup : ModelSetup {
  // The solver's grid: nx x ny interior nodes with one ring of boundary
  // nodes (ghost = 1), spacing h per axis.  ModelSetup::grid (output) is the
  // same nodes with the ring, as (nx + 2) x (ny + 2) cells centred on them.
  linalg::Grid nodes;
  double nu = 1, kappa = 1, buoyancy = 0;  // C = beta g
  bool heat = false;                       // the temperature equation is solved
  Boundary side[4];
  WallVorticity wall_vorticity = WallVorticity::woods;
  Convection convection = Convection::upwind;
  // Initial temperature: uniform t0, or t_left / t_right in x < / > split
  // (the thesis's heat-diffusion test).
  double t0 = 0, t_left = 0, t_right = 0, split = 0;
  bool split_initial = false;
  // Solves.  psi: "cg" with a preconditioner ("jacobi" | "none" | "mg"),
  // "mg" (geometric multigrid, options mg), or "kk_cg" | "kk_gmres" (over
  // Kokkos Kernels, "jacobi" | "none"); omega and T: CG with the
  // preconditioner ("jacobi" where it is "mg": multigrid's coarse levels
  // halve their identity term, docs/linalg.md).
  Method method = Method::cg;
  Preconditioner preconditioner = Preconditioner::jacobi;
  int restart = 50;  // kk_gmres: Krylov vectors before a restart
  linalg::MgOptions mg;
  linalg::SolveControl control;
  // psi's initial guess: extrapolated linearly in time from the last two
  // steps (`guess = "extrapolated"`) or the last step's psi ("previous").
  bool extrapolate_psi = true;
  bool unconverged_is_error = false;
  // Boundary psi on the ring of the (nx + 2) x (ny + 2) nodes (host; 0
  // inside): the ring's nodes only, so that a case's set-up holds no array
  // of the grid's size before its memory is checked.
  struct Ring {
    int nx = 0, ny = 0;
    std::vector<double> south, north, west, east;  // j = 0, ny + 1 by i; i = 0, nx + 1 by j
    void resize(int nx_, int ny_) {
      nx = nx_, ny = ny_;
      south.assign(std::size_t(nx) + 2, 0.0), north.assign(std::size_t(nx) + 2, 0.0);
      west.assign(std::size_t(ny) + 2, 0.0), east.assign(std::size_t(ny) + 2, 0.0);
    }
    // a node of the ring (a corner is its south or north row's)
    double& at(int i, int j) {
      return j == 0 ? south[i] : j == ny + 1 ? north[i] : i == 0 ? west[j] : east[j];
    }
    double operator()(int i, int j) const {
      return j == 0        ? south[i]
             : j == ny + 1 ? north[i]
             : i == 0      ? west[j]
             : i == nx + 1 ? east[j]
                           : 0.0;
    }
  } psi_ring;
  // psi's inward normal derivative on each side's nodes (the tangential
  // velocity, signed), indexed [side][k], k = 0..n+1 along the side.
  std::vector<double> psi_normal[4];
  // Reference scales of the dimensionless numbers reported.
  double ref_length = 1, ref_velocity = 0, ref_dt = 0;
  // The benchmark's velocity scale kappa / L (natural convection).
  double velocity_scale = 1;
  std::vector<std::pair<std::string, double>> numbers;  // Re, Pr, Gr, Ra as run
};

template <class ExecSpace, class Real>
std::unique_ptr<Model> make_model(const ModelSetup& setup);

}  // namespace kflow::vorticity2d
