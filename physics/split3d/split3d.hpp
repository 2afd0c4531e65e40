#pragma once
// physics/split3d: 3D flow of a viscous heat-conducting gas at low Mach
// number by coordinate splitting, as in Berezin, Paskonov & Sakharnykh
// (2012).  The paper's dimensionless system, density 1,
// pressure = temperature (p = R T, R = 1):
//
//   du/dt + (u.grad) u = -grad T + (1/Re) lap u  (+ f, kflow's body force)
//   dT/dt + (u.grad) T = (1/(Re Pr)) lap T + ((gamma - 1)/(gamma Re)) Phi
//
// div u = 0 is monitored (the divergence error), not enforced.  Each step is
// split into X, Y and Z fractional steps (locally one-dimensional, Yanenko),
// each implicit along its direction with central differences: one
// tridiagonal system per grid line and variable, solved by linalg's batched
// Tridiag.  Nonlinear (Picard-frozen) coefficients are refreshed by local
// iterations inside a direction and global iterations over the step.
// Decisions on the paper's gaps: docs/models/split3d.md.

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kflow/linalg/mg_options.hpp"
#include "kflow/model/case_solver.hpp"
#include "kflow/model/field_table.hpp"
#include "kflow/model/model.hpp"
#include "kflow/model/number_text.hpp"

namespace kflow::split3d {

// Sides in kflow's order: west, east, south, north, bottom, top (2 axis + high).
// Periodic sides come in pairs (Setup::periodic per axis).
enum class Kind { wall, inflow, outflow, periodic };
// Inflow profiles: uniform, or the square/rectangular duct's exact developed
// profile (kflow/model/exact.hpp) scaled to its centre velocity.
// duct: the developed series profile; parabolic: 16 U s (1 - s) t (1 - t) over
// the side's rectangle (s, t in [0, 1]; the DFG 3D benchmarks' inflow).
enum class Profile { uniform, duct, parabolic };
// The nonlinear layer's update after each local iteration: the authors'
// relaxation u~ <- (u~ + new) / 2, or plain Picard u~ <- new.
enum class Update { relaxed, picard };

// The output fields, in output order.
enum class Field { velocity, u, v, w, temperature, pressure, divergence, vorticity };
inline constexpr std::array<FieldEntry<Field>, 8> field_table = {{
    {Field::velocity, "velocity", 3},
    {Field::u, "u"},
    {Field::v, "v"},
    {Field::w, "w"},
    {Field::temperature, "temperature"},
    {Field::pressure, "pressure"},
    {Field::divergence, "divergence"},
    {Field::vorticity, "vorticity"},
}};

struct Side {
  Kind kind = Kind::wall;
  std::array<double, 3> velocity{0, 0, 0};  // wall: its velocity; uniform inflow: the inflow
  Profile profile = Profile::uniform;
  double centre_velocity = 0;  // duct inflow: the profile's value on the centre line
  bool adiabatic = false;      // wall: zero heat flux instead of a fixed temperature
  double temperature = 1;      // wall, inflow: fixed temperature
};

// A body's thermal condition ([[body]] temperature = T, or adiabatic = true):
// its nodes are walls at rest (identity rows for u, v, w in every line
// through them) at a fixed temperature (identity rows for T), or adiabatic:
// zero heat flux, each solid node beside fluid along a line copying that
// fluid node's T (f_s - f_f = 0, as the adiabatic walls).
struct BodyHeat {
  double temperature = 1;
  bool adiabatic = false;
};

// Values of Setup::solid (and of the kernels' mask).
enum Solid : unsigned char { not_solid = 0, solid_fixed = 1, solid_adiabatic = 2 };

// Interpolated walls: a link fraction below this has driven runs past their
// divergence limit (a surface 0.027 of a spacing from a node: within 10
// steps; docs/models/split3d.md, "Interpolated walls"); that error names it.
inline constexpr double near_wall_fraction = 0.1;

struct Setup : ModelSetup {
  // The solver's nodes: n interior nodes per axis and one boundary node on
  // each side, at spacing h = L / (n + 1) (the boundary nodes lie on the
  // box's faces; periodic axes: below).  ModelSetup::grid (output) is every
  // node, boundary nodes included, as (n + 2)^3 cells centred on them.
  linalg::Grid nodes;
  double reynolds = 1, prandtl = 0.72, gamma = 1.4;
  std::array<double, 3> body_force{0, 0, 0};
  Side side[6];
  std::array<double, 3> initial_velocity{0, 0, 0};
  double initial_temperature = 1;
  bool third = false;  // tau = dt / 3 per direction (the authors' code) instead of dt
  Update update = Update::picard;
  int local_iterations = 4, global_iterations = 1;
  // numerics.change_tolerance: the local iterations of a direction end once
  // max |u_new - u~| <= this; the global ones once every direction met it at
  // its first local iteration (0: always the full counts).
  double change_tolerance = 0;
  double divergence_limit = 0.01;
  double peclet = 0;  // cell Peclet number at the start (largest speed, largest spacing)
  // Beside the paper's scheme: a pressure projection after each step
  // ([physics] projection = true), its Poisson solve (by default CG + a
  // multigrid cycle; CG + Jacobi where a periodic axis has an odd node count)
  // to max |b - A x| / max |b| <= projection_tolerance.
  bool projection = false;
  // "plain": each step's phi makes u* divergence-free (Chorin); "incremental":
  // -grad phi^n acts on the step's input and the projection solves the
  // increment (pressure correction: a steady state free of the O(dt) term).
  bool incremental = false;
  double projection_tolerance = 1e-8;
  int projection_max_iterations = 10000;
  // The projection's solver: "cg" (kflow's, preconditioned by Jacobi or a
  // multigrid cycle), "mg" (multigrid cycles), "kk_cg" or "kk_gmres" (over
  // Kokkos Kernels, Jacobi; restart vectors for GMRES).
  Method projection_method = Method::cg;
  Preconditioner projection_preconditioner = Preconditioner::jacobi;  // cg: jacobi | mg
  int projection_restart = 50;
  linalg::MgOptions mg;  // the multigrid's, for "mg" or CG + multigrid
  // The [[body]] tables' thermal conditions, by body id.
  std::vector<BodyHeat> body_heat;
  // Per node (i fastest, (n+2)^3): a Solid value and the body holding the
  // node (its id + 1; the first body listed wins); empty without bodies.
  // Periodic ghosts copy their partners.
  std::vector<unsigned char> solid, solid_body;
  // numerics.body_walls = "interpolated": per axis and node (i fastest),
  // the distance in node spacings from a fluid node to the body's wall below
  // (cut_lo) and above (cut_hi) it along the axis, where the link to the
  // body's node crosses the surface; 1 elsewhere (split3d_kernels.hpp, Cut).
  // Empty with the staircase walls.
  bool cut_walls = false;
  std::vector<float> cut_lo[3], cut_hi[3];
  double cut_smallest = 1;  // the smallest of those distances (see near_wall_fraction)
  // Axes whose two sides are periodic.  Along such an axis the n nodes are
  // cell-centred, h = L / n, and the nodes 0 and n + 1 are ghost copies of
  // nodes n and 1 (docs/models/split3d.md, "Periodic pairs").
  std::array<bool, 3> periodic{false, false, false};

  // Bodies: voxelised on the nodes (their interior ones as cell centres of
  // `nodes`), then the checks of place_cells (split3d.cpp).
  bool places_cells() const override { return !bodies.empty(); }
  linalg::Grid cells_grid() const override { return nodes; }
  void place_cells(const std::vector<unsigned char>& solid_nodes) override;
  void place_cut_walls();
};

// Host values of every node (i fastest, (n+2)^3): the initial state with the
// boundary values of every side (walls at rest win at shared edges) and the
// bodies' (which win over every side); periodic ghosts copy their partners.
void initial_state(const Setup& s, std::vector<double> (&q)[4]);

template <class ExecSpace, class Real>
std::unique_ptr<Model> make_model(const ModelSetup& setup);

}  // namespace kflow::split3d
