#pragma once
// physics/mac2d: 2D incompressible Navier-Stokes on the staggered MAC grid,
// as in Menenguci, Valli, Catabriga & Veronese's GPU paper and the
// book it follows (Griebel, Dornseifer & Neunhoeffer, "Numerical Simulation
// in Fluid Dynamics", SIAM 1998):
//
//   F = u + dt [ (1/Re) lap u - d(u^2)/dx - d(uv)/dy + gx ]      (4)
//   G = v + dt [ (1/Re) lap v - d(uv)/dx - d(v^2)/dy + gy ]      (5)
//   lap p = ((F_i - F_i-1)/dx + (G_j - G_j-1)/dy) / dt           (8)
//   u = F - dt/dx (p_i+1 - p_i),  v = G - dt/dy (p_j+1 - p_j)    (6), (7)
//   dt = tau min( Re/2 (1/dx^2 + 1/dy^2)^-1, dx/|u|max, dy/|v|max )  (9)
//
// with convection blended between central and donor-cell differences by
// gamma, or (numerics.convection = "tvd") van Leer-limited upwind-biased
// face values, bounded and second order.  Decisions on the paper's typos and gaps are listed in
// docs/models/mac2d.md and next to the code that implements them.
//
// Indexing as in the book: cells 1..imax x 1..jmax, one ghost layer; u(i,j)
// on the east face of cell (i,j), v(i,j) on its north face; every array has
// (imax+2) x (jmax+2) entries.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kflow/linalg/mg_options.hpp"
#include "kflow/linalg/solver.hpp"
#include "kflow/model/case_solver.hpp"
#include "kflow/model/field_table.hpp"
#include "kflow/model/model.hpp"

namespace kflow::mac2d {

enum class Side { west = 0, east = 1, south = 2, north = 3 };

enum class Bc { no_slip, free_slip, moving_wall, inflow, outflow, periodic };

enum class Profile { uniform, parabolic, table };

// The output fields, in output order (Model::field computes them; u and v
// are cell-centred components, for line samples).
enum class Field { velocity, pressure, vorticity, stream_function, divergence, flags, u, v };
inline constexpr std::array<FieldEntry<Field>, 8> field_table = {{
    {Field::velocity, "velocity", 3},
    {Field::pressure, "pressure"},
    {Field::vorticity, "vorticity"},
    {Field::stream_function, "stream_function"},
    {Field::divergence, "divergence"},
    {Field::flags, "flags"},
    {Field::u, "u"},
    {Field::v, "v"},
}};

// Convection in F and G: the book's donor-cell/central blend (gamma), or
// flux-limited (van Leer) upwind-biased face values, whose explicit Euler
// step halves the convective limits of dt.
enum class Convection { blend, tvd };
// The walls of the bodies: the book's staircase (the faces of the blocked
// cells, Griebel et al. 1998), or interpolated to the true surface
// (mac2d_walls.cpp, docs/models/mac2d.md).
enum class Walls { staircase, interpolated };
// Interpolated walls, per velocity component: the faces next to a body,
// whose value is w u(partner) + w2 u(partner2) (the next two faces away from
// the wall along the grid line that crosses it; w = 2q / (1 + q),
// w2 = -q / (2 + q), q the wall's distance from the face in face spacings;
// w = q / (1 + q), w2 = 0 where the second face is not fluid), set before
// each step and held through it as the pressure equation's prescribed
// fluxes.  Faces and partners are indices i + (imax + 2) j of the
// component's array.
struct WallFaces {
  std::vector<int> face, partner, partner2;
  std::vector<double> weight, weight2;
};
// A piece of the bodies' surface in the plane (forces on the true surface):
// its midpoint, unit normal out of the body, and length.
struct SurfacePiece {
  double x, y, nx, ny, length;
};

struct Boundary {
  Bc type = Bc::no_slip;
  double tangential = 0;  // moving_wall: velocity along the wall (+x or +y)
  // inflow: normal velocity profile over [lo, hi] of the side (coordinates
  // along it; no-slip outside), and a tangential velocity.
  Profile profile = Profile::uniform;
  double normal = 0;  // uniform value, or the maximum of the parabola
  double lo = 0, hi = 0;
  std::vector<double> table_s, table_u;  // profile "table": points along the side
};

struct Setup : ModelSetup {
  double re = 100, gamma = 0.9, gx = 0, gy = 0;
  Convection convection = Convection::blend;
  Boundary side[4];
  // Cell flags (host copy, (imax+2) x (jmax+2), i fastest): linalg mask
  // bits (self = fluid cell; west/east/south/north = that neighbour is a
  // fluid cell of the pressure system).  Ghost cells are 0.
  std::vector<std::uint8_t> flags;
  long fluid_cells = 0;
  bool periodic_x = false, periodic_y = false;
  // Initial state: u, v uniform in a rectangle (the step's u = 1 above the step).
  double u0 = 0, v0 = 0;
  std::vector<double> init_box;  // [x0, x1, y0, y1] where u0, v0 apply (empty: everywhere)
  enum class Initial { uniform, taylor_green };
  Initial initial = Initial::uniform;  // initial.type
  // Pressure solve: "rbsor" (omega), "sip" (Stone's procedure, alpha),
  // "cg" (conjugate gradients, preconditioner "jacobi" | "none" | "mg"),
  // "mg" (geometric multigrid, options mg), or over Kokkos Kernels "kk_cg"
  // and "kk_gmres" (restart: Krylov vectors per cycle; preconditioner also
  // "ilu": Kokkos Kernels' ILU(ilu_level)).
  Method method = Method::rbsor;
  double omega = 1.7, alpha = 0.92;
  int restart = 50, ilu_level = 0;
  Preconditioner preconditioner = Preconditioner::jacobi;
  linalg::MgOptions mg;
  linalg::SolveControl control;
  // The paper's cavity protocol: a fixed number of iterations per step,
  // `first_iterations` for the first `first_steps` steps, then control.max_iterations.
  long first_steps = 0;
  int first_iterations = 0;
  bool fixed_iterations = false;
  bool unconverged_is_error = false;  // solver.pressure.on_unconverged = "error"
  // A pressure problem with only Neumann sides is singular; with an outflow
  // side the right-hand side is projected onto the compatible space.
  bool project_rhs = false;
  // dt rule: |u|max over every stored value (ghosts included, as the book's
  // comp_delt) or over the interior faces only.
  bool dt_includes_ghosts = true;
  // Force on the bodies (drag/lift coefficients) with this reference
  // velocity and length (0: not reported).
  double force_velocity = 0, force_length = 0;
  // The control volume of the force (kernels::box_flux): cell-centre lines
  // i0, i1, j0, j1 around every body, 2 cells off them (i0 = 0: none, the
  // bodies too near a side; the forces are then integrated over the walls).
  int force_box[4] = {0, 0, 0, 0};
  // analysis.pressure_probes: [xa, ya, xb, yb] (empty: none), and where
  // place_cells() put them (ProbePoints of mac2d_kernels.hpp): with
  // interpolated walls a point within 2.5 cells of a body reads the wall's
  // pressure extrapolated along the nearest surface piece's normal; with
  // the staircase a point whose bilinear cells are not all fluid reads the
  // nearest fluid cell's.
  std::vector<double> probes;
  double probe_at[2][4] = {};  // x, y, nx, ny
  int probe_wall[2] = {0, 0};
  // Report the sign changes of u along the south and north walls.
  bool wall_points = false;
  // Report the extrema of the stream function (at the cell corners) and
  // their positions.
  bool psi_extrema = false;

  // The flag field from the bodies' cells, and its checks (mac2d.cpp).
  bool places_cells() const override { return true; }
  void place_cells(const std::vector<unsigned char>& solid) override;
  // numerics.body_walls, and what place_walls() builds for "interpolated".
  Walls walls = Walls::staircase;
  WallFaces wall_faces[2];
  std::vector<SurfacePiece> surface;
  void place_walls();
  // The connected parts of the pressure equation's cells (a flood fill over
  // the mask bits, periodic sides wrapped): each cell's part, -1 outside,
  // and the parts' sizes.
  std::vector<int> fluid_parts(std::vector<int>& sizes) const;
  void place_probes();
  void place_force_box();

  // u and v (and velocity's x component) on walls and uniform inflows: the
  // normal component of a wall is 0, the tangential one the wall's speed (0
  // for no-slip; unknown on a free-slip wall).
  bool boundary_value(const std::string& field, int axis, int high, const double* x,
                      double& value) const override {
    const int comp = field == "u" || field == "velocity" ? 0 : field == "v" ? 1 : -1;
    if (comp < 0) return false;
    const Boundary& b = side[2 * axis + high];
    const bool normal = comp == axis;
    const double along = x[1 - axis];  // the coordinate along the side
    switch (b.type) {
      case Bc::no_slip:
        value = 0;
        return true;
      case Bc::moving_wall:
        value = normal ? 0 : b.tangential;
        return true;
      case Bc::free_slip:
        value = 0;
        return normal;
      case Bc::inflow:
        if (b.profile != Profile::uniform) return false;
        value = normal ? (along >= b.lo && along <= b.hi ? b.normal : 0) : b.tangential;
        return true;
      default:
        return false;
    }
  }
};

// Normal inflow velocity (into the domain) of side `b` at position s along
// it: the profile within [lo, hi], 0 outside.
double inflow_at(const Boundary& b, double s);

template <class ExecSpace, class Real>
std::unique_ptr<Model> make_model(const ModelSetup& setup);

}  // namespace kflow::mac2d
