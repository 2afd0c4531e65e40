// physics/split3d: the assembled rows of every direction against a direct
// evaluation of the discrete operator on random fields (exact to rounding),
// each direction's 1D convection-diffusion against an exact solution with its
// observed orders in h and tau, the divergence error of Appendix A on linear
// fields, the rows of adiabatic obstacles and of periodic lines.  Runs:
// test_split3d_runs.cpp; flows with exact solutions: test_split3d_flows.cpp;
// published data: test_split3d_validation.cpp.  Kernel tests run on every
// execution space compiled in.

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kflow/core/subnormals.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/linalg/tridiag.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/exact.hpp"
#include "kflow/model/registry.hpp"
#include "linalg/backends.hpp"
#include "split3d_kernels.hpp"
#include "split3d_rows.hpp"
#include "unit/helpers.hpp"

using kflow::test::case_text;
using kflow::test::diag;
using kflow::test::field;
using kflow::test::run_text;
using kflow::test::TempDir;
namespace sp = kflow::split3d;
namespace la = kflow::linalg;

namespace {

template <class Space>
using F3 = la::Field3<double, typename Space::memory_space>;

template <class Space>
F3<Space> make(const sp::Params<double>& p, const char* name) {
  return F3<Space>(name, p.e[0], p.e[1], p.e[2]);
}

// Host copy of a field or flat array, i fastest.
template <class V>
std::vector<double> host(const V& f) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  return std::vector<double>(h.data(), h.data() + h.span());
}

template <class V>
void fill(const V& f, const std::vector<double>& v) {
  auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), f);
  for (std::size_t m = 0; m < v.size(); ++m) h.data()[m] = v[m];
  Kokkos::deep_copy(f, h);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("split3d rows of X, Y and Z equal the discrete operator on random fields",
                        "[unit][split3d]", kflow::test::ExecutionSpaces) {
  using Space = TestType;
  using Mem = typename Space::memory_space;
  sp::Params<double> p;
  p.e[0] = 7, p.e[1] = 6, p.e[2] = 5;
  p.spacing(0, 0.11), p.spacing(1, 0.07), p.spacing(2, 0.13);
  p.tau = 0.3, p.nu = 0.02, p.kappa = 0.031, p.diss = 0.17, p.grad_t = 1;
  p.force[0] = 0.4, p.force[1] = -0.2, p.force[2] = 0.9;
  // boundary rows: mixed Dirichlet and zero gradient
  for (int sd = 0; sd < 6; ++sd)
    for (int q = 0; q < 4; ++q)
      p.row[sd][q] = (sd + q) % 3 == 0 ? sp::zero_gradient : sp::dirichlet;
  const std::size_t n = std::size_t(p.e[0]) * p.e[1] * p.e[2];
  std::mt19937 gen(15);
  std::uniform_real_distribution<double> r(-1, 1);
  auto random = [&] {
    std::vector<double> v(n);
    for (auto& x : v) x = r(gen);
    return v;
  };
  sp::Vars<double, Mem> nl;
  std::vector<double> hn[4], hin[4];
  F3<Space> in[4];
  for (int q = 0; q < 4; ++q) {
    nl.q[q] = make<Space>(p, "nl");
    in[q] = make<Space>(p, "in");
    hn[q] = random(), hin[q] = random();
    fill(nl.q[q], hn[q]);
    fill(in[q], hin[q]);
  }
  sp::Flat<double, Mem> a("a", n), b("b", n), c("c", n);
  const auto x = make<Space>(p, "x");
  const std::vector<double> X = random();  // the field the operator acts on
  // a few solid nodes (obstacles): identity rows
  const sp::Mask<Mem> solid("solid", p.e[0], p.e[1], p.e[2]);
  std::vector<unsigned char> hs(n, 0);
  for (std::size_t m : {std::size_t(2 + 7 * (2 + 6 * 2)), std::size_t(4 + 7 * (3 + 6 * 1)),
                        std::size_t(3 + 7 * (1 + 6 * 3))})
    hs[m] = 1;
  {
    auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), solid);
    for (std::size_t m = 0; m < n; ++m) h.data()[m] = hs[m];
    Kokkos::deep_copy(solid, h);
  }
  const long st[3] = {1, p.e[0], long(p.e[0]) * p.e[1]};
  auto idx = [&](int i, int j, int k) {
    return std::size_t(i + st[1] * j + st[2] * k);
  };
  // central difference of host field f along axis e at node m
  auto D = [&](const std::vector<double>& f, int e, std::size_t m) {
    return (f[m + st[e]] - f[m - st[e]]) / (2 * p.h[e]);
  };
  for (int dir = 0; dir < 3; ++dir)
    for (int var = 0; var < 4; ++var) {
      sp::assemble(Space(), p, dir, var, nl, in[var], solid, a, b, c, x);
      const auto ha = host(a), hb = host(b), hc = host(c), hd = host(x);
      double worst = 0;
      int rows = 0, solids = 0;
      for (int k = 0; k < p.e[2]; ++k)
        for (int j = 0; j < p.e[1]; ++j)
          for (int i = 0; i < p.e[0]; ++i) {
            const int at[3] = {i, j, k};
            bool line = true;  // interior in the other two directions
            for (int e = 0; e < 3; ++e)
              if (e != dir && (at[e] == 0 || at[e] == p.e[e] - 1)) line = false;
            if (!line) continue;
            const std::size_t m = idx(i, j, k);
            const long s = st[dir];
            if (hs[m]) {  // inside an obstacle: keeps its value
              CHECK((ha[m] == 0 && hb[m] == 1 && hc[m] == 0 && hd[m] == hin[var][m]));
              ++solids;
              continue;
            }
            if (at[dir] == 0 || at[dir] == p.e[dir] - 1) {  // boundary rows
              const bool high = at[dir] != 0;
              const bool zg = p.row[2 * dir + high][var] == sp::zero_gradient;
              CHECK(hb[m] == 1);
              CHECK(ha[m] == (high && zg ? -1 : 0));
              CHECK(hc[m] == (!high && zg ? -1 : 0));
              CHECK(hd[m] == (zg ? 0 : hin[var][m]));
              continue;
            }
            // the row applied to X, minus its right-hand side ...
            const double row = ha[m] * X[m - s] + hb[m] * X[m] + hc[m] * X[m + s] - hd[m];
            // ... and the discrete operator written out: (X - in)/tau + u~ dX/dx_d
            // - nu d2X/dx_d^2 - S, with S as the paper prints it (its secs. 3 and 4)
            const double h = p.h[dir], nu = var == 3 ? p.kappa : p.nu;
            double S = 0;
            if (var == dir) S = -p.grad_t * D(hn[3], dir, m) + p.force[dir];
            if (var == 3) {
              const double ux = D(hn[0], 0, m), uy = D(hn[0], 1, m), uz = D(hn[0], 2, m);
              const double vx = D(hn[1], 0, m), vy = D(hn[1], 1, m), vz = D(hn[1], 2, m);
              const double wx = D(hn[2], 0, m), wy = D(hn[2], 1, m), wz = D(hn[2], 2, m);
              const double phi[3] = {2 * ux * ux + vx * vx + wx * wx + uy * vx + uz * wx,
                                     uy * uy + 2 * vy * vy + wy * wy + vx * uy + vz * wy,
                                     uz * uz + vz * vz + 2 * wz * wz + wx * uz + wy * vz};
              S = p.diss * phi[dir];
            }
            const double op = (X[m] - hin[var][m]) / p.tau +
                              hn[dir][m] * (X[m + s] - X[m - s]) / (2 * h) -
                              nu * (X[m + s] - 2 * X[m] + X[m - s]) / (h * h) - S;
            worst = std::max(worst, std::fabs(row - op) / (1 + std::fabs(op)));
            ++rows;
          }
      INFO("direction " << dir << ", variable " << var << ": " << rows << " interior rows");
      CHECK(rows > 0);
      CHECK(solids == 3);
      CHECK(worst < 1e-13);
    }
}

namespace {

// One direction's 1D convection-diffusion of T through the model's rows and
// linalg's solver: u~ = U along dir, no other source (grad_t and Phi off), T
// exact = exp(-kappa k^2 t) sin(k (x - U t)) on [0, 1] with its Dirichlet
// values at both ends; n + 1 intervals, steps of tau to t = 0.5.  Returns the
// largest nodal error.
template <class Space>
double line_error(int dir, int intervals, double tau) {
  using Mem = typename Space::memory_space;
  const double U = 1, kappa = 0.05, k = 3.14159265358979323846, t_end = 0.5;
  sp::Params<double> p;
  for (int d = 0; d < 3; ++d) p.e[d] = d == dir ? intervals + 1 : 3;
  p.spacing(dir, 1.0 / intervals);
  p.tau = tau, p.nu = 0.01, p.kappa = kappa, p.diss = 0, p.grad_t = 0;
  sp::Vars<double, Mem> nl;
  for (int q = 0; q < 4; ++q) nl.q[q] = make<Space>(p, "nl");
  Kokkos::deep_copy(nl.q[dir], U);
  const auto T = make<Space>(p, "T"), x = make<Space>(p, "x");
  sp::Flat<double, Mem> a("a", T.span()), b("b", T.span()), c("c", T.span());
  const auto sh = sp::line_systems(p, dir);
  la::Tridiag<Space, double> tri{Space()};
  auto exact = [&](double xx, double t) {
    return std::exp(-kappa * k * k * t) * std::sin(k * (xx - U * t));
  };
  const long st[3] = {1, p.e[0], long(p.e[0]) * p.e[1]};
  auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), T);
  auto set = [&](double t, bool ends_only) {
    for (int m = 0; m <= intervals; ++m)
      if (!ends_only || m == 0 || m == intervals) {
        const long at = st[(dir + 1) % 3] + st[(dir + 2) % 3] + m * st[dir];
        h.data()[at] = exact(m * p.h[dir], t);
      }
  };
  Kokkos::deep_copy(h, 0.0);
  set(0, false);
  Kokkos::deep_copy(T, h);
  const long steps = std::lround(t_end / tau);
  for (long s = 1; s <= steps; ++s) {
    // the boundary rows copy the input's end values: the exact ones at t + tau
    Kokkos::deep_copy(h, T);
    set(s * tau, true);
    Kokkos::deep_copy(T, h);
    sp::assemble(Space(), p, dir, 3, nl, T, sp::Mask<Mem>(), a, b, c, x);
    const auto fx = sp::flat(x);
    tri.solve(sh, a, b, c, fx, fx);
    Kokkos::deep_copy(T, x);
  }
  Kokkos::deep_copy(h, T);
  double e = 0;
  for (int m = 0; m <= intervals; ++m) {
    const long at = st[(dir + 1) % 3] + st[(dir + 2) % 3] + m * st[dir];
    e = std::max(e, std::fabs(h.data()[at] - exact(m * p.h[dir], steps * tau)));
  }
  return e;
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("split3d 1D convection-diffusion per direction: O(tau + h^2) observed",
                        "[unit][split3d]", kflow::test::ExecutionSpaces) {
  for (int dir = 0; dir < 3; ++dir) {
    // h: tau = h^2 / 2 so that both terms fall by 4 per halving of h.
    const double e1 = line_error<TestType>(dir, 16, 0.5 / 256),
                 e2 = line_error<TestType>(dir, 32, 0.5 / 1024),
                 e3 = line_error<TestType>(dir, 64, 0.5 / 4096);
    const double ph1 = std::log2(e1 / e2), ph2 = std::log2(e2 / e3);
    // tau: h = 1/512 fixed (its h^2 error far below), tau halved.
    const double t1 = line_error<TestType>(dir, 512, 0.02),
                 t2 = line_error<TestType>(dir, 512, 0.01),
                 t3 = line_error<TestType>(dir, 512, 0.005);
    const double pt1 = std::log2(t1 / t2), pt2 = std::log2(t2 / t3);
    INFO("direction " << dir << ": errors (h) " << e1 << " " << e2 << " " << e3 << ", orders "
                      << ph1 << " " << ph2 << "; errors (tau) " << t1 << " " << t2 << " " << t3
                      << ", orders " << pt1 << " " << pt2);
    CHECK(ph1 > 1.8);
    CHECK(ph2 > 1.9);
    CHECK(ph2 < 2.1);
    CHECK(pt1 > 0.85);
    CHECK(pt2 > 0.9);
    CHECK(pt2 < 1.1);
  }
}

TEMPLATE_LIST_TEST_CASE("split3d divergence error (Appendix A) of linear fields is exact",
                        "[unit][split3d]", kflow::test::ExecutionSpaces) {
  // u = (al x, be y, ga z): every dual cell's net flux is (al + be + ga) h^3.
  using Space = TestType;
  sp::Params<double> p;
  p.e[0] = 6, p.e[1] = 5, p.e[2] = 7;
  p.spacing(0, 0.2), p.spacing(1, 0.25), p.spacing(2, 0.125);
  const double al = 0.7, be = -1.9, ga = 0.4;
  sp::Vars<double, typename Space::memory_space> s;
  for (int q = 0; q < 4; ++q) s.q[q] = make<Space>(p, "s");
  auto hu = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.q[0]);
  auto hv = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.q[1]);
  auto hw = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.q[2]);
  for (int k = 0; k < p.e[2]; ++k)
    for (int j = 0; j < p.e[1]; ++j)
      for (int i = 0; i < p.e[0]; ++i) {
        hu(i, j, k) = al * i * p.h[0] + 0.3 * j - k;  // + terms that do not diverge
        hv(i, j, k) = be * j * p.h[1] + 2.0 * i;
        hw(i, j, k) = ga * k * p.h[2] - 0.5 * i * j;
      }
  Kokkos::deep_copy(s.q[0], hu);
  Kokkos::deep_copy(s.q[1], hv);
  Kokkos::deep_copy(s.q[2], hw);
  const auto flux = make<Space>(p, "flux");
  const double err = sp::divergence(Space(), p, s, flux);
  const double cell = p.h[0] * p.h[1] * p.h[2];
  CHECK(std::fabs(err - std::fabs(al + be + ga) * cell) < 1e-14);
  const auto f = host(flux);
  CHECK(std::fabs(f[1 + p.e[0] * (1 + p.e[1] * 1)] - (al + be + ga) * cell) < 1e-14);
  CHECK(f[0] == 0);
}

// ---- periodic pairs and adiabatic obstacles -------------------------------

TEMPLATE_LIST_TEST_CASE(
    "split3d adiabatic obstacles: zero-gradient rows beside fluid, conduction conserves heat",
    "[unit][split3d]", kflow::test::ExecutionSpaces) {
  // Pure conduction of a random T (u~ = 0, no sources) through X (periodic:
  // cyclic lines), Y and Z sweeps with adiabatic walls and two adiabatic
  // boxes, one across the periodic seam.  Central differences with
  // zero-gradient ends conserve the fluid's heat sum T exactly per line; the
  // same boxes at a fixed temperature exchange heat with the fluid (the
  // check can fail).  Each adiabatic node beside fluid must equal it.
  using Space = TestType;
  using Mem = typename Space::memory_space;
  sp::Params<double> p;
  p.e[0] = 12, p.e[1] = 9, p.e[2] = 8;  // x periodic: nodes 1 .. 10, ghosts 0 and 11
  p.spacing(0, 0.1), p.spacing(1, 0.08), p.spacing(2, 0.12);
  p.tau = 0.05, p.nu = 0.02, p.kappa = 0.05, p.diss = 0, p.grad_t = 0;
  p.periodic[0] = 1;
  for (int sd = 0; sd < 6; ++sd)
    for (int q = 0; q < 4; ++q) p.row[sd][q] = q == 3 ? sp::zero_gradient : sp::dirichlet;
  const std::size_t n = std::size_t(p.e[0]) * p.e[1] * p.e[2];
  auto idx = [&](int i, int j, int k) {
    return std::size_t(i + p.e[0] * (j + p.e[1] * k));
  };
  std::vector<unsigned char> box(n, 0);
  for (int k = 0; k < p.e[2]; ++k)
    for (int j = 0; j < p.e[1]; ++j)
      for (int i = 1; i <= 10; ++i) {
        const bool b1 = i >= 4 && i <= 6 && j >= 3 && j <= 5 && k >= 2 && k <= 4;
        const bool b2 = i >= 9 && j >= 1 && j <= 2;  // nodes 9, 10: the seam to node 1
        if (b1 || b2) box[idx(i, j, k)] = 1;
      }
  for (int k = 0; k < p.e[2]; ++k)  // ghost copies along x
    for (int j = 0; j < p.e[1]; ++j)
      box[idx(0, j, k)] = box[idx(10, j, k)], box[idx(11, j, k)] = box[idx(1, j, k)];
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> r(1, 2);
  std::vector<double> t0(n);
  for (std::size_t q = 0; q < n; ++q) t0[q] = box[q] ? 5.0 : r(gen);  // hot boxes
  auto fluid = [&](int i, int j, int k) {
    return i >= 1 && i <= 10 && j >= 1 && j <= p.e[1] - 2 && k >= 1 && k <= p.e[2] - 2 &&
           !box[idx(i, j, k)];
  };
  auto heat = [&](const std::vector<double>& t) {
    double sum = 0;
    for (int k = 0; k < p.e[2]; ++k)
      for (int j = 0; j < p.e[1]; ++j)
        for (int i = 0; i < p.e[0]; ++i)
          if (fluid(i, j, k)) sum += t[idx(i, j, k)];
    return sum;
  };
  sp::Vars<double, Mem> nl;
  for (int q = 0; q < 4; ++q) nl.q[q] = make<Space>(p, "nl");  // at rest
  sp::Flat<double, Mem> a("a", n), b("b", n), c("c", n);
  const auto T = make<Space>(p, "T"), x = make<Space>(p, "x");
  la::Tridiag<Space, double> tri{Space()};
  for (const unsigned char kind : {2, 1}) {  // adiabatic, then fixed temperature
    const sp::Mask<Mem> solid("solid", p.e[0], p.e[1], p.e[2]);
    {
      auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), solid);
      for (std::size_t q = 0; q < n; ++q) h.data()[q] = box[q] ? kind : 0;
      Kokkos::deep_copy(solid, h);
    }
    fill(T, t0);
    const double h0 = heat(t0);
    double drift = 0, mismatch = 0;
    int beside = 0;
    for (int dir = 0; dir < 3; ++dir) {
      Kokkos::deep_copy(x, T);
      sp::assemble(Space(), p, dir, 3, nl, T, solid, a, b, c, x);
      const auto fx = sp::flat(x);
      if (p.periodic[dir])
        tri.solve_cyclic(sp::line_systems(p, dir), a, b, c, fx, fx);
      else
        tri.solve(sp::line_systems(p, dir), a, b, c, fx, fx);
      Kokkos::deep_copy(T, x);
      const auto t = host(T);
      drift = std::max(drift, std::fabs(heat(t) - h0) / h0);
      if (kind != 2) continue;
      // every adiabatic node with a fluid neighbour along dir copies it
      for (int k = 1; k < p.e[2] - 1; ++k)
        for (int j = 1; j < p.e[1] - 1; ++j)
          for (int i = 1; i <= 10; ++i) {
            if (!box[idx(i, j, k)]) continue;
            for (int sg = -1; sg <= 1; sg += 2) {
              int y[3] = {i, j, k};
              y[dir] += sg;
              if (dir == 0) y[0] = y[0] < 1 ? 10 : y[0] > 10 ? 1 : y[0];
              if (!fluid(y[0], y[1], y[2])) continue;
              ++beside;
              mismatch = std::max(mismatch, std::fabs(t[idx(i, j, k)] - t[idx(y[0], y[1], y[2])]));
            }
          }
    }
    INFO((kind == 2 ? "adiabatic" : "fixed temperature")
         << ": largest relative change of the fluid's heat " << drift << "; " << beside
         << " adiabatic nodes beside fluid, largest |T_s - T_fluid| " << mismatch);
    if (kind == 2) {
      CHECK(drift < 1e-13);
      CHECK(beside > 50);
      CHECK(mismatch < 1e-14);
    } else {
      CHECK(drift > 1e-3);
    }
  }
}

TEMPLATE_LIST_TEST_CASE(
    "split3d periodic rows and divergence wrap: the discrete operator on random periodic fields",
    "[unit][split3d]", kflow::test::ExecutionSpaces) {
  // A box periodic in x, y and z (5 x 4 x 3 nodes): random u~, input and
  // T~, their ghosts filled by wrap.  Every row of every direction and
  // variable applied to a random periodic field equals the discrete operator
  // written out with the neighbours' indices wrapped on the host (sources,
  // -dT~/dx_d and Phi included), and every periodic dual cell's divergence
  // flux equals its corner sums with wrapped indices; the fluxes sum to 0.
  using Space = TestType;
  using Mem = typename Space::memory_space;
  sp::Params<double> p;
  p.e[0] = 7, p.e[1] = 6, p.e[2] = 5;
  p.spacing(0, 0.11), p.spacing(1, 0.07), p.spacing(2, 0.13);
  p.tau = 0.3, p.nu = 0.02, p.kappa = 0.031, p.diss = 0.17, p.grad_t = 1;
  p.force[0] = 0.4, p.force[1] = -0.2, p.force[2] = 0.9;
  for (int d = 0; d < 3; ++d) p.periodic[d] = 1;
  const int nn[3] = {p.e[0] - 2, p.e[1] - 2, p.e[2] - 2};
  const std::size_t n = std::size_t(p.e[0]) * p.e[1] * p.e[2];
  auto idx = [&](int i, int j, int k) {
    return std::size_t(i + p.e[0] * (j + p.e[1] * k));
  };
  auto w = [&](int i, int d) {
    return (i - 1 + 2 * nn[d]) % nn[d] + 1;
  };  // wrapped node
  // node x moved by s along axis e, wrapped
  auto at = [&](int i, int j, int k, int e, int s) {
    int x[3] = {i, j, k};
    x[e] = w(x[e] + s, e);
    return idx(x[0], x[1], x[2]);
  };
  std::mt19937 gen(77);
  std::uniform_real_distribution<double> r(-1, 1);
  auto random = [&] {
    std::vector<double> v(n, 99.0);  // ghosts: garbage until wrapped
    for (int k = 1; k <= nn[2]; ++k)
      for (int j = 1; j <= nn[1]; ++j)
        for (int i = 1; i <= nn[0]; ++i) v[idx(i, j, k)] = r(gen);
    return v;
  };
  sp::Vars<double, Mem> nl, in;
  std::vector<double> hn[4], hin[4];
  for (int q = 0; q < 4; ++q) {
    nl.q[q] = make<Space>(p, "nl");
    in.q[q] = make<Space>(p, "in");
    hn[q] = random(), hin[q] = random();
    fill(nl.q[q], hn[q]);
    fill(in.q[q], hin[q]);
  }
  sp::wrap(Space(), p, nl);
  sp::wrap(Space(), p, in);
  sp::Flat<double, Mem> a("a", n), b("b", n), c("c", n);
  const auto x = make<Space>(p, "x");
  const std::vector<double> X = random();
  auto D = [&](const std::vector<double>& f, int e, int i, int j, int k) {
    return (f[at(i, j, k, e, 1)] - f[at(i, j, k, e, -1)]) / (2 * p.h[e]);
  };
  for (int dir = 0; dir < 3; ++dir) {
    const auto sh = sp::line_systems(p, dir);
    CHECK(sh.n == nn[dir]);
    for (int var = 0; var < 4; ++var) {
      sp::assemble(Space(), p, dir, var, nl, in.q[var], sp::Mask<Mem>(), a, b, c, x);
      const auto ha = host(a), hb = host(b), hc = host(c), hd = host(x);
      double worst = 0;
      int rows = 0;
      for (int k = 1; k <= nn[2]; ++k)
        for (int j = 1; j <= nn[1]; ++j)
          for (int i = 1; i <= nn[0]; ++i) {
            const std::size_t m = idx(i, j, k), lo = at(i, j, k, dir, -1), hi = at(i, j, k, dir, 1);
            const double row = ha[m] * X[lo] + hb[m] * X[m] + hc[m] * X[hi] - hd[m];
            const double h = p.h[dir], nu = var == 3 ? p.kappa : p.nu;
            double S = 0;
            if (var == dir) S = -p.grad_t * D(hn[3], dir, i, j, k) + p.force[dir];
            if (var == 3) {
              double g[3][3];  // g[c][e] = d u_c / d x_e
              for (int cc = 0; cc < 3; ++cc)
                for (int e = 0; e < 3; ++e) g[cc][e] = D(hn[cc], e, i, j, k);
              double phi = 0;
              for (int cc = 0; cc < 3; ++cc)
                phi += g[cc][dir] * g[cc][dir] +
                       (cc == dir ? g[cc][dir] * g[cc][dir] : g[dir][cc] * g[cc][dir]);
              S = p.diss * phi;
            }
            const double op = (X[m] - hin[var][m]) / p.tau +
                              hn[dir][m] * (X[hi] - X[lo]) / (2 * h) -
                              nu * (X[hi] - 2 * X[m] + X[lo]) / (h * h) - S;
            worst = std::max(worst, std::fabs(row - op) / (1 + std::fabs(op)));
            ++rows;
          }
      INFO("direction " << dir << ", variable " << var << ": " << rows << " rows");
      CHECK(rows == nn[0] * nn[1] * nn[2]);
      CHECK(worst < 1e-13);
    }
  }
  // The divergence: dual cell [i-1, i] x [j-1, j] x [k-1, k] for every node,
  // the cells at i = 1 reaching node n through the ghost.
  const auto flux = make<Space>(p, "flux");
  sp::divergence(Space(), p, nl, flux);
  const auto f = host(flux);
  double worst = 0, total = 0, scale = 0;
  for (int k = 1; k <= nn[2]; ++k)
    for (int j = 1; j <= nn[1]; ++j)
      for (int i = 1; i <= nn[0]; ++i) {
        double fx = 0, fy = 0, fz = 0;
        for (int s1 = 0; s1 < 2; ++s1)
          for (int s2 = 0; s2 < 2; ++s2) {
            fx += hn[0][idx(i, w(j - s1, 1), w(k - s2, 2))] -
                  hn[0][idx(w(i - 1, 0), w(j - s1, 1), w(k - s2, 2))];
            fy += hn[1][idx(w(i - s1, 0), j, w(k - s2, 2))] -
                  hn[1][idx(w(i - s1, 0), w(j - 1, 1), w(k - s2, 2))];
            fz += hn[2][idx(w(i - s1, 0), w(j - s2, 1), k)] -
                  hn[2][idx(w(i - s1, 0), w(j - s2, 1), w(k - 1, 2))];
          }
        const double ref = (p.h[1] * p.h[2] * fx + p.h[0] * p.h[2] * fy + p.h[0] * p.h[1] * fz) / 4;
        worst = std::max(worst, std::fabs(f[idx(i, j, k)] - ref));
        total += f[idx(i, j, k)];
        scale = std::max(scale, std::fabs(ref));
      }
  INFO("divergence: largest difference " << worst << " of " << scale << ", sum of fluxes "
                                         << total);
  CHECK(scale > 0.01);
  CHECK(worst < 1e-15);
  CHECK(std::fabs(total) < 1e-14);
}
