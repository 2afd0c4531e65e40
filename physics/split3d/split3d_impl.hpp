#pragma once
// Kokkos implementation of physics/split3d (included only by the generated
// per-(backend, precision) translation units).
//
// One time step (Berezin et al. 2012, sec. 4; docs/models/split3d.md, decisions 4-8):
//   u~ <- U^n
//   repeat global_iterations:
//     in <- U^n
//     for dir in X, Y, Z:
//       out <- in                      (boundary nodes the sweep does not solve)
//       repeat local_iterations:
//         u, v, w and T in one batch: every line's rows built in its Thomas
//                                       solve (cyclic along a periodic axis;
//                                       X with x and y exchanged, swap_xy)
//         periodic ghosts of out
//         u~ <- (u~ + out)/2  (relaxed)  or  u~ <- out  (picard); its ghosts
//                                      (X exchanged: the last one on the way
//                                       back, update_back)
//       in <- out
//   U^{n+1} <- out
//   [physics] projection = true (not the paper's): lap phi = div u / dt,
//     u -= dt grad phi (CG + multigrid by default, on the interior nodes;
//     in double in both precisions)
//   divergence error, stop above run.divergence_limit

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kflow/linalg/cg.hpp"
#include "kflow/linalg/field.hpp"
#include "kflow/linalg/multigrid.hpp"
#include "kflow/linalg/stencil7.hpp"
#include "kflow/linalg/tridiag.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/state_view.hpp"
#include "kk_krylov.hpp"
#include "split3d.hpp"
#include "split3d_force.hpp"
#include "split3d_kernels.hpp"
#include "split3d_params.hpp"
#include "split3d_pressure.hpp"
#include "split3d_walls.hpp"

namespace kflow::split3d {

template <class ExecSpace, class Real>
class Model final : public kflow::Model {
  using Mem = typename ExecSpace::memory_space;
  using F3 = linalg::Field3<Real, Mem>;
  using V = Vars<Real, Mem>;
  // The projection in double in both precisions: in float its residual
  // stalls near eps (n + 1)^2 (docs/models/split3d.md, "Float and the
  // projection").
  using PF3 = linalg::Field3<double, Mem>;
  using Op = linalg::Stencil7<double, Mem>;
  using Cg = linalg::ConjugateGradient<ExecSpace, Op>;

 public:
  explicit Model(const Setup& s)
      : s_(s),
        p_(make_params<Real>(s)),
        tri_(space_),
        side_(linalg::side_instance(space_)),
        tri_side_(side_) {
    state_ = make_vars<Real>(space_, "kflow::split3d::state", s_.nodes);
    nl_ = make_vars<Real>(space_, "kflow::split3d::layer", s_.nodes);
    work_[0] = make_vars<Real>(space_, "kflow::split3d::work_x", s_.nodes);
    work_[1] = make_vars<Real>(space_, "kflow::split3d::work_y", s_.nodes);
    const std::size_t n = state_.q[0].span();
    if (4 * n >= std::size_t(INT_MAX))  // LineRows' flat indices are ints
      throw Error("split3d: 4 x " + std::to_string(n) +
                  " nodes are more than one run indexes (2^31)");
    // One assembly on every backend: the rows built in the Thomas solve, X in
    // the frame with x and y exchanged, periodic lines too (cyclic,
    // Tridiag::start_rows_cyclic); the measured forms: docs/models/split3d.md,
    // "Assembly".
    // The four variables' lines, one after the other in Vars::all.
    auto four = [n](linalg::TridiagShape sh) {
      sh.count[2] = 4;
      sh.system_stride[2] = long(n);
      return sh;
    };
    {  // X in the frame with x and y exchanged (swap_xy)
      const std::size_t et[3] = {std::size_t(p_.e[1]), std::size_t(p_.e[0]), std::size_t(p_.e[2])};
      in_t_ = make_vars<Real>(space_, "kflow::split3d::input_xy", et);
      nl_t_ = make_vars<Real>(space_, "kflow::split3d::layer_xy", et);
      out_t_ = make_vars<Real>(space_, "kflow::split3d::work_xy", et);
      shape_t_ = four(line_systems(swap_xy(p_), 1));
    }
    flux_ = linalg::make_field<Real, 3>(space_, "kflow::split3d::divergence", s_.nodes);
    change_ = Kokkos::View<Real, Mem>("kflow::split3d::change");
    for (int d = 0; d < 3; ++d) {
      shape4_[d] = four(line_systems(p_, d));
    }
    if (!s_.solid.empty()) {
      solid_ =
          Mask<Mem>(Kokkos::view_alloc(space_, "kflow::split3d::solid"), p_.e[0], p_.e[1], p_.e[2]);
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), solid_);
      for (std::size_t m = 0; m < s_.solid.size(); ++m) h.data()[m] = s_.solid[m];
      Kokkos::deep_copy(space_, solid_, h);
      solid_t_ = Mask<Mem>(Kokkos::view_alloc(space_, "kflow::split3d::solid_xy"), p_.e[1], p_.e[0],
                           p_.e[2]);
      linalg::transpose_xy(space_, solid_, solid_t_);
      if (!s_.cut_lo[0].empty()) walls_ = cut_walls(space_, s_, p_.e);
    }
    if (s_.projection) make_projection();
    std::vector<double> init[4];
    initial_state(s_, init);
    for (int q = 0; q < 4; ++q) {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), state_.q[q]);
      for (std::size_t m = 0; m < init[q].size(); ++m) h.data()[m] = Real(init[q][m]);
      Kokkos::deep_copy(space_, state_.q[q], h);
    }
    space_.fence("kflow::split3d::initialise");
  }

  const linalg::Grid& grid() const override { return s_.grid; }
  void fence() override { space_.fence("kflow::split3d::fence"); }

  // Per node, variable and solve, an ideal fused implementation reads the
  // input and the nonlinear layer it needs (about 6 values) and writes the
  // output once; the layer update reads the layer and the output (4 values
  // each) and writes the layer.
  // With numerics.change_tolerance the last step's local iterations count.
  double bytes_per_cell_step() const override {
    const double sweeps =
        last_sweeps_ > 0 ? last_sweeps_ : 3.0 * s_.local_iterations * s_.global_iterations;
    return sizeof(Real) * sweeps * (4 * 7.0 + 12);
  }

  // The scheme is implicit: the case's time.dt is the step (no stability
  // bound; the Peclet check is on the grid).
  double stable_dt(double) const override { return std::numeric_limits<double>::infinity(); }

  // Each phase of a step is a Kokkos Profiling region inside the step's
  // (kflow bench times them: region_bytes).
  void step(double, double dt) override {
    Kokkos::Profiling::ScopedRegion step_region("kflow::split3d::step");
    // Decision 4: tau = dt per direction (classical LOD); "third": dt / 3 as
    // the authors' code.
    p_.tau = Real(s_.third ? dt / 3 : dt);
    const Params<Real> p_t = swap_xy(p_);
    if (s_.incremental) {  // the pressure of the last step acts on this one's input
      Kokkos::Profiling::ScopedRegion phase("kflow::split3d::projection");
      project(space_, p_, state_, solid_, phi_, dt);
      wrap(space_, p_, state_);
    }
    const bool picard = s_.update == Update::picard;
    const V* out = nullptr;
    const double tol = s_.change_tolerance;
    last_sweeps_ = 0;
    for (int g = 0; g < s_.global_iterations; ++g) {
      const V* in = &state_;
      bool settled = true;                 // every direction met tol at its first local iteration
      for (int dir = 0; dir < 3; ++dir) {  // decision 8: X, Y, Z
        const V& o = work_[dir % 2];
        // The frame of this direction's sweeps: X solves in the frame with x
        // and y exchanged, as its direction Y (swap_xy; ũ starts there as
        // U^n, nl_t_ with in_t_).
        const bool xy = dir == 0;
        const Params<Real>& pf = xy ? p_t : p_;
        const int df = xy ? 1 : dir;
        const V& inf = xy ? in_t_ : *in;
        const V& of = xy ? out_t_ : o;
        const V& nlf = xy ? nl_t_ : nl_;
        const Mask<Mem>& sf = walls_.sweep_mask[dir].data() ? walls_.sweep_mask[dir]
                              : xy                          ? solid_t_
                                                            : solid_;
        if (xy) {
          Kokkos::Profiling::ScopedRegion phase("kflow::split3d::transpose");
          // X's input is U^n in every global iteration, and so is ũ in the first
          if (g == 0)
            swap_xy(space_, *in, in_t_, nl_t_);
          else
            swap_xy(space_, nl_, nl_t_);
        }
        {
          Kokkos::Profiling::ScopedRegion phase("kflow::split3d::copies");
          copy_unsolved(space_, pf, df, inf, of);
        }
        int used = 0;  // local iterations of this direction
        bool met = false, back = false;
        for (int l = 0; l < s_.local_iterations; ++l) {
          {
            Kokkos::Profiling::ScopedRegion phase(sweep_region[dir]);
            // u, v, w in one batch, T in another (RowPart), the rows built in
            // the solve.  T's launch on side_, beside the velocity's: fewer
            // threads, more registers each, so on a GPU its last wave leaves
            // SMs to the other (192^3 sweeps 38 -> 51-53 % of the ceiling in
            // double: docs/performance.md, "Tuning choices").  side_ starts
            // after what space_ queued; the next work waits for both.
            // Periodic lines alike, in the cyclic solve.
            const linalg::TridiagShape& sh4 = xy ? shape_t_ : shape4_[dir];
            const LineRows<Real, Mem, RowPart::temperature> tr(pf, df, nlf, inf, sf,
                                                               walls_.sweep[dir]);
            const LineRows<Real, Mem, RowPart::velocity> vr(pf, df, nlf, inf, sf,
                                                            walls_.sweep[dir]);
            space_.fence("kflow::split3d::sweep");
            if (pf.periodic[df]) {
              tri_side_.start_rows_cyclic(vars_of(sh4, 3, 1), tr, of.all);
              tri_.start_rows_cyclic(vars_of(sh4, 0, 3), vr, of.all);
            } else {
              tri_side_.start_rows(vars_of(sh4, 3, 1), tr, of.all);
              tri_.start_rows(vars_of(sh4, 0, 3), vr, of.all);
            }
            tri_side_.finish();
            tri_.finish();
          }
          // X's last local iteration: the update on the way back to the
          // model's frame.  It gives no change: the stopping rule reads the
          // last iteration's only when it is also the first (`settled`).
          back = xy && l == s_.local_iterations - 1 && !(tol > 0 && l == 0);
          {
            Kokkos::Profiling::ScopedRegion phase(back ? "kflow::split3d::update_back"
                                                       : "kflow::split3d::update");
            wrap(space_, pf, of);  // periodic ghosts of what this sweep solved
            if (back) {
              update_back(space_, pf, picard, nlf, of, nl_, o);
              wrap(space_, p_, nl_);
            } else {
              update(space_, pf, df, picard, nlf, of, change_);
              wrap(space_, pf, nlf);
            }
          }
          ++used;
          if (tol > 0 && !back) {  // one scalar read back: the stopping rule's
            Kokkos::deep_copy(space_, change_host_, change_);
            space_.fence("kflow::split3d::change");
            met = double(change_host_()) <= tol;
            if (met) break;
          }
        }
        if (xy && !back) {  // back to the model's frame (met before the last iteration)
          Kokkos::Profiling::ScopedRegion phase("kflow::split3d::transpose");
          swap_xy(space_, out_t_, o);
          swap_xy(space_, nl_t_, nl_);
        }
        last_sweeps_ += used;
        settled = settled && met && used == 1;
        in = out = &o;
      }
      if (settled) break;
    }
    sweeps_ += last_sweeps_;
    {
      Kokkos::Profiling::ScopedRegion phase("kflow::split3d::copies");
      for (int q = 0; q < 4; ++q) Kokkos::deep_copy(space_, state_.q[q], out->q[q]);
    }
    if (s_.projection) {
      Kokkos::Profiling::ScopedRegion phase("kflow::split3d::projection");
      projection_rhs(space_, p_, state_, solid_, dt, rhs_, walls_.model);
      linalg::SolveControl control;
      control.tolerance = s_.projection_tolerance;
      control.max_iterations = s_.projection_max_iterations;
      control.stop = solve_stop_flag();
      // a cycle is dear: multigrid (alone or preconditioning CG) checks every
      // iteration (a read of the reduced residual, no extra pass)
      control.check_every =
          s_.projection_method == Method::mg || s_.projection_preconditioner == Preconditioner::mg
              ? 1
              : 10;
      // incremental: the increment, from zero (a restart needs nothing else)
      const PF3& x = s_.incremental ? dphi_ : phi_;
      if (s_.incremental) Kokkos::deep_copy(space_, dphi_, 0.0);
      proj_ = solver_->solve(x, rhs_, control);
      proj_iterations_ += proj_.iterations;
      if (!proj_.converged)
        throw Error(
            "split3d: the projection's Poisson solve did not converge to solver.tolerance "
            "= " +
            number_text(s_.projection_tolerance) + " in " + std::to_string(proj_.iterations) +
            " iterations (raise solver.max_iterations)");
      project(space_, p_, state_, solid_, x, dt);
      wrap(space_, p_, state_);  // periodic ghosts of the projected velocity
      if (s_.incremental) {
        const auto phi = flat(phi_), dphi = flat(dphi_);
        Kokkos::parallel_for(
            "kflow::split3d::phi_increment",
            Kokkos::RangePolicy<ExecSpace>(space_, 0, phi.extent(0)),
            KOKKOS_LAMBDA(long m) { phi(m) += dphi(m); });
      }
    }
    ++steps_;
    // Decision 7: the divergence error after every step; a run above the
    // limit stops (the authors' code: 0.01).  One scalar read back per step.
    {
      Kokkos::Profiling::ScopedRegion phase("kflow::split3d::divergence");
      div_ = divergence(space_, p_, state_, flux_);
    }
    if (!(div_ <= s_.divergence_limit))
      throw Error("split3d: the divergence error " + number_text(div_) + " after step " +
                  std::to_string(steps_) +
                  " exceeds run.divergence_limit = " + number_text(s_.divergence_limit) +
                  " (the scheme does not enforce continuity; a smaller time.dt, more "
                  "numerics.global_iterations or a finer grid lower it)" +
                  (s_.cut_walls && s_.cut_smallest < near_wall_fraction
                       ? "; with numerics.body_walls = \"interpolated\" a body's surface "
                         "this near a node (the smallest link fraction is " +
                             number_text(s_.cut_smallest) +
                             " of a node spacing) can drive it: the staircase walls "
                             "(numerics.body_walls = \"staircase\") do not"
                       : std::string()));
  }

  // The phases whose calls move the same bytes: a sweep as
  // bytes_per_cell_step counts it, the layer update's 12 values a node, the
  // way back's 16.  (The transpositions and copies move more or less by the
  // call.)
  std::vector<RegionBytes> region_bytes() const override {
    constexpr double R = sizeof(Real);
    return {{sweep_region[0], 4 * 7 * R},
            {sweep_region[1], 4 * 7 * R},
            {sweep_region[2], 4 * 7 * R},
            {"kflow::split3d::update", 12 * R},
            {"kflow::split3d::update_back", 16 * R},
            {"kflow::split3d::divergence", 4 * R}};
  }

  Diagnostics diagnostics(double) override;
  HostField field(const std::string& name, double) override;

  std::vector<StateArray> save_state() override {
    std::vector<StateArray> r;
    for (int q = 0; q < 4; ++q) r.push_back(to_state(state_.q[q], state_name(q)));
    if (s_.projection) r.push_back(to_state(phi_));  // the next solve's initial guess
    r.push_back(counters_state({double(steps_), double(sweeps_), double(proj_iterations_)}));
    return r;
  }

  void restore_state(const std::vector<StateArray>& state) override {
    for (int q = 0; q < 4; ++q) from_state(space_, state, state_.q[q], state_name(q));
    if (s_.projection) restore_phi(state);
    auto c = state_counters(state);
    if (c.size() == 1 || c.size() == 3) {
      c.resize(3, 0.0);  // (checkpoints before the totals hold the steps alone)
      steps_ = long(c[0]), sweeps_ = long(c[1]), proj_iterations_ = long(c[2]);
    }
    div_ = divergence(space_, p_, state_, flux_);
  }

 private:
  // A variable's name in checkpoints (its fields are views into one array).
  static std::string state_name(int q) {
    const char* names[4] = {"u", "v", "w", "temperature"};
    return std::string("kflow::split3d::") + names[q];
  }

  static constexpr const char* sweep_region[3] = {
      "kflow::split3d::x_sweep", "kflow::split3d::y_sweep", "kflow::split3d::z_sweep"};

  // phi from a checkpoint; a float run's from before the projection was in
  // double holds float32 values, widened exactly.
  void restore_phi(const std::vector<StateArray>& state) {
    const StateArray* a = find_state(state, phi_.label());
    if (!a || a->type != "float32" || a->bytes.size() != phi_.span() * sizeof(float))
      return from_state(space_, state, phi_);
    auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), phi_);
    std::vector<float> v(h.span());
    std::memcpy(v.data(), a->bytes.data(), a->bytes.size());
    for (std::size_t m = 0; m < v.size(); ++m) h.data()[m] = v[m];
    Kokkos::deep_copy(space_, phi_, h);
    space_.fence("kflow::split3d::restore_phi");  // h goes out of scope
  }

  // The projection's fields, its operator (projection_operator) and solver.
  void make_projection() {
    const auto& g = s_.nodes;
    phi_ = linalg::make_field<double, 3>(space_, "kflow::split3d::phi", g);
    rhs_ = linalg::make_field<double, 3>(space_, "kflow::split3d::phi_rhs", g);
    if (s_.incremental) dphi_ = linalg::make_field<double, 3>(space_, "kflow::split3d::dphi", g);
    op_ = projection_operator(space_, s_, p_.e);
    if (s_.projection_method == Method::cg) {
      solver_ = std::make_unique<Cg>(
          space_, op_,
          linalg::CgOptions(
              cg_preconditioner<linalg::CgPreconditioner>(s_.projection_preconditioner), s_.mg));
    } else if (s_.projection_method == Method::mg) {
      solver_ = std::make_unique<linalg::Multigrid<ExecSpace, Op>>(space_, op_, s_.mg);
    } else {
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
      solver_ = kk::Krylov<ExecSpace, Op>::make(
          space_, op_,
          {s_.projection_method == Method::kk_gmres, linalg::CgPreconditioner::jacobi,
           s_.projection_restart});
#else
      throw Error("split3d: solver.method = \"" + std::string(name(s_.projection_method)) +
                  "\" needs Kokkos Kernels, not in this build");
#endif
    }
  }

  template <class View>
  std::vector<double> host(const View& f) const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
    std::vector<double> v(h.span());
    for (std::size_t m = 0; m < v.size(); ++m) v[m] = double(h.data()[m]);
    return v;
  }

  Setup s_;
  ExecSpace space_;
  Params<Real> p_;
  linalg::Tridiag<ExecSpace, Real> tri_;  // zero-pivot check on (decision 2)
  // The fused sweeps' T rows, solved beside the velocity rows (GPUs: on a
  // stream of their own; CPUs: after them, on space_).
  ExecSpace side_;
  linalg::Tridiag<ExecSpace, Real> tri_side_;
  V state_, nl_, work_[2];
  F3 flux_;
  Mask<Mem> solid_;  // empty without obstacles
  PF3 phi_, rhs_;    // projection
  PF3 dphi_;         // its increment (projection_scheme = "incremental")
  Op op_;
  std::unique_ptr<linalg::Solver<ExecSpace, double, 3>> solver_;  // the projection's
  linalg::SolveStats proj_;
  long proj_iterations_ = 0;
  Kokkos::View<Real, Mem> change_;
  linalg::TridiagShape shape4_[3];
  V in_t_, nl_t_, out_t_;  // X's fields, x and y exchanged (swap_xy)
  Mask<Mem> solid_t_;
  CutWalls<Mem> walls_;  // interpolated walls (split3d_walls.hpp); empty otherwise
  linalg::TridiagShape shape_t_;
  long steps_ = 0;
  double div_ = 0;
  long sweeps_ = 0;      // local iterations (over directions) since the start
  int last_sweeps_ = 0;  // those of the last step
  Kokkos::View<Real, Kokkos::HostSpace> change_host_{"kflow::split3d::change_host"};
};

// Host copies on every node, as (n+2)^3 output cells centred on the nodes.
template <class ExecSpace, class Real>
HostField Model<ExecSpace, Real>::field(const std::string& name, double) {
  const auto* e = find_field(field_table, name);
  if (!e) throw Error("split3d has no output field '" + name + "'");
  HostField f;
  f.name = name;
  f.components = e->components;
  const int e0 = p_.e[0], e1 = p_.e[1], e2 = p_.e[2];
  auto idx = [&](int i, int j, int k) {
    return std::size_t(i) + std::size_t(e0) * (std::size_t(j) + std::size_t(e1) * k);
  };
  switch (e->id) {
    case Field::u:
    case Field::v:
    case Field::w:
      f.values = host(state_.q[e->id == Field::u ? 0 : e->id == Field::v ? 1 : 2]);
      break;
    case Field::temperature:
      f.values = host(state_.q[3]);
      break;
    case Field::divergence:
      f.values = host(flux_);
      break;
    case Field::pressure:
      f.values = pressure_field(p_, s_.solid, host(state_.q[3]),
                                s_.projection ? host(phi_) : std::vector<double>());
      break;
    case Field::velocity: {
      const auto u = host(state_.q[0]), v = host(state_.q[1]), w = host(state_.q[2]);
      f.values.resize(3 * u.size());
      for (std::size_t m = 0; m < u.size(); ++m)
        f.values[3 * m] = u[m], f.values[3 * m + 1] = v[m], f.values[3 * m + 2] = w[m];
      break;
    }
    case Field::vorticity: {  // |curl u|, central differences, 0 on boundary nodes
      const std::vector<double> q[3] = {host(state_.q[0]), host(state_.q[1]), host(state_.q[2])};
      f.values.assign(q[0].size(), 0.0);
      const double h[3] = {s_.nodes.spacing(0), s_.nodes.spacing(1), s_.nodes.spacing(2)};
      for (int k = 1; k < e2 - 1; ++k)
        for (int j = 1; j < e1 - 1; ++j)
          for (int i = 1; i < e0 - 1; ++i) {
            auto dd = [&](int c, int ax) {  // d q_c / d x_ax
              const int di = ax == 0, dj = ax == 1, dk = ax == 2;
              return (q[c][idx(i + di, j + dj, k + dk)] - q[c][idx(i - di, j - dj, k - dk)]) /
                     (2 * h[ax]);
            };
            const double wx = dd(2, 1) - dd(1, 2), wy = dd(0, 2) - dd(2, 0),
                         wz = dd(1, 0) - dd(0, 1);
            f.values[idx(i, j, k)] = std::sqrt(wx * wx + wy * wy + wz * wz);
          }
      break;
    }
  }
  return f;
}

template <class ExecSpace, class Real>
Diagnostics Model<ExecSpace, Real>::diagnostics(double) {
  Diagnostics d;
  const int e0 = p_.e[0], e1 = p_.e[1], e2 = p_.e[2];
  const V s = state_;
  double ke = 0, umax = 0;
  int in_lo[3], in_hi[3];
  interior_box(p_, in_lo, in_hi);
  const int all_lo[3] = {0, 0, 0}, all_hi[3] = {e0, e1, e2};
  linalg::box_reduce(
      space_, "kflow::split3d::kinetic_energy", in_lo, in_hi,
      KOKKOS_LAMBDA(int i, int j, int k, double& acc) {
        const double u = s.q[0](i, j, k), v = s.q[1](i, j, k), w = s.q[2](i, j, k);
        acc += 0.5 * (u * u + v * v + w * w);
      },
      Kokkos::Sum<double>(ke));
  linalg::box_reduce(
      space_, "kflow::split3d::speed_max", all_lo, all_hi,
      KOKKOS_LAMBDA(int i, int j, int k, double& mx) {
        const double u = s.q[0](i, j, k), v = s.q[1](i, j, k), w = s.q[2](i, j, k);
        mx = Kokkos::fmax(mx, Kokkos::sqrt(u * u + v * v + w * w));
      },
      Kokkos::Max<double>(umax));
  double tmin = 0, tmax = 0;
  const F3 t = state_.q[3];
  linalg::box_reduce(
      space_, "kflow::split3d::temperature_range", all_lo, all_hi,
      KOKKOS_LAMBDA(int i, int j, int k, double& lo, double& hi) {
        lo = Kokkos::fmin(lo, double(t(i, j, k)));
        hi = Kokkos::fmax(hi, double(t(i, j, k)));
      },
      Kokkos::Min<double>(tmin), Kokkos::Max<double>(tmax));
  const auto change = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), change_);
  const double cell = s_.nodes.spacing(0) * s_.nodes.spacing(1) * s_.nodes.spacing(2);
  d.emplace_back("divergence_error", div_);
  d.emplace_back("kinetic_energy", ke * cell);
  d.emplace_back("speed_max", umax);
  d.emplace_back("temperature_min", tmin);
  d.emplace_back("temperature_max", tmax);
  // max |u_new - u~| of the step's last local iteration (how far the
  // nonlinear iterations were from converged)
  d.emplace_back("last_update_change", double(change()));
  // the last step's tridiagonal solves (all variables, directions and
  // iterations) and the local iterations over the run (per step in kflow bench)
  d.emplace_back("solves_per_step", double(4 * last_sweeps_));
  d.emplace_back("local_iterations_total", double(sweeps_));
  d.emplace_back("peclet", s_.peclet);
  if (s_.projection) {
    d.emplace_back("projection_iterations", proj_.iterations);
    d.emplace_back("projection_iterations_total", double(proj_iterations_));
  }
  if (solid_.data()) {
    const auto f =
        obstacle_force(p_, state_, s_.solid, s_.cut_lo, s_.cut_hi, s_.projection ? &phi_ : nullptr);
    d.emplace_back("force_x", f[0]);
    d.emplace_back("force_y", f[1]);
    d.emplace_back("force_z", f[2]);
  }
  return d;
}

template <class ExecSpace, class Real>
std::unique_ptr<kflow::Model> make_model(const ModelSetup& setup) {
  return std::make_unique<Model<ExecSpace, Real>>(static_cast<const Setup&>(setup));
}

}  // namespace kflow::split3d
