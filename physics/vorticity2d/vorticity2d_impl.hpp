#pragma once
// Kokkos implementation of physics/vorticity2d (included only by the
// generated per-(backend, precision) translation units).
//
// One time step, all on the device (the thesis's Alg. 17 order):
//   b_psi = -omega - (ring terms)            -> CG: lap psi = -omega
//   boundary ring: omega from psi (thesis | Thom | Woods), outflow copies
//   right-hand sides of omega and T: face velocities from psi, explicit
//   convection (upwind | TVD) and buoyancy C dT/dx, ring terms
//   -> CG: (I - dt kappa lap) T,  CG: (I - dt nu lap) omega
//   temperature ring: zero-gradient copies
// Every field holds the interior nodes 1..n and the boundary ring (0, n+1).

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "extremum.hpp"
#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/field.hpp"
#include "kflow/linalg/multigrid.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/state_view.hpp"
#include "kk_krylov.hpp"
#include "vorticity2d.hpp"
#include "vorticity2d_kernels.hpp"

namespace kflow::vorticity2d {

template <class ExecSpace, class Real>
class Model final : public kflow::Model {
  using Mem = typename ExecSpace::memory_space;
  using F2 = linalg::Field<Real, 2, Mem>;
  using Op = linalg::Uniform5<Real>;
  using Cg = linalg::ConjugateGradient<ExecSpace, Op>;
  using Mg = linalg::Multigrid<ExecSpace, Op>;
  using Solver = linalg::Solver<ExecSpace, Real, 2>;

 public:
  explicit Model(const Setup& s) : s_(s) {
    const auto& g = s_.nodes;
    const int nx = g.cells[0], ny = g.cells[1];
    // x is the fast index (LayoutLeft), as the thesis's matrices have it; its
    // printed lexi formula swaps i and j.
    psi_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::psi", g);
    omega_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::omega", g);
    temp_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::temperature", g);
    bpsi_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::b_psi", g);
    if (s_.extrapolate_psi)
      psi_prev_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::psi_previous", g);
    bw_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::b_omega", g);
    bt_ = linalg::make_field<Real, 2>(space_, "kflow::vorticity2d::b_temperature", g);
    m_.nx = nx, m_.ny = ny;
    m_.hx = Real(g.spacing(0)), m_.hy = Real(g.spacing(1));
    for (int sd = 0; sd < 4; ++sd) {
      m_.kind[sd] = int(s_.side[sd].kind);
      m_.thermal[sd] = int(s_.side[sd].thermal);
      m_.tfix[sd] = Real(s_.side[sd].temperature);
    }
    m_.wall_vorticity = int(s_.wall_vorticity);
    m_.convection = int(s_.convection);
    m_.heat = s_.heat;
    m_.buoyancy = Real(s_.buoyancy);
    const int nmax = std::max(nx, ny) + 2;
    psin_ = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>(
        Kokkos::view_alloc(space_, "kflow::vorticity2d::psi_normal"), nmax, 4);
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), psin_);
      Kokkos::deep_copy(h, 0.0);
      for (int sd = 0; sd < 4; ++sd)
        for (std::size_t k = 0; k < s_.psi_normal[sd].size(); ++k) h(k, sd) = s_.psi_normal[sd][k];
      Kokkos::deep_copy(space_, psin_, h);
    }
    initialise();

    const double hx = g.spacing(0), hy = g.spacing(1);
    bool open[4];
    for (int sd = 0; sd < 4; ++sd) open[sd] = s_.side[sd].kind == Kind::outflow;
    op_psi_ = make_op(-2 / (hx * hx) - 2 / (hy * hy), 1 / (hx * hx), 1 / (hy * hy), open);
    const auto pre = cg_preconditioner<linalg::CgPreconditioner>(s_.preconditioner);
    if (s_.method == Method::mg) {
      auto mg = std::make_unique<Mg>(space_, op_psi_, s_.mg);
      mg_psi_ = mg.get();
      solver_psi_ = std::move(mg);
    } else if (over_kokkos_kernels(s_.method)) {
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
      solver_psi_ = kk::Krylov<ExecSpace, Op>::make(
          space_, op_psi_, {s_.method == Method::kk_gmres, pre, s_.restart});
#else
      throw Error("vorticity2d: solver.method = \"" + std::string(name(s_.method)) +
                  "\" needs Kokkos Kernels, not in this build");
#endif
    } else {
      solver_psi_ = std::make_unique<Cg>(space_, op_psi_, linalg::CgOptions(pre, s_.mg));
    }
    // omega and T: Jacobi where psi has multigrid (docs/linalg.md: the
    // coarse levels halve the identity term of I - dt k lap).
    const linalg::CgOptions o{pre == linalg::CgPreconditioner::mg ? linalg::CgPreconditioner::jacobi
                                                                  : pre};
    bool adiabatic[4];
    for (int sd = 0; sd < 4; ++sd) adiabatic[sd] = s_.side[sd].thermal == Thermal::adiabatic;
    op_w_ = diffusion_op(1.0, s_.nu, open);
    op_t_ = diffusion_op(1.0, s_.kappa, adiabatic);
    cg_w_ = std::make_unique<Cg>(space_, op_w_, o);
    if (s_.heat) cg_t_ = std::make_unique<Cg>(space_, op_t_, o);
  }

  const linalg::Grid& grid() const override {
    return s_.grid;
  }
  void fence() override {
    space_.fence("kflow::vorticity2d::fence");
  }

  // Per node and step, an ideal implementation reads omega and writes b_psi,
  // reads psi, omega, T and writes two right-hand sides, and per CG iteration
  // moves about 9 values (direction: r, p_old in, p, q out; update: x, r in
  // and out, p, q in); a multigrid cycle what Multigrid::values_per_cell says.
  double bytes_per_cell_step() const override {
    const double psi = mg_psi_ ? mg_psi_->values_per_cell() : 9;
    return sizeof(Real) *
           (2 + 5 + psi * last_[0].iterations + 9 * (last_[1].iterations + last_[2].iterations));
  }

  double stable_dt(double) const override {
    double rate = 0, umax = 0, vmax = 0;
    kernels::velocity_bounds(space_, s_.nodes, m_, psi_, rate, umax, vmax);
    space_.fence("kflow::vorticity2d::stable_dt");
    // the boundary's own speeds (a lid) count as well: they drive the flow
    const double ub = s_.ref_velocity;
    rate = std::max(rate, ub / s_.nodes.spacing(0) + ub / s_.nodes.spacing(1));
    // TVD with explicit Euler: Courant number <= 1/2 (van Leer).
    double dt = (rate > 0 ? 1 / rate : std::numeric_limits<double>::infinity()) *
                (s_.convection == Convection::tvd ? 0.5 : 1.0);
    const double h = std::min(s_.nodes.spacing(0), s_.nodes.spacing(1));
    if (s_.buoyancy > 0 && s_.ref_dt > 0)
      dt = std::min(dt, 1 / std::sqrt(s_.buoyancy * s_.ref_dt / h));
    return std::min(dt, wall_vorticity_limit(s_.wall_vorticity) * h * h / s_.nu);
  }

  void step(double, double dt) override {
    Kokkos::Profiling::ScopedRegion region("kflow::vorticity2d::step");
    const auto& g = s_.nodes;
    {
      Kokkos::Profiling::ScopedRegion phase("kflow::vorticity2d::stream_function");
      kernels::rhs_psi(space_, g, m_, psi_, omega_, bpsi_);
      // Extrapolated guess: the same residual criterion from closer (fewer
      // iterations); the first step (dt_prev_ = 0) starts from psi.
      if (s_.extrapolate_psi) {
        kernels::extrapolate(space_, g, psi_, psi_prev_, Real(dt_prev_ > 0 ? dt / dt_prev_ : 0.0));
        dt_prev_ = dt;
      }
      last_[0] = solve(*solver_psi_, psi_, bpsi_, "stream function");
      kernels::ring(space_, m_, psin_, psi_, omega_, temp_, 1);
    }
    Kokkos::Profiling::ScopedRegion phase("kflow::vorticity2d::transport");
    if (dt != op_dt_) {
      op_dt_ = dt;
      bool open[4], adiabatic[4];
      for (int sd = 0; sd < 4; ++sd) {
        open[sd] = s_.side[sd].kind == Kind::outflow;
        adiabatic[sd] = s_.side[sd].thermal == Thermal::adiabatic;
      }
      op_w_ = diffusion_op(dt, s_.nu, open);
      cg_w_->set_operator(op_w_);
      if (s_.heat) {
        op_t_ = diffusion_op(dt, s_.kappa, adiabatic);
        cg_t_->set_operator(op_t_);
      }
    }
    kernels::rhs_transport(space_, g, m_, dt, s_.nu, s_.kappa, psi_, omega_, temp_, bw_, bt_);
    if (s_.heat) {
      last_[2] = solve(*cg_t_, temp_, bt_, "temperature");
      kernels::ring(space_, m_, psin_, psi_, omega_, temp_, 2);
    }
    last_[1] = solve(*cg_w_, omega_, bw_, "vorticity");
    ++steps_;
  }

  Diagnostics diagnostics(double) override;
  HostField field(const std::string& name, double) override;

  std::vector<StateArray> save_state() override {
    std::vector<StateArray> r;
    for (auto* f : {&psi_, &omega_, &temp_}) r.push_back(to_state(*f));
    if (s_.extrapolate_psi) r.push_back(to_state(psi_prev_));
    r.push_back(counters_state({double(steps_), double(iterations_[0]), double(iterations_[1]),
                                double(iterations_[2]), double(unconverged_), dt_prev_}));
    return r;
  }

  void restore_state(const std::vector<StateArray>& state) override {
    for (auto* f : {&psi_, &omega_, &temp_}) from_state(space_, state, *f);
    // A checkpoint without the previous psi (written with guess =
    // "previous"): the next step starts from psi, as a first step.
    dt_prev_ = 0;
    const bool has_prev = find_state(state, psi_prev_.label()) != nullptr;
    if (s_.extrapolate_psi && has_prev) from_state(space_, state, psi_prev_);
    auto c = state_counters(state);
    if (c.size() == 5 || c.size() == 6) {
      c.resize(6, 0.0);
      steps_ = long(c[0]), iterations_[0] = long(c[1]), iterations_[1] = long(c[2]);
      iterations_[2] = long(c[3]), unconverged_ = long(c[4]);
      if (has_prev) dt_prev_ = c[5];
    }
  }

 private:
  Op make_op(double p, double cx, double cy, const bool neumann[4]) const {
    Op op;
    op.c = {Real(p), Real(cx), Real(cx), Real(cy), Real(cy)};
    for (int sd = 0; sd < 4; ++sd) op.neumann[sd] = neumann[sd];
    op.grid = s_.nodes;
    linalg::set_neighbours(op, s_.nodes, false, false);
    return op;
  }
  // I - dt k lap
  Op diffusion_op(double dt, double k, const bool neumann[4]) const {
    const double hx = s_.nodes.spacing(0), hy = s_.nodes.spacing(1);
    const double ax = dt * k / (hx * hx), ay = dt * k / (hy * hy);
    return make_op(1 + 2 * ax + 2 * ay, -ax, -ay, neumann);
  }

  linalg::SolveStats solve(Solver& solver, const F2& x, const F2& b, const char* what) {
    linalg::SolveControl c = s_.control;
    c.stop = solve_stop_flag();
    const int k = what[0] == 's' ? 0 : what[0] == 'v' ? 1 : 2;
    if (sizeof(Real) == 4 && c.tolerance > 0)
      c.tolerance =
          std::max(c.tolerance, float_tolerance(s_.nodes.cells[0], s_.nodes.cells[1], k == 0));
    const auto st = solver.solve(x, b, c);
    iterations_[k] += st.iterations;
    if (s_.control.tolerance > 0 && !st.converged) {
      ++unconverged_;
      if (s_.unconverged_is_error)
        throw Error(std::string("the ") + what + " solve did not converge to " +
                    std::to_string(s_.control.tolerance) + " in " + std::to_string(st.iterations) +
                    " iterations (solver.on_unconverged = \"error\"); raise "
                    "solver.max_iterations or reduce time.dt");
    }
    return st;
  }

  // psi on the ring (interior 0), omega = 0 (fluid at rest: thesis sec. 3.2),
  // T initial and fixed ring values; corners of T take a fixed side's value.
  void initialise() {
    const auto& g = s_.nodes;
    const int nx = g.cells[0], ny = g.cells[1], ex = nx + 2;
    auto hp = Kokkos::create_mirror_view(Kokkos::HostSpace(), psi_);
    for (int j = 0; j < ny + 2; ++j)
      for (int i = 0; i < ex; ++i) hp(i, j) = Real(s_.psi_ring(i, j));
    Kokkos::deep_copy(space_, psi_, hp);
    Kokkos::deep_copy(space_, omega_, Real(0));
    auto ht = Kokkos::create_mirror_view(Kokkos::HostSpace(), temp_);
    for (int j = 0; j < ny + 2; ++j)
      for (int i = 0; i < ex; ++i) {
        const double x = s_.grid.origin[0] + (i + 0.5) * s_.grid.spacing(0);
        ht(i, j) = Real(s_.split_initial ? (x < s_.split ? s_.t_left : s_.t_right) : s_.t0);
      }
    if (s_.heat) {
      auto fixed = [&](int sd) {
        return s_.side[sd].thermal == Thermal::fixed;
      };
      for (int sd = 0; sd < 4; ++sd) {
        if (!fixed(sd)) continue;
        const Real t = Real(s_.side[sd].temperature);
        const int n = sd < 2 ? ny : nx;
        for (int k = 0; k <= n + 1; ++k) {
          const int i = sd == 0 ? 0 : sd == 1 ? nx + 1 : k, j = sd == 2 ? 0 : sd == 3 ? ny + 1 : k;
          ht(i, j) = t;
        }
      }
      // a corner between two fixed sides: their mean
      const int cs[4][3] = {{0, 0, 0}, {1, nx + 1, 0}, {0, 0, ny + 1}, {1, nx + 1, ny + 1}};
      for (int c = 0; c < 4; ++c) {
        const int x = cs[c][0], y = c < 2 ? 2 : 3;
        if (fixed(x) && fixed(y))
          ht(cs[c][1], cs[c][2]) = Real(0.5 * (s_.side[x].temperature + s_.side[y].temperature));
      }
    }
    Kokkos::deep_copy(space_, temp_, ht);
    if (s_.heat) kernels::ring(space_, m_, psin_, psi_, omega_, temp_, 2);
    space_.fence("kflow::vorticity2d::initialise");
  }

  Setup s_;
  ExecSpace space_;
  Params<Real> m_;
  F2 psi_, omega_, temp_, bpsi_, bw_, bt_;
  F2 psi_prev_;         // the last step's psi (guess = "extrapolated")
  double dt_prev_ = 0;  // the last step's dt (0: none yet)
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> psin_;
  Op op_psi_, op_w_, op_t_;
  double op_dt_ = 1.0;  // the dt the transport operators were built with
  std::unique_ptr<Solver> solver_psi_;
  Mg* mg_psi_ = nullptr;  // solver_psi_ where it is multigrid
  std::unique_ptr<Cg> cg_w_, cg_t_;
  linalg::SolveStats last_[3];  // psi, omega, T
  long iterations_[3] = {0, 0, 0};
  long steps_ = 0, unconverged_ = 0;
};

// Host copies of the fields on the nodes and the ring, as (nx+2) x (ny+2) cells.
template <class ExecSpace, class Real>
HostField Model<ExecSpace, Real>::field(const std::string& name, double) {
  const auto* e = find_field(field_table, name);
  if (!e) throw Error("vorticity2d has no output field '" + name + "'");
  const auto& g = s_.nodes;
  const int nx = g.cells[0], ny = g.cells[1], ex = nx + 2, ey = ny + 2;
  const double hx = g.spacing(0), hy = g.spacing(1);
  HostField f;
  f.name = name;
  f.components = e->components;
  const std::size_t n = std::size_t(ex) * ey;
  auto idx = [&](int i, int j) {
    return std::size_t(i) + std::size_t(ex) * j;
  };
  auto corners = [&](auto& v) {  // a corner: the mean of its two ring neighbours
    v[idx(0, 0)] = 0.5 * (v[idx(1, 0)] + v[idx(0, 1)]);
    v[idx(ex - 1, 0)] = 0.5 * (v[idx(ex - 2, 0)] + v[idx(ex - 1, 1)]);
    v[idx(0, ey - 1)] = 0.5 * (v[idx(1, ey - 1)] + v[idx(0, ey - 2)]);
    v[idx(ex - 1, ey - 1)] = 0.5 * (v[idx(ex - 2, ey - 1)] + v[idx(ex - 1, ey - 2)]);
  };
  auto copy = [&](const F2& a) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    std::vector<double> v(n);
    for (int j = 0; j < ey; ++j)
      for (int i = 0; i < ex; ++i) v[idx(i, j)] = double(h(i, j));
    return v;
  };
  switch (e->id) {
    case Field::stream_function:
      f.values = copy(psi_);
      break;
    case Field::vorticity:
      f.values = copy(omega_);
      corners(f.values);
      break;
    case Field::temperature:
      f.values = copy(temp_);
      if (!s_.heat) std::fill(f.values.begin(), f.values.end(), 0.0);
      break;
    case Field::velocity:
    case Field::u:
    case Field::v: {
      const auto p = copy(psi_);
      std::vector<double> u(n, 0.0), v(n, 0.0);
      for (int j = 1; j <= ny; ++j)
        for (int i = 1; i <= nx; ++i) {
          u[idx(i, j)] = (p[idx(i, j + 1)] - p[idx(i, j - 1)]) / (2 * hy);
          v[idx(i, j)] = -(p[idx(i + 1, j)] - p[idx(i - 1, j)]) / (2 * hx);
        }
      // ring: the normal component from psi along the side, the tangential one
      // from the side's condition (walls, inflows) or one-sided (outflow)
      for (int sd = 0; sd < 4; ++sd) {
        const int len = sd < 2 ? ny : nx;
        for (int k = 1; k <= len; ++k) {
          const int i = sd == 0 ? 0 : sd == 1 ? nx + 1 : k, j = sd == 2 ? 0 : sd == 3 ? ny + 1 : k;
          const bool open = s_.side[sd].kind == Kind::outflow;
          if (sd < 2) {  // west/east: u normal, v tangential
            u[idx(i, j)] = (p[idx(i, j + 1)] - p[idx(i, j - 1)]) / (2 * hy);
            const int d = sd == 0 ? 1 : -1;
            v[idx(i, j)] =
                open ? -d * (-3 * p[idx(i, j)] + 4 * p[idx(i + d, j)] - p[idx(i + 2 * d, j)]) /
                           (2 * hx)
                     : (sd == 0 ? -1.0 : 1.0) * s_.psi_normal[sd][k];
          } else {
            v[idx(i, j)] = -(p[idx(i + 1, j)] - p[idx(i - 1, j)]) / (2 * hx);
            const int d = sd == 2 ? 1 : -1;
            u[idx(i, j)] =
                open ? d * (-3 * p[idx(i, j)] + 4 * p[idx(i, j + d)] - p[idx(i, j + 2 * d)]) /
                           (2 * hy)
                     : (sd == 2 ? 1.0 : -1.0) * s_.psi_normal[sd][k];
          }
        }
      }
      corners(u);
      corners(v);
      if (e->id == Field::velocity) {
        f.values.assign(3 * n, 0.0);
        for (std::size_t c = 0; c < n; ++c) f.values[3 * c] = u[c], f.values[3 * c + 1] = v[c];
      } else {
        f.values = e->id == Field::u ? u : v;
      }
      break;
    }
  }
  return f;
}

template <class ExecSpace, class Real>
Diagnostics Model<ExecSpace, Real>::diagnostics(double) {
  Diagnostics d;
  const auto& g = s_.nodes;
  const int nx = g.cells[0], ny = g.cells[1];
  const double hx = g.spacing(0), hy = g.spacing(1);
  double rate = 0, umax = 0, vmax = 0;
  kernels::velocity_bounds(space_, g, m_, psi_, rate, umax, vmax);
  // Extremum of psi over the interior nodes with its position refined by a
  // parabola through the neighbours in x and y.
  using MinMax = Kokkos::MinMaxLoc<double, int>;
  typename MinMax::value_type mm;
  const F2 psi = psi_;
  Kokkos::parallel_reduce(
      "kflow::vorticity2d::psi_extrema",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int>>(space_, 0, nx * ny),
      KOKKOS_LAMBDA(int k, typename MinMax::value_type& a) {
        const int i = 1 + k % nx, j = 1 + k / nx;
        const double v = double(psi(i, j));
        if (v < a.min_val) a.min_val = v, a.min_loc = k;
        if (v > a.max_val) a.max_val = v, a.max_loc = k;
      },
      MinMax(mm));
  auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), psi_);
  auto extremum = [&](int k, const char* name) {
    const int i = 1 + k % nx, j = 1 + k / nx;
    double ox, oy, vx, vy;
    extremum::parabola(double(hp(i - 1, j)), double(hp(i, j)), double(hp(i + 1, j)), ox, vx);
    extremum::parabola(double(hp(i, j - 1)), double(hp(i, j)), double(hp(i, j + 1)), oy, vy);
    const std::string n = name;
    d.emplace_back(n, vx + vy - double(hp(i, j)));
    d.emplace_back(n + "_x", g.origin[0] + (i - 0.5 + ox) * hx);
    d.emplace_back(n + "_y", g.origin[1] + (j - 0.5 + oy) * hy);
  };
  extremum(mm.min_loc, "psi_min");
  extremum(mm.max_loc, "psi_max");
  d.emplace_back("u_max", umax);
  d.emplace_back("v_max", vmax);
  d.emplace_back("psi_iterations", last_[0].iterations);
  d.emplace_back("omega_iterations", last_[1].iterations);
  if (s_.heat) d.emplace_back("temperature_iterations", last_[2].iterations);
  d.emplace_back("solver_iterations_total",
                 double(iterations_[0] + iterations_[1] + iterations_[2]));
  d.emplace_back("unconverged_solves", double(unconverged_));

  if (s_.heat) {
    // Nusselt numbers of the hottest and coldest fixed-temperature sides:
    // mean over the side of the heat flux into (hot) or out of (cold) the
    // fluid, times L / delta T, L the distance to the opposite side; the
    // gradient one-sided second order, the mean by the trapezoidal rule
    // over the side's nodes (corners included).
    auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), temp_);
    int hot = -1, cold = -1;
    for (int sd = 0; sd < 4; ++sd) {
      if (s_.side[sd].thermal != Thermal::fixed) continue;
      if (hot < 0 || s_.side[sd].temperature > s_.side[hot].temperature) hot = sd;
      if (cold < 0 || s_.side[sd].temperature < s_.side[cold].temperature) cold = sd;
    }
    auto nusselt = [&](int sd) {
      const int len = sd < 2 ? ny : nx;
      const double hn = sd < 2 ? hx : hy;
      double sum = 0;
      for (int k = 0; k <= len + 1; ++k) {
        const int i0 = sd == 0 ? 0 : sd == 1 ? nx + 1 : k, j0 = sd == 2 ? 0 : sd == 3 ? ny + 1 : k;
        const int di = sd == 0 ? 1 : sd == 1 ? -1 : 0, dj = sd == 2 ? 1 : sd == 3 ? -1 : 0;
        const double dn = (-3 * double(ht(i0, j0)) + 4 * double(ht(i0 + di, j0 + dj)) -
                           double(ht(i0 + 2 * di, j0 + 2 * dj))) /
                          (2 * hn);
        sum += (k == 0 || k == len + 1 ? 0.5 : 1.0) * dn;
      }
      const double mean = sum / (len + 1);
      const double width = sd < 2 ? (nx + 1) * hx : (ny + 1) * hy;
      const double dT = s_.side[hot].temperature - s_.side[cold].temperature;
      return mean * width / dT;
    };
    if (hot >= 0 && cold >= 0 && s_.side[hot].temperature > s_.side[cold].temperature) {
      d.emplace_back("nusselt_hot", -nusselt(hot));
      d.emplace_back("nusselt_cold", nusselt(cold));
    }
    // Velocity maxima on the mid-lines, in units of kappa / L: u on the
    // vertical line x = x0 + Lx/2, v on the horizontal line y = y0 + Ly/2
    // (linear between the two node columns/rows around it; position and
    // value refined by a parabola).
    const double vs = s_.velocity_scale;
    auto profile = [&](bool vertical, std::vector<double>& out) {
      const int len = vertical ? ny : nx;
      const double c = 0.5 * (vertical ? (nx + 1) : (ny + 1));  // mid-line in node units
      const int a = int(std::floor(c));
      const double w = c - a;
      out.assign(len + 2, 0.0);
      for (int k = 1; k <= len; ++k) {
        auto val = [&](int line) {
          return vertical ? (double(hp(line, k + 1)) - double(hp(line, k - 1))) / (2 * hy)
                          : -(double(hp(k + 1, line)) - double(hp(k - 1, line))) / (2 * hx);
        };
        out[k] = (1 - w) * val(a) + (w > 0 ? w * val(a + 1) : 0.0);
      }
    };
    for (const bool vertical : {true, false}) {
      std::vector<double> pr;
      profile(vertical, pr);
      int best = 1;
      for (int k = 1; k + 1 < int(pr.size()); ++k)
        if (pr[k] > pr[best]) best = k;
      double off = 0, val = pr[best];
      if (best > 1 && best + 2 < int(pr.size()))
        extremum::parabola(pr[best - 1], pr[best], pr[best + 1], off, val);
      const double h = vertical ? hy : hx;
      const double pos =
          (vertical ? s_.grid.origin[1] : s_.grid.origin[0]) + (best + 0.5 + off) * h;
      d.emplace_back(vertical ? "midline_u_max" : "midline_v_max", val * vs);
      d.emplace_back(vertical ? "midline_u_max_y" : "midline_v_max_x", pos);
    }
  }
  for (const auto& [k, v] : s_.numbers) d.emplace_back(k, v);
  return d;
}

template <class ExecSpace, class Real>
std::unique_ptr<kflow::Model> make_model(const ModelSetup& setup) {
  return std::make_unique<Model<ExecSpace, Real>>(static_cast<const Setup&>(setup));
}

}  // namespace kflow::vorticity2d
