#pragma once
// Kokkos implementation of physics/mac2d (included only by the generated
// per-(backend, precision) translation units).
//
// One time step, all on the device (the paper's Algorithm 1):
//   boundary values (sides, then obstacle cells) -> F, G -> right-hand side
//   of (8) -> red-black SOR (linalg) -> velocity correction (6), (7)
// The only values that come back to the host each step are |u|max, |v|max
// for the next time step (one fused reduction), and the solver's
// convergence check when a tolerance is set.

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "extremum.hpp"
#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/field.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/rbsor.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/linalg/sip.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/state_view.hpp"
#include "kk_krylov.hpp"
#include "mac2d.hpp"
#include "mac2d_bodies.hpp"
#include "mac2d_kernels.hpp"

namespace kflow::mac2d {

template <class ExecSpace, class Real>
class Model final : public kflow::Model, public kflow::DeviceDt {
  using Mem = typename ExecSpace::memory_space;
  using F2 = linalg::Field<Real, 2, Mem>;
  using Flags = Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Mem>;
  using Op = linalg::Laplace5<Real, Mem>;

 public:
  explicit Model(const Setup& s) : s_(s) {
    const auto& g = s_.grid;
    const int ex = g.extent(0), ey = g.extent(1);
    auto field = [&](const std::string& label) {
      return F2(Kokkos::view_alloc(space_, label), ex, ey);
    };
    u_ = field("kflow::mac2d::u");
    v_ = field("kflow::mac2d::v");
    p_ = field("kflow::mac2d::p");
    f_ = field("kflow::mac2d::F");
    g_ = field("kflow::mac2d::G");
    rhs_ = field("kflow::mac2d::rhs");
    flags_ = Flags(Kokkos::view_alloc(space_, "kflow::mac2d::flags"), ex, ey);
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), flags_);
      std::memcpy(h.data(), s_.flags.data(), s_.flags.size());
      Kokkos::deep_copy(space_, flags_, h);
    }
    for (int c = 0; c < 2; ++c) {
      const auto& w = s_.wall_faces[c];
      const auto n = w.face.size();
      auto& d = walls_[c];
      d.face = Kokkos::View<int*, Mem>("kflow::mac2d::wall_faces", n);
      d.partner = Kokkos::View<int*, Mem>("kflow::mac2d::wall_partners", n);
      d.weight = Kokkos::View<Real*, Mem>("kflow::mac2d::wall_weights", n);
      d.partner2 = Kokkos::View<int*, Mem>("kflow::mac2d::wall_partners2", n);
      d.weight2 = Kokkos::View<Real*, Mem>("kflow::mac2d::wall_weights2", n);
      d.value = Kokkos::View<Real*, Mem>("kflow::mac2d::wall_values", n);
      auto hf = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.face);
      auto hp = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.partner);
      auto hw = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.weight);
      auto hp2 = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.partner2);
      auto hw2 = Kokkos::create_mirror_view(Kokkos::HostSpace(), d.weight2);
      for (std::size_t k = 0; k < n; ++k) {
        hf(k) = w.face[k], hp(k) = w.partner[k], hw(k) = Real(w.weight[k]);
        hp2(k) = w.partner2[k], hw2(k) = Real(w.weight2[k]);
      }
      Kokkos::deep_copy(space_, d.face, hf);
      Kokkos::deep_copy(space_, d.partner, hp);
      Kokkos::deep_copy(space_, d.weight, hw);
      Kokkos::deep_copy(space_, d.partner2, hp2);
      Kokkos::deep_copy(space_, d.weight2, hw2);
    }
    surface_ = Kokkos::View<double* [5], Mem>("kflow::mac2d::surface", s_.surface.size());
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), surface_);
      for (std::size_t k = 0; k < s_.surface.size(); ++k) {
        const auto& q = s_.surface[k];
        h(k, 0) = q.x, h(k, 1) = q.y, h(k, 2) = q.nx, h(k, 3) = q.ny, h(k, 4) = q.length;
      }
      Kokkos::deep_copy(space_, surface_, h);
    }
    // Inflow profiles at the cell centres along each side (0 where the
    // adjacent cell is an obstacle, and at the ghost positions but along a
    // periodic direction).
    const int nmax = std::max(ex, ey);
    inflow_ = Kokkos::View<Real**, Kokkos::LayoutLeft, Mem>(
        Kokkos::view_alloc(space_, "kflow::mac2d::inflow"), nmax, 4);
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), inflow_);
      Kokkos::deep_copy(h, Real(0));
      for (int sd = 0; sd < 4; ++sd) {
        const auto& b = s_.side[sd];
        if (b.type != Bc::inflow) continue;
        const int along = sd < 2 ? 1 : 0, n = g.cells[along];
        for (int k = 1; k <= n; ++k) {
          const int i = sd == 0 ? 1 : sd == 1 ? g.cells[0] : k;
          const int j = sd == 2 ? 1 : sd == 3 ? g.cells[1] : k;
          if (!(s_.flags[i + std::size_t(ex) * j] & linalg::mask_bits::self)) continue;
          h(k, sd) = Real(inflow_at(b, g.centre(along, k - 1)));
        }
        // Along a periodic direction the ghost positions wrap (side_bc_y
        // writes them into the corner ghosts that F and G read).
        if (along == 0 ? s_.periodic_x : s_.periodic_y)
          h(0, sd) = h(n, sd), h(n + 1, sd) = h(1, sd);
      }
      Kokkos::deep_copy(space_, inflow_, h);
    }
    for (int sd = 0; sd < 4; ++sd) {
      sides_.type[sd] = int(s_.side[sd].type);
      sides_.tangential[sd] = Real(s_.side[sd].tangential);
    }
    op_.mask = flags_;
    op_.cx = Real(1 / (g.spacing(0) * g.spacing(0)));
    op_.cy = Real(1 / (g.spacing(1) * g.spacing(1)));
    op_.grid = g;
    linalg::set_neighbours(op_, g, s_.periodic_x, s_.periodic_y);
    if (s_.method == Method::sip)
      solver_ =
          std::make_unique<linalg::Sip<ExecSpace, Op>>(space_, op_, linalg::SipOptions{s_.alpha});
    else if (s_.method == Method::cg)
      solver_ = std::make_unique<linalg::ConjugateGradient<ExecSpace, Op>>(
          space_, op_,
          linalg::CgOptions{cg_preconditioner<linalg::CgPreconditioner>(s_.preconditioner), s_.mg});
    else if (over_kokkos_kernels(s_.method))
      solver_ = make_kk();
    else if (s_.method == Method::mg) {
      auto mg = std::make_unique<linalg::Multigrid<ExecSpace, Op>>(space_, op_, s_.mg);
      mg_ = mg.get();
      solver_ = std::move(mg);
    } else
      solver_ = std::make_unique<linalg::RedBlackSOR<ExecSpace, Op>>(space_, op_,
                                                                     linalg::SorOptions{s_.omega});
    initialise();
    apply_bc();
    wall_values();
  }

  const linalg::Grid& grid() const override { return s_.grid; }
  void fence() override { space_.fence("kflow::mac2d::fence"); }
  // Per cell and step, an ideal implementation reads u, v (F, G stencils),
  // writes F, G, reads F, G and writes the right-hand side, then per SOR
  // iteration reads and writes p and reads the right-hand side (a multigrid
  // cycle: Multigrid::values_per_cell), and finally reads F, G, p and writes
  // u, v.
  double bytes_per_cell_step() const override {
    const double iters = s_.fixed_iterations ? s_.control.max_iterations : last_.iterations;
    const double per = mg_ ? mg_->values_per_cell() : 3;
    return sizeof(Real) * (2 + 2 + 3 + per * iters + 5);
  }

  double stable_dt(double) const override {
    // the driver multiplies by tau (time.safety_factor)
    read_velocity_max();
    return kernels::stable_dt(umax_, vmax_, s_.re, s_.grid.spacing(0), s_.grid.spacing(1),
                              convective());
  }
  DeviceDt* device_dt() override { return this; }
  // The convective limits only lower the diffusive one.
  double max_stable_dt() const override {
    return kernels::stable_dt(0, 0, s_.re, s_.grid.spacing(0), s_.grid.spacing(1), 1);
  }

  void step(double, double dt) override { advance(step_dt(dt, 0, -1)); }
  void step_device_dt(double safety) override {
    advance(step_dt(0, safety, int(ring_next_ % kDeviceDtBatch)));
    ++ring_next_;
  }
  std::vector<double> device_dts(long n) override {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ring_);
    std::vector<double> r(n);
    for (long k = 0; k < n; ++k) r[k] = h((ring_next_ - n + k) % kDeviceDtBatch);
    return r;
  }

  Diagnostics diagnostics(double t) override {
    Diagnostics d;
    double div = 0, energy = 0;
    kernels::flow_norms(space_, op_, u_, v_, div, energy);
    read_velocity_max();
    d.emplace_back("u_max", umax_);
    d.emplace_back("v_max", vmax_);
    d.emplace_back("divergence_max", div);
    d.emplace_back("kinetic_energy", energy);
    d.emplace_back("sor_iterations", last_.iterations);
    d.emplace_back("sor_criterion", last_.criterion);
    d.emplace_back("sor_iterations_total", double(iterations_total_));
    d.emplace_back("unconverged_solves", double(unconverged_));
    if (s_.force_length > 0) {
      double fx = 0, fy = 0;
      if (s_.walls == Walls::interpolated)
        kernels::surface_force(space_, s_.grid, 1 / s_.re, u_, v_, p_, surface_, fx, fy);
      else
        kernels::obstacle_force(space_, op_, 1 / s_.re, u_, v_, p_, fx, fy);
      const double scale = 2 / (s_.force_velocity * s_.force_velocity * s_.force_length);
      d.emplace_back("drag_coefficient", fx * scale);
      d.emplace_back("lift_coefficient", fy * scale);
      if (s_.force_box[0] > 0) {  // the momentum balance around the bodies
        double bx = 0, by = 0;
        kernels::box_flux(space_, s_.grid, 1 / s_.re, u_, v_, p_, s_.force_box, bx, by);
        if (box_steps_ >= 2) {  // - d/dt of the box's momentum over the last step
          const auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), box_m_);
          const auto dts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), box_dt_);
          const int cur = int((box_steps_ - 1) % 2), prev = 1 - cur;
          bx -= (m(2 * cur) - m(2 * prev)) / dts(cur);
          by -= (m(2 * cur + 1) - m(2 * prev + 1)) / dts(cur);
        }
        d.emplace_back("drag_balance", bx * scale);
        d.emplace_back("lift_balance", by * scale);
      }
    }
    if (!s_.probes.empty()) {
      kernels::ProbePoints pp{};
      for (int k = 0; k < 2; ++k) {
        pp.x[k] = s_.probe_at[k][0], pp.y[k] = s_.probe_at[k][1];
        pp.nx[k] = s_.probe_at[k][2], pp.ny[k] = s_.probe_at[k][3];
        pp.extrapolate[k] = s_.probe_wall[k];
      }
      d.emplace_back("delta_p", kernels::probe_difference(space_, s_.grid, p_, pp));
    }
    if (s_.wall_points) {
      // Sign changes of the wall-adjacent u along the south and north sides
      // (separation and reattachment points), first two each, -1 if none.
      const auto& g = s_.grid;
      for (int j : {1, g.cells[1]}) {
        auto row = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                       Kokkos::subview(u_, Kokkos::ALL, j));
        double x[2] = {-1, -1};
        int found = 0;
        for (int i = 1; i + 1 < g.cells[0] && found < 2; ++i) {
          const std::size_t k = i + std::size_t(g.extent(0)) * j;
          if (!(s_.flags[k] & linalg::mask_bits::east) ||
              !(s_.flags[k + 1] & linalg::mask_bits::east))
            continue;
          const double a = double(row(i)), b = double(row(i + 1));
          if ((a < 0) != (b < 0) && a != b)
            x[found++] = g.origin[0] + g.spacing(0) * (i + a / (a - b));
        }
        const std::string side = j == 1 ? "south" : "north";
        d.emplace_back(side + "_x1", x[0]);
        d.emplace_back(side + "_x2", x[1]);
      }
    }
    if (s_.psi_extrema) psi_extrema(d);
    if (s_.initial == Setup::Initial::taylor_green) {
      const auto e = taylor_green_error(t);
      d.emplace_back("error_u_max", e);
    }
    return d;
  }

  HostField field(const std::string& name, double) override;

  std::vector<StateArray> save_state() override {
    std::vector<StateArray> r;
    for (auto* f : {&u_, &v_, &p_}) r.push_back(to_state(*f));
    r.push_back(counters_state({double(steps_), double(iterations_total_), double(unconverged_)}));
    return r;
  }

  void restore_state(const std::vector<StateArray>& state) override {
    for (auto* f : {&u_, &v_, &p_}) from_state(space_, state, *f);
    auto c = state_counters(state);
    if (c.size() >= 2) {
      c.resize(3, 0.0);  // (checkpoints from before the third counter hold two)
      steps_ = long(c[0]), iterations_total_ = long(c[1]), unconverged_ = long(c[2]);
    }
    apply_bc();
  }

 private:
  using StepDt = kernels::StepDt<Real, Mem>;
  StepDt step_dt(double dt, double safety, int slot) const {
    const auto& g = s_.grid;
    return StepDt{dt,        safety, s_.re, g.spacing(0), g.spacing(1),
                  vmax_dev_, ring_,  slot,  convective()};
  }
  // The factor of the convective limits of dt (kernels::stable_dt).
  double convective() const { return s_.convection == Convection::tvd ? 0.5 : 1; }

  // One time step: F, G and the right-hand side, pressure, correction,
  // boundary values, velocity maxima (for the next dt).  Asynchronous
  // unless the pressure solver checks convergence.
  void advance(const StepDt& dt) {
    const auto& g = s_.grid;
    const kernels::MomentumParams<Real> m{Real(0),
                                          Real(1 / g.spacing(0)),
                                          Real(1 / g.spacing(1)),
                                          Real(1 / (g.spacing(0) * g.spacing(0))),
                                          Real(1 / (g.spacing(1) * g.spacing(1))),
                                          Real(1 / s_.re),
                                          Real(s_.gamma),
                                          Real(s_.gx),
                                          Real(s_.gy),
                                          g.cells[0],
                                          g.cells[1],
                                          s_.periodic_x,
                                          s_.periodic_y,
                                          int(s_.convection)};
    Kokkos::Profiling::ScopedRegion region("kflow::mac2d::step");
    {
      Kokkos::Profiling::ScopedRegion phase("kflow::mac2d::momentum");
      if (s_.force_box[0] > 0) kernels::record_dt(space_, dt, box_dt_, int(box_steps_ % 2));
      wall_values();
      kernels::compute_fg_rhs(space_, op_, m, dt, u_, v_, f_, g_, rhs_);
      if (s_.project_rhs) kernels::project_rhs(space_, op_, s_.fluid_cells, rhs_);
    }
    linalg::SolveControl c = s_.control;
    c.stop = solve_stop_flag();
    if (steps_ < s_.first_steps) c.max_iterations = s_.first_iterations;
    {
      Kokkos::Profiling::ScopedRegion phase("kflow::mac2d::pressure");
      last_ = solver_->solve(p_, rhs_, c);
    }
    iterations_total_ += last_.iterations;
    if (!s_.fixed_iterations && !last_.converged) {
      ++unconverged_;
      if (s_.unconverged_is_error)
        throw Error("the pressure solve of step " + std::to_string(steps_ + 1) +
                    " did not reach solver.pressure.tolerance = " + number_text(c.tolerance) +
                    " in " + std::to_string(last_.iterations) + " iterations (criterion " +
                    number_text(last_.criterion) +
                    "; solver.pressure.on_unconverged = \"error\"): raise max_iterations or the "
                    "tolerance");
    }
    Kokkos::Profiling::ScopedRegion phase("kflow::mac2d::correction");
    kernels::correct_velocity(space_, op_, dt, f_, g_, p_, u_, v_);
    apply_bc();
    if (s_.force_box[0] > 0)
      kernels::box_momentum(space_, s_.grid, u_, v_, flags_, s_.force_box, box_m_,
                            int(box_steps_ % 2));
    ++box_steps_;
    ++steps_;
  }

  // Interpolated walls: the faces next to a body from the current field
  // (held through the step: the pressure equation's prescribed fluxes).
  void wall_values() {
    for (int c = 0; c < 2; ++c) {
      const auto& w = walls_[c];
      kernels::wall_values(space_, c == 0 ? u_ : v_, w.face, w.partner, w.weight, w.partner2,
                           w.weight2, w.value);
    }
  }

  void apply_bc() {
    kernels::side_bc_x(space_, s_.grid, sides_, u_, v_, inflow_);
    kernels::side_bc_y(space_, s_.grid, sides_, u_, v_, inflow_);
    if (s_.fluid_cells < long(s_.grid.interior_cells()) && s_.walls == Walls::staircase)
      kernels::obstacle_bc(space_, s_.grid, u_, v_, flags_);
    kernels::velocity_max(space_, s_.grid, s_.dt_includes_ghosts, u_, v_, vmax_dev_);
  }

  // max |u|, max |v| of the current state, to the host (waits).
  void read_velocity_max() const {
    Kokkos::deep_copy(space_, vmax_host_, vmax_dev_);
    space_.fence("kflow::mac2d::velocity_max");
    umax_ = double(vmax_host_().max_val);
    vmax_ = -double(vmax_host_().min_val);
  }

  void initialise();
  double taylor_green_error(double t);
  std::vector<double> corner_psi();
  void psi_extrema(Diagnostics& d);

  Setup s_;
  ExecSpace space_{};
  F2 u_, v_, p_, f_, g_, rhs_;
  Flags flags_;
  Kokkos::View<Real**, Kokkos::LayoutLeft, Mem> inflow_;
  // Interpolated walls (Setup::wall_faces per component; surface pieces
  // x, y, nx, ny, length).
  struct WallLists {
    Kokkos::View<int*, Mem> face, partner, partner2;
    Kokkos::View<Real*, Mem> weight, weight2, value;
  } walls_[2];
  Kokkos::View<double* [5], Mem> surface_;
  // The force's control volume (Setup::force_box): its momentum after the
  // last two steps (x, y per slot) and their dts; steps since the start.
  Kokkos::View<double[4], Mem> box_m_{"kflow::mac2d::box_momentum"};
  Kokkos::View<double[2], Mem> box_dt_{"kflow::mac2d::box_dt"};
  long box_steps_ = 0;
  SideParams<Real> sides_{};
  Op op_;
  // method = "kk_cg" or "kk_gmres": over Kokkos Kernels (the configuration
  // refuses them in builds without Kokkos Kernels).
  std::unique_ptr<linalg::Solver<ExecSpace, Real, 2>> make_kk() const {
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
    // (ilu: kk_gmres only, checked by the configuration)
    const bool ilu = s_.preconditioner == Preconditioner::ilu;
    return kk::Krylov<ExecSpace, Op>::make(
        space_, op_,
        {s_.method == Method::kk_gmres,
         cg_preconditioner<linalg::CgPreconditioner>(s_.preconditioner), s_.restart,
         ilu ? s_.ilu_level : -1});
#else
    throw Error("mac2d: solver.pressure.method = \"" + std::string(name(s_.method)) +
                "\" needs Kokkos Kernels, not in this build");
#endif
  }

  std::unique_ptr<linalg::Solver<ExecSpace, Real, 2>> solver_;
  linalg::Multigrid<ExecSpace, Op>* mg_ = nullptr;  // solver_ where it is multigrid
  linalg::SolveStats last_;
  long steps_ = 0, iterations_total_ = 0;
  long unconverged_ = 0;  // pressure solves that stopped at max_iterations
  kernels::VelocityMax<Real, Mem> vmax_dev_{"kflow::mac2d::velocity_max"};
  kernels::VelocityMax<Real, Kokkos::HostSpace> vmax_host_{"kflow::mac2d::velocity_max"};
  mutable double umax_ = 0, vmax_ = 0;
  // dts of the device-chosen steps (Model::step_device_dt), a ring.
  Kokkos::View<double*, Mem> ring_{"kflow::mac2d::dt_ring", std::size_t(kDeviceDtBatch)};
  long ring_next_ = 0;
};

template <class ExecSpace, class Real>
void Model<ExecSpace, Real>::initialise() {
  kernels::initialise(space_, s_, u_, v_, flags_);
}

template <class ExecSpace, class Real>
double Model<ExecSpace, Real>::taylor_green_error(double t) {
  return kernels::taylor_green_error(space_, s_, t, u_);
}

// The stream function at the cell corners (i, j) = 0..imax x 0..jmax, index
// i + (imax + 1) j: psi = 0 at the south-west corner, d psi/dx = -v along
// the south side, then d psi/dy = u up every column (the discrete stream
// function of the MAC grid: its differences are the face velocities).
template <class ExecSpace, class Real>
std::vector<double> Model<ExecSpace, Real>::corner_psi() {
  const auto& g = s_.grid;
  const int nx = g.cells[0], ny = g.cells[1];
  const double dx = g.spacing(0), dy = g.spacing(1);
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u_);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v_);
  std::vector<double> psi(std::size_t(nx + 1) * (ny + 1), 0.0);
  auto P = [&](int i, int j) -> double& {
    return psi[i + std::size_t(nx + 1) * j];
  };
  for (int i = 1; i <= nx; ++i) P(i, 0) = P(i - 1, 0) - double(v(i, 0)) * dx;
  for (int i = 0; i <= nx; ++i)
    for (int j = 1; j <= ny; ++j) P(i, j) = P(i, j - 1) + double(u(i, j)) * dy;
  return psi;
}

// psi_min and psi_max over the interior corners, each with its position,
// refined by a parabola through the neighbours in x and in y.
template <class ExecSpace, class Real>
void Model<ExecSpace, Real>::psi_extrema(Diagnostics& d) {
  const auto& g = s_.grid;
  const int nx = g.cells[0], ny = g.cells[1];
  const auto psi = corner_psi();
  auto P = [&](int i, int j) {
    return psi[i + std::size_t(nx + 1) * j];
  };
  int lo[2] = {1, 1}, hi[2] = {1, 1};
  for (int j = 1; j < ny; ++j)
    for (int i = 1; i < nx; ++i) {
      if (P(i, j) < P(lo[0], lo[1])) lo[0] = i, lo[1] = j;
      if (P(i, j) > P(hi[0], hi[1])) hi[0] = i, hi[1] = j;
    }
  for (const auto& [name, at] : {std::pair{"psi_min", lo}, std::pair{"psi_max", hi}}) {
    const int i = at[0], j = at[1];
    double ox = 0, oy = 0, vx = P(i, j), vy = P(i, j);
    if (nx > 1 && ny > 1) {
      extremum::parabola(P(i - 1, j), P(i, j), P(i + 1, j), ox, vx);
      extremum::parabola(P(i, j - 1), P(i, j), P(i, j + 1), oy, vy);
    }
    const std::string n = name;
    d.emplace_back(n, vx + vy - P(i, j));
    d.emplace_back(n + "_x", g.origin[0] + (i + ox) * g.spacing(0));
    d.emplace_back(n + "_y", g.origin[1] + (j + oy) * g.spacing(1));
  }
}

// Output fields at cell centres, interior cells, i fastest.  Vorticity and
// stream function are computed on the host at output steps only: the
// vorticity at the cell corners, dv/dx - du/dy, averaged to the centre; the
// stream function psi with d psi/dy = u, integrated up from psi = 0 at the
// south-west corner along the west side (d psi/dx = -v), at the corners,
// averaged to the centre.
template <class ExecSpace, class Real>
HostField Model<ExecSpace, Real>::field(const std::string& name, double) {
  const auto* e = find_field(field_table, name);
  if (!e) throw Error("mac2d has no output field '" + name + "'");
  const auto& g = s_.grid;
  const int nx = g.cells[0], ny = g.cells[1];
  const double dx = g.spacing(0), dy = g.spacing(1);
  HostField f;
  f.name = name;
  f.components = e->components;
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u_);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v_);
  auto fl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flags_);
  const std::size_t n = std::size_t(nx) * ny;
  auto idx = [&](int i, int j) {
    return std::size_t(i - 1) + std::size_t(nx) * (j - 1);
  };
  auto fluid = [&](int i, int j) {
    return (fl(i, j) & linalg::mask_bits::self) != 0;
  };
  f.values.assign(std::size_t(f.components) * n, 0.0);
  switch (e->id) {
    case Field::u:  // cell-centred components (for line samples)
    case Field::v:
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          if (fluid(i, j))
            f.values[idx(i, j)] = e->id == Field::u ? 0.5 * (double(u(i, j)) + double(u(i - 1, j)))
                                                    : 0.5 * (double(v(i, j)) + double(v(i, j - 1)));
      break;
    case Field::velocity:
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) {
          if (!fluid(i, j)) continue;
          f.values[3 * idx(i, j)] = 0.5 * (double(u(i, j)) + double(u(i - 1, j)));
          f.values[3 * idx(i, j) + 1] = 0.5 * (double(v(i, j)) + double(v(i, j - 1)));
        }
      break;
    case Field::pressure: {
      auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p_);
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          if (fluid(i, j)) f.values[idx(i, j)] = double(p(i, j));
      break;
    }
    case Field::flags:
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) f.values[idx(i, j)] = fluid(i, j) ? 1.0 : 0.0;
      break;
    case Field::divergence:
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          if (fluid(i, j))
            f.values[idx(i, j)] = (double(u(i, j)) - double(u(i - 1, j))) / dx +
                                  (double(v(i, j)) - double(v(i, j - 1))) / dy;
      break;
    case Field::vorticity: {
      // Corner (i, j) is the north-east corner of cell (i, j), i, j = 0..n.
      auto zeta = [&](int i, int j) {
        return (double(v(i + 1, j)) - double(v(i, j))) / dx -
               (double(u(i, j + 1)) - double(u(i, j))) / dy;
      };
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          if (fluid(i, j))
            f.values[idx(i, j)] =
                0.25 * (zeta(i, j) + zeta(i - 1, j) + zeta(i, j - 1) + zeta(i - 1, j - 1));
      break;
    }
    case Field::stream_function: {
      const auto psi = corner_psi();
      auto P = [&](int i, int j) {
        return psi[i + std::size_t(nx + 1) * j];
      };
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i)
          f.values[idx(i, j)] = 0.25 * (P(i, j) + P(i - 1, j) + P(i, j - 1) + P(i - 1, j - 1));
      break;
    }
  }
  return f;
}

template <class ExecSpace, class Real>
std::unique_ptr<kflow::Model> make_model(const ModelSetup& setup) {
  return std::make_unique<Model<ExecSpace, Real>>(static_cast<const Setup&>(setup));
}

}  // namespace kflow::mac2d
