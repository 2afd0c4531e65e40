#pragma once
// Kokkos implementation of physics/lbm (included only by the generated
// per-(backend, precision) translation units).  See lbm.hpp for the method
// and the decisions on the paper's open points.
//
// Data: populations in one View<Stored**, LayoutLeft>(cells, Q) (lbm_storage.hpp:
// Stored is Real, or a 16-bit word for "float16s" and "float16c"), read and written as Real:
// structure of arrays, one plane per direction, x fastest within a plane; only fluid cells are
// stored (walls are found from the cell index, so the kernels read no flag field).  Two arrays for
// two-grid streaming, one for in-place (AA) streaming.  One fused stream-collide kernel per step
// (lbm_step.hpp, launched by lbm_launch.hpp; the velocity sets in lbm_lattice.hpp).
//
// Several ranks (docs/distributed.md): each holds a block with one ghost
// layer, filled by the halo exchanges of lbm_halo.hpp.  Bodies, inflows,
// outflows and probes on blocks: lbm_bodies.hpp, lbm_probes.hpp.

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/linalg/space.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/state_view.hpp"
#include "lbm.hpp"
#include "lbm_bodies.hpp"
#include "lbm_fields.hpp"
#include "lbm_halo.hpp"
#include "lbm_kernels.hpp"
#include "lbm_outflow.hpp"
#include "lbm_probes.hpp"
#include "lbm_stepper.hpp"
#include "lbm_storage.hpp"

namespace kflow::lbm {

// Initial state (device-callable): rest, or the Taylor-Green vortex with its
// pressure (lattice units; rho = 1 + 3 p) at the block's cell x.
struct InitialState {
  int taylor_green = 0;
  double k[3] = {0, 0, 0};  // wavenumbers per cell
  double u0 = 0;
  int dim = 2;
  int offset[3] = {0, 0, 0};  // the block's first cell in the global grid
  KOKKOS_INLINE_FUNCTION void operator()(const int x[3], double& rho, double u[3]) const {
    rho = 1;
    u[0] = u[1] = u[2] = 0;
    if (!taylor_green) return;
    // u = U sin(a x) cos(b y) [cos(c z)], v = -U (a/b) cos(a x) sin(b y) [cos(c z)], w = 0.
    const int gx = x[0] + offset[0], gy = x[1] + offset[1], gz = x[2] + offset[2];
    const double X = k[0] * (gx + 0.5), Y = k[1] * (gy + 0.5), Z = k[2] * (gz + 0.5);
    const double cz = dim == 3 ? Kokkos::cos(Z) : 1.0, r = k[0] / k[1];
    u[0] = u0 * Kokkos::sin(X) * Kokkos::cos(Y) * cz;
    u[1] = -u0 * r * Kokkos::cos(X) * Kokkos::sin(Y) * cz;
    double p = 0.25 * u0 * u0 * (Kokkos::cos(2 * X) + r * r * Kokkos::cos(2 * Y));
    if (dim == 3) p *= 0.25 * (Kokkos::cos(2 * Z) + 2);
    rho = 1 + 3 * p;
  }
};

template <class ExecSpace, class P, int Q>
class Model final : public kflow::Model {
  using L = Lattice<Q>;
  using Mem = typename ExecSpace::memory_space;
  using Real = typename Precision<P>::real;
  using Stored = typename Precision<P>::stored;
  using View = Kokkos::View<Stored**, Kokkos::LayoutLeft, Mem>;
  using Pops = Populations<L, Real, Stored, Mem>;
  using Step = kernels::Stepper<ExecSpace, P, Q>;

 public:
  explicit Model(const Setup& s) : s_(s) {
    const auto& G = s_.grid;
    // This rank's block (the whole grid on one rank), with a ghost layer
    // on several ranks.
    auto dec = s_.decomposition;
    for (int d = 0; d < 3; ++d) dec.periodic[d] = d < G.dim && s_.bc[d][0] == Bc::periodic;
    auto blocks = G;
    blocks.ghost = dec.size() > 1 ? 1 : 0;
    lg_ = linalg::dist::make_local_grid(blocks, dec);
    for (int d = 0; d < 3; ++d) {
      geo_.n[d] = d < G.dim ? lg_.local.cells[d] : 1;
      geo_.gh[d] = d < G.dim ? lg_.local.ghost : 0;
      geo_.s[d] = geo_.n[d] + 2 * geo_.gh[d];
      geo_.periodic[d] = d >= G.dim || (s_.bc[d][0] == Bc::periodic && !dec.split(d));
      for (int side = 0; side < 2; ++side) {
        geo_.halo[d][side] = d < G.dim && dec.split(d) && dec.neighbour(d, side) >= 0;
        const Bc b = d < G.dim ? s_.bc[d][side] : Bc::periodic;
        geo_.moving[d][side] = b == Bc::moving_wall || b == Bc::inflow;
        geo_.profile[d][side] = b != Bc::inflow                             ? 0
                                : s_.profile[d][side] == Profile::parabolic ? 1
                                : s_.profile[d][side] == Profile::table     ? 2
                                                                            : 0;
        geo_.scale[d][side] = Real(1);
        for (int e = 0; e < 3; ++e) geo_.uw[d][side][e] = Real(s_.wall_lat[d][side][e]);
      }
      geo_.force[d] = Real(s_.force_lat[d]);
      geo_.cells[d] = d < G.dim ? G.cells[d] : 1;
      geo_.offset[d] = d < G.dim ? lg_.offset[d] : 0;
    }
    // A characteristic outflow reads the cell before the side's.
    bool thin = false;
    for (int d = 0; d < G.dim; ++d)
      for (int side = 0; side < 2; ++side)
        thin |= s_.outflow[d][side] == OutflowKind::characteristic && !geo_.halo[d][side] &&
                geo_.n[d] < 2;
    if (parallel::max(thin ? 1.0 : 0.0) > 0)
      throw parallel::AgreedError(
          "lbm: a block holding a characteristic outflow has one cell "
          "across it; use fewer ranks along that axis (run.ranks)");
    place_tables();
    geo_.solid = nullptr;
    geo_.mixed = nullptr, geo_.mixed_count = 0;
    geo_.forced = geo_.force[0] != Real(0) || geo_.force[1] != Real(0) || geo_.force[2] != Real(0);
    geo_.omega_p = Real(s_.omega_plus);
    geo_.omega_m = Real(s_.omega_minus);
    off_ = offsets<L>(geo_);
    ncells_ = std::size_t(geo_.n[0]) * geo_.n[1] * geo_.n[2];
    nstored_ = std::size_t(geo_.s[0]) * geo_.s[1] * geo_.s[2];
    // Ghost layers start as zeros (the slots no exchange fills stay defined).
    auto alloc = [&](const std::string& label) {
      return nstored_ == ncells_
                 ? View(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, label), nstored_, Q)
                 : View(Kokkos::view_alloc(space_, label), nstored_, Q);
    };
    a_.v = alloc("kflow::lbm::f");
    if (!s_.in_place) b_.v = alloc("kflow::lbm::f_next");
#ifdef KFLOW_HAVE_MPI
    if (dec.size() > 1) {
      halo_ = population_halo<ExecSpace, Stored, L>(space_, lg_, !s_.in_place);
      moments_halo_ = moments_halo<ExecSpace, L::D>(space_, lg_);
    }
#endif
    InitialState init;
    init.dim = G.dim;
    for (int d = 0; d < 3; ++d) init.offset[d] = lg_.offset[d];
    if (s_.initial == Setup::Initial::taylor_green) {
      init.taylor_green = 1;
      init.u0 = s_.u_lat;
      for (int d = 0; d < G.dim; ++d)
        init.k[d] = 2 * 3.14159265358979323846 * s_.tg_modes[d] / G.cells[d];
    }
    layout_ = s_.in_place ? Layout::swapped : Layout::normal;
    kernels::initialise<L>(space_, a_, geo_, layout_, init);
    fluid_cells_ = double(ncells_);  // the block's (summed over the ranks)
    if (!s_.bodies.empty()) place_bodies();
  }

  const linalg::Grid& grid() const override {
    return s_.grid;
  }
  double bytes_per_cell_step() const override {
    return 2.0 * Q * sizeof(Stored);
  }
  void fence() override {
    space_.fence("kflow::lbm::fence");
  }
  double stable_dt(double) const override {
    return s_.dt;
  }
  double fixed_dt() const override {
    return s_.dt;
  }

  // One lattice step (dt is always s_.dt: fixed_dt): a Kokkos Profiling
  // region, with its phases inside it (the halo exchanges of a distributed
  // run, the outflows' and bodies' links, the streaming and collision).
  void step(double t, double) override {
    Kokkos::Profiling::ScopedRegion region("kflow::lbm::step");
    ramp(t);
    if (!s_.in_place) {
      exchange();
      boundaries(Mode::two_grid);
      stream_collide(Mode::two_grid, b_);
      std::swap(a_, b_);
    } else if (layout_ == Layout::swapped) {
      exchange();
      boundaries(Mode::aa_stream);
      stream_collide(Mode::aa_stream, a_);
      if (halo_) {
        Kokkos::Profiling::ScopedRegion phase("kflow::lbm::halo");
        halo_->reverse(linalg::dist::components_on(lg_, a_.v), WrittenByBounceBack<L, Real>{geo_});
      }
      layout_ = Layout::pushed;
    } else {
      boundaries(Mode::aa_local);
      stream_collide(Mode::aa_local, a_);
      layout_ = Layout::swapped;
    }
  }

  double exchange_seconds() const override {
    return halo_ ? halo_->seconds() : 0.0;
  }
  // Populations, bodies' flags and links, inflow tables (not the halo's
  // buffers, nor what a diagnostic or a frame allocates while it runs).
  double state_bytes() const override {
    const double link = sizeof(int) + 3 + sizeof(Real);  // cell, dir, body, rule, q
    return double(a_.v.span() + b_.v.span()) * sizeof(Stored) + double(solid_.span()) +
           double(mixed_.span()) * sizeof(int) + double(links_.count) * link +
           double(tables_.span()) * sizeof(Real);
  }

  // Global values: the block's reductions combined over the ranks (the
  // maximum is the single rank's bits, the sums may differ in the last ones).
  Diagnostics diagnostics(double) override {
    double usq = 0, energy = 0, mass = 0;
    kernels::norms<L>(space_, a_, geo_, off_, layout_, usq, energy, mass);
    const double n = parallel::sum(fluid_cells_);
    const double umax = std::sqrt(parallel::max(usq));
    energy = parallel::sum(energy) / n;
    mass = parallel::sum(mass) / n;
    const double c = s_.dx / s_.dt;  // lattice -> physical velocity
    // Faster than the lattice's speed of sound, 1/sqrt(3): the run has
    // diverged (a finite but meaningless state must not become a frame).
    if (umax > 1 / std::sqrt(3.0))
      throw Error("the flow diverged: lattice speed " + std::to_string(umax) +
                  " exceeds the lattice speed of sound 0.577 (Ma > 1); use a finer grid, a smaller "
                  "lattice.velocity or collision = \"trt\"");
    Diagnostics d{{"max_velocity", umax * c},
                  {"kinetic_energy", energy * c * c},
                  {"mean_density", mass},
                  {"max_velocity_lattice", umax}};
    forces(d);
    if (!s_.probes.empty()) d.push_back({"delta_p", pressure_difference()});
    return d;
  }

  std::vector<std::string> notes() const override {
    return notes_;
  }

  // This rank's block of the field (the driver gathers the blocks).
  HostField field(const std::string& name, double) override {
    const auto* e = find_field(field_table, name);
    if (!e) throw Error("lbm: no field '" + name + "'");
    Kokkos::View<double**, Kokkos::LayoutRight, Mem> m(
        Kokkos::view_alloc(space_, "kflow::lbm::moments"), nstored_, 4);
    kernels::macroscopic<L>(space_, a_, geo_, off_, layout_, m);
    // The velocities of the neighbouring blocks' cells, for the differences.
    if (moments_halo_ && e->id == Field::vorticity_magnitude)
      moments_halo_->exchange(linalg::dist::components_on(lg_, m));
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m);
    const double c = s_.dx / s_.dt;
    HostField f;
    f.name = name;
    f.components = e->components;
    const std::size_t n = ncells_;
    // The block's cells in output order (x fastest): k -> stored index.
    std::vector<std::size_t> at(n);
    for_cells([&](std::size_t k, const int x[3]) { at[k] = std::size_t(geo_.index(x)); });
    f.values.assign(std::size_t(f.components) * n, 0.0);
    switch (e->id) {
      case Field::density:
        for (std::size_t k = 0; k < n; ++k) f.values[k] = h(at[k], 0);
        break;
      case Field::velocity:
        for (std::size_t k = 0; k < n; ++k)
          for (int d = 0; d < 3; ++d) f.values[3 * k + d] = h(at[k], 1 + d) * c;
        break;
      case Field::u:
      case Field::v:
      case Field::w: {
        const int d = e->id == Field::u ? 0 : e->id == Field::v ? 1 : 2;
        for (std::size_t k = 0; k < n; ++k) f.values[k] = h(at[k], 1 + d) * c;
        break;
      }
      case Field::vorticity_magnitude:
        f.values = vorticity_magnitude(h, c, geo_, s_.grid, s_.dx);
        break;
      case Field::flags: {
        // 0 fluid; next to a side: 1 to 4 (side_flag); 5 next to a body;
        // -(id + 1) a cell of body id.
        std::vector<unsigned char> solid;
        std::vector<char> near;
        body_cells(solid, near);
        for_cells([&](std::size_t k, const int x[3]) {
          double v = side_flag(s_, geo_, lg_.offset, x);
          if (!near.empty() && near[k]) v = 5;
          if (!solid.empty() && solid[k]) v = -double(solid[k]);
          f.values[k] = v;
        });
        break;
      }
    }
    return f;
  }

  // The checkpoint holds f* of the block's cells in the normal layout
  // (either streaming scheme can continue it, bit for bit), extents
  // (nx, ny[, nz], Q): a field of Q components on the grid, which the driver
  // gathers into the global grid's layout on several ranks.
  std::vector<StateArray> save_state() override {
    View c(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "kflow::lbm::canonical"),
           ncells_, Q);
    kernels::canonical<L>(space_, a_.v, geo_, off_, layout_, c);
    auto a = to_state(c, "f");
    a.extents.clear();
    for (int d = 0; d < s_.grid.dim; ++d) a.extents.push_back(std::size_t(geo_.n[d]));
    a.extents.push_back(std::size_t(Q));
    return {a};
  }

  void restore_state(const std::vector<StateArray>& state) override {
    Kokkos::View<Stored**, Kokkos::LayoutLeft, Kokkos::HostSpace> c(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kflow::lbm::canonical"), ncells_, Q);
    auto h = state_mirror(state, c, "f");
    // Into the stored cells (ghost layers zero), in the scheme's layout.
    auto t = Kokkos::create_mirror(Kokkos::HostSpace(), a_.v);  // zeros
    const bool swap = s_.in_place;
    for_cells([&](std::size_t k, const int x[3]) {
      const std::size_t idx = std::size_t(geo_.index(x));
      for (int i = 0; i < Q; ++i) t(idx, swap ? opp(i) : i) = h(k, i);
    });
    layout_ = s_.in_place ? Layout::swapped : Layout::normal;
    Kokkos::deep_copy(space_, a_.v, t);
    space_.fence("kflow::lbm::restore");
  }

 private:
  // Bodies: the solid flag of every stored cell, which the step skips, and
  // the boundary links of the block's cells with their rule, from the
  // geometry of its cells and ghost layer (lbm_bodies.hpp).
  void place_bodies() {
    std::vector<std::array<int, 3>> dirs(Q);
    for (int i = 0; i < Q; ++i) dirs[std::size_t(i)] = {L::c(i, 0), L::c(i, 1), L::c(i, 2)};
    geometry::LinkOptions own;
    const auto nodes = block_centres(lg_, own);
    const auto gg = body_geometry(space_, s_.bodies, nodes, geometry::Directions(dirs), own);
    int fallbacks = 0;
    const double solid = kernels::solid_cells(space_, gg.flags, geo_, solid_, nstored_);
    fluid_cells_ = double(ncells_) - solid;
    geo_.solid = solid_.data();
#ifdef KFLOW_HAVE_MPI
    if (halo_)  // the ghosts beyond a periodic side: the wrapped cells' flags
      exchange_flags<ExecSpace, L::D>(space_, lg_, solid_.data(), nstored_);
#endif
    // (16-bit storage on GPUs: the two-cell launch's list of the cells it
    // leaves, lbm_pairs.hpp)
    if constexpr (linalg::on_gpu<ExecSpace> && sizeof(Stored) == 2)
      Step::mixed_pairs(space_, geo_, mixed_);
    links_ =
        kernels::body_links<L>(space_, gg.links, geo_, s_.walls == Walls::interpolated, fallbacks);
    link_order_ = link_order<L>(links_, geo_);
    // (counts over the ranks)
    const auto count = std::int64_t(parallel::sum(links_.count)),
               fell = std::int64_t(parallel::sum(fallbacks)),
               unresolved = std::int64_t(parallel::sum(double(gg.links.unresolved)));
    if (fell > 0)
      notes_.push_back(std::to_string(fell) + " of " + std::to_string(count) +
                       " boundary links (q < 1/2) have no second fluid cell behind them (a gap "
                       "one cell wide or a side): halfway bounce-back there (first order)");
    // (a tenth or more: a plate, a thin part; a resolved curved body has a
    // few such cells at the tips of its staircase)
    const auto thin = std::int64_t(parallel::sum(kernels::thin_cells<L>(space_, geo_)));
    const auto in_bodies = std::int64_t(parallel::sum(solid));
    if (thin > 0 && 10 * thin >= in_bodies)
      notes_.push_back(std::to_string(thin) + " of the bodies' " + std::to_string(in_bodies) +
                       " cells have fluid on both sides along a lattice direction (a body "
                       "thinner than two cells there): the walls on its two sides meet in those "
                       "cells; a finer grid resolves them");
    if (unresolved > 0)
      notes_.push_back(std::to_string(unresolved) +
                       " boundary links found no surface (a graze): q = 1/2 there");
  }

  // Table inflows: every side's samples (lbm.hpp: Setup::table) in lattice
  // units, one device array.
  void place_tables() {
    std::vector<Real> all;
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side) {
        geo_.table_at[d][side] = int(all.size());
        if (d < s_.grid.dim)
          for (const double v : s_.table[d][side]) all.push_back(Real(v * s_.dt / s_.dx));
      }
    tables_ = Kokkos::View<Real*, Mem>("kflow::lbm::inflow_tables", all.size());
    Kokkos::deep_copy(space_, tables_,
                      Kokkos::View<const Real*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                          all.data(), all.size()));
    space_.fence("kflow::lbm::inflow_tables");
    geo_.table = tables_.data();
  }

  // The cells of the block (output order) inside a body (id + 1) and next
  // to one (with a boundary link); empty without bodies.
  void body_cells(std::vector<unsigned char>& solid, std::vector<char>& near) const {
    if (!geo_.solid) return;
    auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solid_);
    auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), links_.cell);
    solid.resize(ncells_);
    near.assign(ncells_, 0);
    for_cells([&](std::size_t k, const int x[3]) { solid[k] = s(std::size_t(geo_.index(x))); });
    for (int l = 0; l < links_.count; ++l) near[std::size_t(c(l))] = 1;
  }

  // The inflows' ramp at time t: (1 - cos(pi t / T)) / 2 up to T.
  void ramp(double t) {
    if (!(s_.ramp_time > 0)) return;
    const double r =
        t >= s_.ramp_time ? 1.0 : 0.5 * (1 - std::cos(3.14159265358979323846 * t / s_.ramp_time));
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side)
        if (d < s_.grid.dim && s_.bc[d][side] == Bc::inflow) geo_.scale[d][side] = Real(r);
  }

  // The halo of a distributed run (none on one rank).
  void exchange() {
    if (!halo_) return;
    Kokkos::Profiling::ScopedRegion phase("kflow::lbm::halo");
    halo_->exchange(linalg::dist::components_on(lg_, a_.v));
  }

  // Streaming and collision from a_ into `to` (a_ itself in place).
  void stream_collide(Mode mode, const Pops& to) {
    Kokkos::Profiling::ScopedRegion phase("kflow::lbm::stream_collide");
    Step::step(space_, mode, a_, to, geo_, off_);
  }

  // The outflows' and the bodies' populations for the next step, in `mode`.
  void boundaries(Mode mode) {
    Kokkos::Profiling::ScopedRegion phase("kflow::lbm::boundaries");
    const Layout now = mode == Mode::two_grid    ? Layout::normal
                       : mode == Mode::aa_stream ? Layout::swapped
                                                 : Layout::pushed;
    for (int d = 0; d < s_.grid.dim; ++d)
      for (int side = 0; side < 2; ++side)
        if (s_.bc[d][side] == Bc::outflow && !geo_.halo[d][side])
          kernels::outflow<L>(
              space_, a_, geo_, off_, mode, now, d, side, Real(s_.outflow_density[d][side]),
              s_.outflow[d][side] == OutflowKind::characteristic, Real(s_.outflow_sigma[d][side]));
    kernels::body_walls<L>(space_, a_, geo_, off_, links_, mode, now);
  }

  // Force coefficients of every body (lattice units throughout): c = 2 F /
  // (rho0 U^2 A), and moment coefficients c_m = 2 M / (rho0 U^2 A L) about
  // the body's moment centre; body 0's as c_d, c_l (c_s), c_m (c_mx, c_my,
  // c_mz), the others' with "_<id>".
  void forces(Diagnostics& out) const {
    if (!(s_.force_velocity > 0) || s_.bodies.empty()) return;
    const double u = s_.force_velocity * s_.dt / s_.dx, len = s_.force_length / s_.dx;
    const double area = s_.grid.dim == 2 ? len : s_.force_area / (s_.dx * s_.dx);
    const double scale = 2 / (u * u * area);
    const auto all = body_forces();
    for (int b = 0; b < int(s_.bodies.size()); ++b) {
      const auto& f = all[std::size_t(b)].force;
      const auto& m = all[std::size_t(b)].moment;
      const std::string tag = b == 0 ? "" : "_" + std::to_string(b);
      out.push_back({"c_d" + tag, f[0] * scale});
      out.push_back({"c_l" + tag, f[1] * scale});
      if (s_.grid.dim == 3) {
        out.push_back({"c_s" + tag, f[2] * scale});
        out.push_back({"c_mx" + tag, m[0] * scale / len});
        out.push_back({"c_my" + tag, m[1] * scale / len});
        out.push_back({"c_mz" + tag, m[2] * scale / len});
      } else {
        out.push_back({"c_m" + tag, m[2] * scale / len});
      }
    }
  }

  // The force and moment on every body (lattice units): lbm_bodies.hpp.  A
  // link's cell x - c_d may be a neighbour's: its values come first, except
  // in the pushed layout (this block's stream step wrote them into the
  // ghosts).
  std::vector<BodyLoad> body_forces() const {
    if (halo_ && layout_ != Layout::pushed) halo_->exchange(linalg::dist::components_on(lg_, a_.v));
    const auto m = kernels::link_momenta<L>(space_, a_, geo_, links_, layout_);
    // (the moment centres in global cell coordinates: the cell centres at integers)
    std::vector<std::array<double, 3>> center(s_.bodies.size(), {0.0, 0.0, 0.0});
    for (std::size_t b = 0; b < center.size(); ++b)
      for (int d = 0; d < s_.grid.dim; ++d)
        center[b][std::size_t(d)] =
            (s_.moment_centers[b][std::size_t(d)] - s_.grid.origin[std::size_t(d)]) / s_.dx - 0.5;
    return lbm::body_forces<L>(link_order_, m, center);
  }

  // analysis.pressure_probes (lbm_probes.hpp): the densities of the cells
  // around the points from the ranks that hold them.
  double pressure_difference() const {
    const auto pc = probe_cells(s_.probes, s_.grid, s_.dx);
    const int cells = pc.cells;
    Kokkos::View<int**, Kokkos::HostSpace> at("kflow::lbm::probe_cells", 2, std::size_t(cells));
    std::vector<char> own(std::size_t(2 * cells));
    for (int p = 0; p < 2; ++p)
      for (int k = 0; k < cells; ++k) {
        int x[3];
        pc.cell(p, k, x);
        bool mine = true;
        for (int d = 0; d < 3; ++d) {
          x[d] -= geo_.offset[d];
          mine = mine && x[d] >= 0 && x[d] < geo_.n[d];
        }
        own[std::size_t(p * cells + k)] = mine;
        at(p, k) = mine ? x[0] + geo_.n[0] * (x[1] + geo_.n[1] * x[2]) : 0;
      }
    const auto rho = kernels::densities<L>(space_, a_, geo_, off_, layout_, at);
    std::vector<double> mine(std::size_t(2 * cells));  // -2: another rank's cell
    for (int j = 0; j < 2 * cells; ++j)
      mine[std::size_t(j)] = own[std::size_t(j)] ? rho(j / cells, j % cells) : -2.0;
    const auto all = parallel::all_gather(mine);
    for (std::size_t j = 0; j < all.size(); ++j)
      mine[j % mine.size()] = std::max(mine[j % mine.size()], all[j]);
    double r[2];
    for (int p = 0; p < 2; ++p)
      r[p] = probe_density(pc, p, [&](int k) { return mine[std::size_t(p * cells + k)]; });
    const double c = s_.dx / s_.dt;
    return (r[0] - r[1]) / 3.0 * c * c;
  }

  // fn(k, x) for the block's cells: k in output order (x fastest), x the
  // block coordinates.
  template <class Fn>
  void for_cells(Fn&& fn) const {
    std::size_t k = 0;
    for (int z = 0; z < geo_.n[2]; ++z)
      for (int y = 0; y < geo_.n[1]; ++y)
        for (int x = 0; x < geo_.n[0]; ++x) {
          const int p[3] = {x, y, z};
          fn(k++, p);
        }
  }

  Setup s_;
  linalg::dist::LocalGrid lg_;  // this rank's block (ghost layer on several ranks)
  ExecSpace space_{};
  Geometry<Real> geo_{};
  Offsets<Q> off_{};
  std::size_t ncells_ = 0, nstored_ = 0;  // the block's cells; stored, ghosts included
  Pops a_, b_;
  Layout layout_ = Layout::normal;
  std::unique_ptr<Halo<ExecSpace, Stored, L::D>> halo_;          // several ranks only
  std::unique_ptr<Halo<ExecSpace, double, L::D>> moments_halo_;  // (vorticity)
  double fluid_cells_ = 0;                                       // of the block
  Kokkos::View<unsigned char*, Mem> solid_;  // bodies: per stored cell, body id + 1
  Kokkos::View<int*, Mem> mixed_;            // bodies, GPUs, 16 bits: mixed_pairs()
  Kokkos::View<Real*, Mem> tables_;          // table inflows (Geometry::table)
  BodyLinks<Mem, Real> links_;
  LinkOrder link_order_;  // every rank's links in the one-rank order (the force sums)
  std::vector<std::string> notes_;
};

// P: double, float, Float16s or Float16c (lbm_storage.hpp); one translation
// unit per (backend, precision, Q) instantiates it (lbm.hpp: make_model).
template <class ExecSpace, class P, int Q>
std::unique_ptr<kflow::Model> make_stencil(const ModelSetup& setup) {
  return std::make_unique<Model<ExecSpace, P, Q>>(static_cast<const Setup&>(setup));
}

}  // namespace kflow::lbm
