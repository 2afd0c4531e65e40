#pragma once
// Kokkos implementation of physics/diffusion (included only by the generated
// per-(backend, precision) translation units).

#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <cstring>
#include <type_traits>

#include "diffusion.hpp"
#include "kflow/linalg/dist/local_grid.hpp"
#include "kflow/linalg/field.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/state_view.hpp"
#ifdef KFLOW_HAVE_MPI
#include "kflow/linalg/dist/halo.hpp"
#endif

namespace kflow::diffusion {

// Device-callable exact solution (a decaying Laplacian eigenmode).
struct Exact {
  ModeAxis ax[3];
  double origin[3];
  double amplitude, decay;
  KOKKOS_INLINE_FUNCTION double operator()(const double x[3], double t) const {
    double v = amplitude * Kokkos::exp(-decay * t);
    for (int d = 0; d < 3; ++d) {
      const double s = ax[d].k * (x[d] - origin[d]);
      v *= ax[d].kind == 0 ? Kokkos::sin(s) : ax[d].kind == 1 ? Kokkos::cos(s) : 1.0;
    }
    return v;
  }
};

// The kernels, as free functions on (execution space, grid, views): CUDA's
// extended lambdas may not live in private member functions.  Each runs on
// one rank's block L (the whole grid on one rank) and takes the spacing and
// origin from the global grid s.grid, with the block's offset in global
// cells: every cell gets the same arithmetic on any number of ranks.
namespace kernels {

// Cell at index m along axis A of a face cell (a, b) of a 2D or 3D view.
template <int A, class V>
KOKKOS_INLINE_FUNCTION typename V::reference_type along(const V& u, int m, int a, int b) {
  if constexpr (V::rank == 2) {
    (void)b;
    if constexpr (A == 0)
      return u(m, a);
    else
      return u(a, m);
  } else {
    if constexpr (A == 0)
      return u(m, a, b);
    else if constexpr (A == 1)
      return u(a, m, b);
    else
      return u(a, b, m);
  }
}

// Ghost value from a boundary condition: Dirichlet (kind 0, value on the
// face): 2 g - inner; Neumann (kind 1, outward derivative): inner + h q;
// periodic (kind 2): the inner cell at the opposite side.
template <class Real>
KOKKOS_INLINE_FUNCTION Real ghost_value(int kind, Real value, Real h, Real inner, Real opposite) {
  return kind == 0 ? Real(2) * value - inner : kind == 1 ? inner + h * value : opposite;
}

template <int D, class ExecSpace, class View>
void initialise(const ExecSpace& space, const Setup& s, const linalg::dist::LocalGrid& L,
                const Exact& ex, const View& u) {
  using Real = typename View::non_const_value_type;
  const bool mode = s.initial == Setup::Initial::sine_mode;
  const double c = s.constant;
  const auto& G = s.grid;
  const int g = G.ghost, fx = L.offset[0], fy = L.offset[1], fz = L.offset[2];
  const double hx = G.spacing(0), hy = G.spacing(1), hz = G.spacing(2);
  const double ox = G.origin[0], oy = G.origin[1], oz = G.origin[2];
  if constexpr (D == 2) {
    Kokkos::parallel_for(
        "kflow::diffusion::initialise", linalg::interior_policy<2>(space, L.local),
        KOKKOS_LAMBDA(int i, int j) {
          const double x[3] = {ox + (i - g + fx + 0.5) * hx, oy + (j - g + fy + 0.5) * hy, 0.0};
          u(i, j) = Real(mode ? ex(x, 0.0) : c);
        });
  } else {
    Kokkos::parallel_for(
        "kflow::diffusion::initialise", linalg::interior_policy<3>(space, L.local),
        KOKKOS_LAMBDA(int i, int j, int k) {
          const double x[3] = {ox + (i - g + fx + 0.5) * hx, oy + (j - g + fy + 0.5) * hy,
                               oz + (k - g + fz + 0.5) * hz};
          u(i, j, k) = Real(mode ? ex(x, 0.0) : c);
        });
  }
}

// Ghost layers of axis A from its boundary conditions, on the low side
// (lo) and the high side (hi): a side that borders another rank's block is
// the halo exchange's.  The face spans the other axes including their
// ghosts.  A periodic axis reaches here only when one rank holds it whole.
template <int A, class ExecSpace, class View>
void fill_axis(const ExecSpace& space, const Setup& s, const linalg::Grid& L, bool lo, bool hi,
               const View& u) {
  using Real = typename View::non_const_value_type;
  constexpr int D = View::rank;
  const auto& G = L;
  const int n = G.cells[A], g = G.ghost;
  const int lo_kind = static_cast<int>(s.bc[A][0]), hi_kind = static_cast<int>(s.bc[A][1]);
  const Real lo_val = Real(s.bc_value[A][0]), hi_val = Real(s.bc_value[A][1]);
  const Real h = Real(s.grid.spacing(A));
  const int ea = G.extent(A == 0 ? 1 : 0), eb = D == 3 ? G.extent(A == 2 ? 1 : 2) : 1;
  const char* label = A == 0   ? "kflow::diffusion::ghost_x"
                      : A == 1 ? "kflow::diffusion::ghost_y"
                               : "kflow::diffusion::ghost_z";
  Kokkos::parallel_for(
      label, linalg::GridPolicy<ExecSpace, 2>(space, {0, 0}, {ea, eb}),
      KOKKOS_LAMBDA(int a, int b) {
        const Real first = along<A>(u, g, a, b), last = along<A>(u, g + n - 1, a, b);
        if (lo) along<A>(u, g - 1, a, b) = ghost_value(lo_kind, lo_val, h, first, last);
        if (hi) along<A>(u, g + n, a, b) = ghost_value(hi_kind, hi_val, h, last, first);
      });
}

// v = u + dt kappa laplace(u) on the interior.
template <class ExecSpace, class View>
void update(const ExecSpace& space, const Setup& s, const linalg::Grid& L, double dt, const View& u,
            const View& v) {
  using Real = typename View::non_const_value_type;
  const auto& G = s.grid;
  const Real cx = Real(s.kappa * dt / (G.spacing(0) * G.spacing(0)));
  const Real cy = Real(s.kappa * dt / (G.spacing(1) * G.spacing(1)));
  if constexpr (View::rank == 2) {
    linalg::interior_for<2>(
        space, "kflow::diffusion::update", L, KOKKOS_LAMBDA(int i, int j) {
          const Real c = u(i, j);
          v(i, j) = c + cx * (u(i - 1, j) - Real(2) * c + u(i + 1, j)) +
                    cy * (u(i, j - 1) - Real(2) * c + u(i, j + 1));
        });
  } else {
    const Real cz = Real(s.kappa * dt / (G.spacing(2) * G.spacing(2)));
    if constexpr (linalg::on_gpu<ExecSpace>) {
      // GPUs: a thread marches through `zc` planes, carrying the cells below
      // and at k in registers (H200, 512^3 double: 40 % -> 51 % of the
      // ceiling; docs/performance.md).  The same sums in the same order.
      constexpr int zc = 64;
      const int g = L.ghost, nz = L.cells[2], chunks = (nz + zc - 1) / zc;
      Kokkos::parallel_for(
          "kflow::diffusion::update",
          linalg::GridPolicy<ExecSpace, 3>(space, {g, g, 0},
                                           {g + L.cells[0], g + L.cells[1], chunks}, {32, 4, 1}),
          KOKKOS_LAMBDA(int i, int j, int chunk) {
            const int k0 = g + chunk * zc, k1 = Kokkos::min(k0 + zc, g + nz);
            Real below = u(i, j, k0 - 1), c = u(i, j, k0);
            for (int k = k0; k < k1; ++k) {
              const Real above = u(i, j, k + 1);
              v(i, j, k) = c + cx * (u(i - 1, j, k) - Real(2) * c + u(i + 1, j, k)) +
                           cy * (u(i, j - 1, k) - Real(2) * c + u(i, j + 1, k)) +
                           cz * (below - Real(2) * c + above);
              below = c, c = above;
            }
          });
    } else {
      linalg::interior_for<3>(
          space, "kflow::diffusion::update", L, KOKKOS_LAMBDA(int i, int j, int k) {
            const Real c = u(i, j, k);
            v(i, j, k) = c + cx * (u(i - 1, j, k) - Real(2) * c + u(i + 1, j, k)) +
                         cy * (u(i, j - 1, k) - Real(2) * c + u(i, j + 1, k)) +
                         cz * (u(i, j, k - 1) - Real(2) * c + u(i, j, k + 1));
          });
    }
  }
}

// Max and sum of squares of u - exact(t) over the block's owned cells.
template <class ExecSpace, class View>
std::pair<double, double> error_norms(const ExecSpace& space, const Setup& s,
                                      const linalg::dist::LocalGrid& L, const Exact& ex, double t,
                                      const View& u) {
  const auto& G = s.grid;
  const int g = G.ghost, fx = L.offset[0], fy = L.offset[1], fz = L.offset[2];
  const double hx = G.spacing(0), hy = G.spacing(1), hz = G.spacing(2);
  const double ox = G.origin[0], oy = G.origin[1], oz = G.origin[2];
  double emax = 0, esq = 0;
  if constexpr (View::rank == 2) {
    Kokkos::parallel_reduce(
        "kflow::diffusion::error_norms", linalg::interior_policy<2>(space, L.local),
        KOKKOS_LAMBDA(int i, int j, double& m, double& sq) {
          const double x[3] = {ox + (i - g + fx + 0.5) * hx, oy + (j - g + fy + 0.5) * hy, 0.0};
          const double e = Kokkos::fabs(double(u(i, j)) - ex(x, t));
          m = e > m ? e : m;
          sq += e * e;
        },
        Kokkos::Max<double>(emax), Kokkos::Sum<double>(esq));
  } else {
    Kokkos::parallel_reduce(
        "kflow::diffusion::error_norms", linalg::interior_policy<3>(space, L.local),
        KOKKOS_LAMBDA(int i, int j, int k, double& m, double& sq) {
          const double x[3] = {ox + (i - g + fx + 0.5) * hx, oy + (j - g + fy + 0.5) * hy,
                               oz + (k - g + fz + 0.5) * hz};
          const double e = Kokkos::fabs(double(u(i, j, k)) - ex(x, t));
          m = e > m ? e : m;
          sq += e * e;
        },
        Kokkos::Max<double>(emax), Kokkos::Sum<double>(esq));
  }
  space.fence("kflow::diffusion::error_norms");
  return {emax, esq};
}

}  // namespace kernels

// The halo exchange of a run of several ranks.  A build without MPI runs
// one block, and has no exchange to make.
#ifdef KFLOW_HAVE_MPI
template <class ExecSpace, class Real, int D>
using Halo = linalg::dist::Halo<ExecSpace, Real, D>;
template <class ExecSpace, class Real, int D>
std::unique_ptr<Halo<ExecSpace, Real, D>> make_halo(const ExecSpace& space,
                                                    const linalg::dist::LocalGrid& g) {
  return std::make_unique<Halo<ExecSpace, Real, D>>(
      space, g, parallel::transport(linalg::dist::nccl_space<ExecSpace>));
}
#else
template <class ExecSpace, class Real, int D>
struct Halo {
  void exchange(const linalg::Field<Real, D, typename ExecSpace::memory_space>&) {}
  double seconds() const { return 0; }
};
template <class ExecSpace, class Real, int D>
std::unique_ptr<Halo<ExecSpace, Real, D>> make_halo(const ExecSpace&,
                                                    const linalg::dist::LocalGrid&) {
  throw Error("diffusion: this build of kflow has no MPI, so it runs on one rank only");
}
#endif

template <class ExecSpace, class Real>
class Model final : public kflow::Model {
  using Mem = typename ExecSpace::memory_space;
  template <int D>
  using F = linalg::Field<Real, D, Mem>;

 public:
  explicit Model(const Setup& s) : s_(s) {
    // This rank's block; the whole grid on one rank.
    auto dec = s_.decomposition;
    for (int d = 0; d < 3; ++d) dec.periodic[d] = d < s_.grid.dim && s_.bc[d][0] == Bc::periodic;
    lg_ = linalg::dist::make_local_grid(s_.grid, dec);
    for (int d = 0; d < s_.grid.dim; ++d)
      for (int side = 0; side < 2; ++side)
        boundary_[d][side] = !dec.split(d) || dec.neighbour(d, side) < 0;
    dispatch([&](auto dim) {
      constexpr int D = decltype(dim)::value;
      cur<D>() = linalg::make_field<Real, D>(space_, "kflow::diffusion::u", lg_.local);
      next<D>() = linalg::make_field<Real, D>(space_, "kflow::diffusion::u_next", lg_.local);
      kernels::initialise<D>(space_, s_, lg_, exact(), cur<D>());
      if (dec.size() > 1) halo<D>() = make_halo<ExecSpace, Real, D>(space_, lg_);
    });
  }

  const linalg::Grid& grid() const override { return s_.grid; }
  double bytes_per_cell_step() const override { return 2.0 * sizeof(Real); }
  void fence() override { space_.fence("kflow::diffusion::fence"); }

  double stable_dt(double) const override {
    double inv = 0;
    for (int d = 0; d < s_.grid.dim; ++d) inv += 1.0 / (s_.grid.spacing(d) * s_.grid.spacing(d));
    return 1.0 / (2.0 * s_.kappa * inv);
  }

  // Ghosts: from the neighbouring blocks (halo exchange, several ranks),
  // then from the boundary conditions on the sides of the domain.
  void step(double, double dt) override {
    Kokkos::Profiling::ScopedRegion region("kflow::diffusion::step");
    dispatch([&](auto dim) {
      constexpr int D = decltype(dim)::value;
      if (halo<D>()) halo<D>()->exchange(cur<D>());
      const auto& L = lg_.local;
      const auto& b = boundary_;
      kernels::fill_axis<0>(space_, s_, L, b[0][0], b[0][1], cur<D>());
      kernels::fill_axis<1>(space_, s_, L, b[1][0], b[1][1], cur<D>());
      if constexpr (D == 3) kernels::fill_axis<2>(space_, s_, L, b[2][0], b[2][1], cur<D>());
      kernels::update(space_, s_, L, dt, cur<D>(), next<D>());
      std::swap(cur<D>(), next<D>());
    });
  }

  double exchange_seconds() const override {
    return h2_ ? h2_->seconds() : h3_ ? h3_->seconds() : 0.0;
  }

  Diagnostics diagnostics(double t) override {
    Diagnostics d;
    dispatch([&](auto dim) {
      constexpr int D = decltype(dim)::value;
      // Global values: the block's reductions combined over the ranks
      // (maxima are the single rank's bits, sums may differ in the last ones).
      const auto& g = s_.grid;
      d.emplace_back("max_abs_u", parallel::max(linalg::max_norm(space_, lg_.local, cur<D>())));
      d.emplace_back("mean_u", parallel::sum(linalg::sum(space_, lg_.local, cur<D>())) /
                                   double(g.interior_cells()));
      if (s_.has_exact) {
        const auto [emax, esq] = kernels::error_norms(space_, s_, lg_, exact(), t, cur<D>());
        d.emplace_back("error_max", parallel::max(emax));
        d.emplace_back("error_rms", std::sqrt(parallel::sum(esq) / double(g.interior_cells())));
      }
    });
    return d;
  }

  // This rank's block of the field (the driver gathers the blocks).
  HostField field(const std::string& name, double t) override {
    const auto* e = find_field(field_table, name);
    if (!e) throw Error("diffusion has no output field '" + name + "'");
    HostField f;
    f.name = name;
    f.components = e->components;
    const auto& g = s_.grid;
    const auto& L = lg_.local;
    const int fx = lg_.offset[0], fy = lg_.offset[1], fz = lg_.offset[2];
    f.values.resize(L.interior_cells());
    const Exact ex = exact();
    dispatch([&](auto dim) {
      constexpr int D = decltype(dim)::value;
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cur<D>());
      const int gh = g.ghost, nx = L.cells[0], ny = L.cells[1], nz = L.cells[2];
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            const std::size_t c = i + std::size_t(nx) * (j + std::size_t(ny) * k);
            double u;
            if constexpr (D == 2)
              u = h(i + gh, j + gh);
            else
              u = h(i + gh, j + gh, k + gh);
            const double x[3] = {g.centre(0, i + fx), g.centre(1, j + fy), g.centre(2, k + fz)};
            switch (e->id) {
              case Field::u:
                f.values[c] = u;
                break;
              case Field::u_exact:
                f.values[c] = ex(x, t);
                break;
              case Field::error:
                f.values[c] = u - ex(x, t);
                break;
            }
          }
    });
    return f;
  }

  std::vector<StateArray> save_state() override {
    std::vector<StateArray> r;
    dispatch([&](auto dim) { r.push_back(to_state(cur<decltype(dim)::value>(), "u")); });
    return r;
  }

  void restore_state(const std::vector<StateArray>& state) override {
    dispatch([&](auto dim) { from_state(space_, state, cur<decltype(dim)::value>(), "u"); });
  }

 private:
  template <class Fn>
  void dispatch(Fn&& fn) {
    if (s_.grid.dim == 2)
      fn(std::integral_constant<int, 2>{});
    else
      fn(std::integral_constant<int, 3>{});
  }
  template <int D>
  F<D>& cur() {
    if constexpr (D == 2)
      return u2_;
    else
      return u3_;
  }
  template <int D>
  F<D>& next() {
    if constexpr (D == 2)
      return v2_;
    else
      return v3_;
  }

  template <int D>
  std::unique_ptr<Halo<ExecSpace, Real, D>>& halo() {
    if constexpr (D == 2)
      return h2_;
    else
      return h3_;
  }

  Exact exact() const {
    Exact e{};
    for (int d = 0; d < 3; ++d) {
      e.ax[d] = s_.mode[d];
      e.origin[d] = s_.grid.origin[d];
    }
    e.amplitude = s_.amplitude;
    e.decay = s_.decay;
    return e;
  }

  Setup s_;
  linalg::dist::LocalGrid lg_;
  bool boundary_[3][2] = {};  // a side of the domain (its ghosts from the boundary condition)
  ExecSpace space_{};
  F<2> u2_, v2_;
  F<3> u3_, v3_;
  std::unique_ptr<Halo<ExecSpace, Real, 2>> h2_;  // several ranks only
  std::unique_ptr<Halo<ExecSpace, Real, 3>> h3_;
};

template <class ExecSpace, class Real>
std::unique_ptr<kflow::Model> make_model(const ModelSetup& setup) {
  return std::make_unique<Model<ExecSpace, Real>>(static_cast<const Setup&>(setup));
}

}  // namespace kflow::diffusion
