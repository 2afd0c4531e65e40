#pragma once
// physics/diffusion: the heat equation u_t = kappa * laplace(u) in 2D and 3D.
//
// Cell-centred second-order finite differences, explicit Euler in time
// (stable for dt <= 1 / (2 kappa sum_d 1/h_d^2)).  Boundaries per side:
// Dirichlet (value on the face), Neumann (outward normal derivative on the
// face) and periodic (both sides of an axis), imposed through one ghost layer.
// The initial condition "sine_mode" is an eigenmode of the Laplacian that
// satisfies homogeneous boundary conditions; it decays as exp(-kappa |k|^2 t),
// which is the exact solution the tests measure the error against.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kflow/model/field_table.hpp"
#include "kflow/model/model.hpp"

namespace kflow::diffusion {

enum class Bc { dirichlet, neumann, periodic };

// One axis of the exact mode: sin(k (x - x0)), cos(k (x - x0)), or 1.
struct ModeAxis {
  int kind = 2;  // 0 sin, 1 cos, 2 constant
  double k = 0;
};

// The output fields, in output order; conditional: u_exact and error (u -
// u_exact), where an exact solution exists (Setup::has_exact).
enum class Field { u, u_exact, error };
inline constexpr std::array<FieldEntry<Field>, 3> field_table = {{
    {Field::u, "u"},
    {Field::u_exact, "u_exact", 1, true},
    {Field::error, "error", 1, true},
}};

struct Setup : ModelSetup {
  double kappa = 1;
  Bc bc[3][2] = {};  // [axis][0 = low side, 1 = high side]
  double bc_value[3][2] = {};
  enum class Initial { sine_mode, constant };
  Initial initial = Initial::sine_mode;  // initial.type
  double amplitude = 1, constant = 0;
  ModeAxis mode[3];
  bool has_exact = false;
  double decay = 0;  // kappa |k|^2

  // u on a Dirichlet side is its value.
  bool boundary_value(const std::string& field, int axis, int side, const double*,
                      double& value) const override {
    if (field != "u" || bc[axis][side] != Bc::dirichlet) return false;
    value = bc_value[axis][side];
    return true;
  }
};

// Registered in diffusion.cpp; instantiated per (backend, precision) by CMake.
template <class ExecSpace, class Real>
std::unique_ptr<Model> make_model(const ModelSetup& setup);

}  // namespace kflow::diffusion
