// physics/split3d on periodic axes: shear waves along X, Y and Z, the
// projection round a periodic box, the periodic channel's start-up and
// parabola, and a body across a periodic line against the walled box.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kflow/model/case_geometry.hpp"
#include "kflow/model/registry.hpp"
#include "unit/helpers.hpp"

using kflow::test::case_text;
using kflow::test::diag;
using kflow::test::field;
using kflow::test::run_text;

namespace {

// A split3d model of the case text with its u, v, w, T replaced by `init`
// (every node, i fastest; periodic ghosts included), on the default host
// backend in double.
std::unique_ptr<kflow::Model> model_with(const std::string& text,
                                         const std::vector<std::string>& sets,
                                         const std::vector<double> (&init)[4]) {
  auto pc = kflow::test::prepare_text(text, sets);
  auto f = kflow::Registry::instance().factory("split3d", pc.backend, pc.precision);
  REQUIRE(f);
  auto model = f(*pc.setup);
  auto state = model->save_state();
  const char* names[4] = {"kflow::split3d::u", "kflow::split3d::v", "kflow::split3d::w",
                          "kflow::split3d::temperature"};
  for (int q = 0; q < 4; ++q)
    for (auto& s : state)
      if (s.name == names[q]) {
        REQUIRE(s.type == "float64");
        REQUIRE(s.bytes.size() == init[q].size() * sizeof(double));
        std::memcpy(s.bytes.data(), init[q].data(), s.bytes.size());
      }
  model->restore_state(state);
  return model;
}

}  // namespace

TEST_CASE("split3d periodic shear waves decay as exp(-4 pi^2 nu t / L^2) along X, Y and Z",
          "[unit][split3d]") {
  // A box periodic in x, y and z, gamma = 1 (T stays uniform): the velocity
  // component c varying along axis a (u(z), v(x), w(y): Z, X and Y carry
  // the wave, each through its cyclic lines) is an exact solution with its
  // convection 0, U sin(k x_a) exp(-nu k^2 t), k = 2 pi / L.  The scheme is
  // backward Euler in time on the central Laplacian, so each step multiplies
  // the discrete wave by G = 1 / (1 + tau nu (4/h^2) sin^2(k h / 2)) exactly
  // (checked to 1e-12), and the relative amplitude error against the exact
  // decay has the leading terms
  //   first order in tau:  - t (nu k^2)^2 tau / 2,
  //   second order in h:   + t nu k^2 (k h)^2 / 12,
  // both positive (backward Euler and the discrete Laplacian both damp less);
  // their sum, with 25 % for the higher terms, is the tolerance.  Measured
  // (n = 24, dt = 0.01, t = 0.5): 0.0496 against 0.0502 in each direction.
  const double pi = 3.14159265358979323846, nu = 0.1, U = 0.5, dt = 0.01, tend = 0.5;
  const int n = 24, steps = 50;
  const double h = 1.0 / n, k = 2 * pi;
  const auto text = case_text("split3d/periodic-channel.toml");
  const int comp[3] = {0, 1, 2}, axis[3] = {2, 0, 1};
  for (int o = 0; o < 3; ++o) {
    const int c = comp[o], a = axis[o];
    int cells[3] = {3, 3, 3};
    cells[a] = n;
    const std::vector<std::string> sets = {"grid.cells=[" + std::to_string(cells[0]) + "," +
                                               std::to_string(cells[1]) + "," +
                                               std::to_string(cells[2]) + "]",
                                           "grid.length=[1.0,1.0,1.0]",
                                           "physics.body_force=[0.0,0.0,0.0]",
                                           "boundary.bottom=\"periodic\"",
                                           "boundary.top=\"periodic\"",
                                           "output.lines=[]"};
    const int e[3] = {cells[0] + 2, cells[1] + 2, cells[2] + 2};
    const std::size_t nodes = std::size_t(e[0]) * e[1] * e[2];
    std::vector<double> init[4];
    for (int q = 0; q < 3; ++q) init[q].assign(nodes, 0.0);
    init[3].assign(nodes, 1.0);
    auto xa = [&](std::size_t m) {  // node position along a: (i - 1/2) h, ghosts included
      const std::size_t st = a == 0 ? 1 : a == 1 ? std::size_t(e[0]) : std::size_t(e[0]) * e[1];
      return (double(m / st % std::size_t(e[a])) - 0.5) * h;
    };
    for (std::size_t m = 0; m < nodes; ++m) init[c][m] = U * std::sin(k * xa(m));
    auto model = model_with(text, sets, init);
    for (int s = 0; s < steps; ++s) model->step(s * dt, dt);
    const double G = 1 / (1 + dt * nu * 4 / (h * h) * std::pow(std::sin(k * h / 2), 2));
    const double amp_discrete = std::pow(G, steps), amp_exact = std::exp(-nu * k * k * tend);
    const double predicted =
        tend * nu * nu * std::pow(k, 4) * dt / 2 + tend * nu * k * k * (k * h) * (k * h) / 12;
    const char* names[3] = {"u", "v", "w"};
    const auto f = model->field(names[c], tend);
    const auto others = std::make_pair(model->field(names[(c + 1) % 3], tend),
                                       model->field(names[(c + 2) % 3], tend));
    const auto T = model->field("temperature", tend);
    double to_discrete = 0, to_exact = 0, rest = 0, tdev = 0;
    for (std::size_t m = 0; m < nodes; ++m) {
      const double s = U * std::sin(k * xa(m));
      to_discrete = std::max(to_discrete, std::fabs(f.values[m] - amp_discrete * s));
      to_exact = std::max(to_exact, std::fabs(f.values[m] - amp_exact * s));
      rest =
          std::max({rest, std::fabs(others.first.values[m]), std::fabs(others.second.values[m])});
      tdev = std::max(tdev, std::fabs(T.values[m] - 1));
    }
    const double rel = to_exact / (U * amp_exact);
    INFO(names[c] << " varying along "
                  << "xyz"[a] << ": max error against G^N " << to_discrete
                  << ", against the exact decay " << rel << " of the amplitude "
                  << "(leading terms " << predicted << "); other components " << rest
                  << ", |T - 1| " << tdev);
    CHECK(to_discrete < 1e-12);
    CHECK(rel < 1.25 * predicted);
    CHECK(rel > 0.8 * predicted);  // and it is that error, not a smaller one by chance
    CHECK(rest < 1e-14);
    CHECK(tdev < 1e-13);  // T uniform to rounding
  }
}

TEST_CASE("split3d projection round a periodic box: the wave's divergent part removed as predicted",
          "[unit][split3d]") {
  // A box periodic in x, y and z, gamma = 1, u = U sin(k x) (a pure gradient:
  // all of it divergent), U = 1e-6 so that convection (O(U^2)) is below the
  // tolerance.  One step: the X sweep multiplies the wave by G (as in the
  // shear-wave test), then the projection solves the compact 7-point
  // Laplacian for phi against the central (wide) divergence and subtracts the
  // wide gradient.  For a Fourier mode that leaves the factor
  //   1 - (sin(kh)/h)^2 / (4 sin^2(kh/2)/h^2) = sin^2(kh/2)
  // (docs/models/split3d.md: continuity to O(h^2)), 0.038 for n = 16, on
  // every node, the seam included: the periodic Poisson operator wraps.
  // Without the projection the factor is G (checked as well).
  const double pi = 3.14159265358979323846, nu = 0.1, U = 1e-6, dt = 0.01;
  const int n = 16;
  const double h = 1.0 / n, k = 2 * pi;
  const auto text = case_text("split3d/periodic-channel.toml");
  for (const bool projection : {true, false}) {
    const std::vector<std::string> sets = {
        "grid.cells=[16,3,4]",
        "grid.length=[1.0,1.0,1.0]",
        "physics.body_force=[0.0,0.0,0.0]",
        "boundary.bottom=\"periodic\"",
        "boundary.top=\"periodic\"",
        "output.lines=[]",
        std::string("physics.projection=") + (projection ? "true" : "false"),
        "solver.tolerance=1e-12"};
    const int e[3] = {n + 2, 5, 6};
    const std::size_t nodes = std::size_t(e[0]) * e[1] * e[2];
    std::vector<double> init[4];
    for (int q = 0; q < 3; ++q) init[q].assign(nodes, 0.0);
    init[3].assign(nodes, 1.0);
    auto x = [&](std::size_t m) {
      return (double(m % std::size_t(e[0])) - 0.5) * h;
    };
    for (std::size_t m = 0; m < nodes; ++m) init[0][m] = U * std::sin(k * x(m));
    auto model = model_with(text, sets, init);
    model->step(0, dt);
    const double G = 1 / (1 + dt * nu * 4 / (h * h) * std::pow(std::sin(k * h / 2), 2));
    const double factor = projection ? G * std::pow(std::sin(k * h / 2), 2) : G;
    const auto u = model->field("u", dt), v = model->field("v", dt), w = model->field("w", dt);
    double err = 0, vw = 0;
    for (std::size_t m = 0; m < nodes; ++m) {
      err = std::max(err, std::fabs(u.values[m] - factor * U * std::sin(k * x(m))));
      vw = std::max({vw, std::fabs(v.values[m]), std::fabs(w.values[m])});
    }
    INFO((projection ? "projected" : "not projected")
         << ": predicted factor " << factor << ", max |u - factor U sin(kx)| / U " << err / U
         << ", max |v|, |w| " << vw);
    CHECK(err < 1e-6 * U);  // measured 3e-9 (projected), 2e-8: convection, O(U) relative
    CHECK(vw < 1e-10 * U);  // rounding only
  }
}

TEST_CASE("split3d periodic channel: start-up against the series, then the exact parabola",
          "[unit][split3d]") {
  // cases/split3d/periodic-channel.toml (periodic in x and y, walls at z = 0
  // and 1, body force g = 0.8, nu = 0.1) from rest.  The X step adds tau g,
  // the Z step is backward Euler on u_t = nu u_zz: the start-up series
  //   u = g/(2 nu) z (1 - z) - sum_{m odd} 4 g / (nu pi^3 m^3) sin(m pi z) exp(-m^2 pi^2 nu t)
  // at t = 1 (dt = 0.01) within its leading error: the first mode's
  // amplitude 0.38 times (t (nu pi^2)^2 dt / 2 + t nu pi^2 (pi h)^2 / 12) =
  // 2.0e-3, plus 25 %; and the steady parabola (t = 40, dt = 0.5) exactly
  // (1e-10: the slowest mode has fallen by 1.49^-80).
  const auto text = case_text("split3d/periodic-channel.toml");
  const double pi = 3.14159265358979323846, g = 0.8, nu = 0.1, h = 1.0 / 32;
  auto series = [&](double z, double t) {
    double u = g / (2 * nu) * z * (1 - z);
    for (int m = 1; m < 200; m += 2)
      u -= 4 * g / (nu * pi * pi * pi * m * m * m) * std::sin(m * pi * z) *
           std::exp(-m * m * pi * pi * nu * t);
    return u;
  };
  for (const bool steady : {false, true}) {
    const double t = steady ? 40.0 : 1.0;
    const auto r = run_text(text, "",
                            {"time.end=" + std::to_string(t),
                             steady ? "time.dt=0.5" : "time.dt=0.01", "output.lines=[]"},
                            "", true);
    const auto u = field(r, "u"), v = field(r, "v"), w = field(r, "w");
    double err = 0, vw = 0;
    for (int k = 0; k <= 32; ++k)
      for (int j = 0; j < 6; ++j)
        for (int i = 0; i < 10; ++i) {
          const std::size_t m = i + 10 * (j + std::size_t(6) * k);
          err = std::max(err, std::fabs(u.values[m] - series(k * h, steady ? 1e9 : t)));
          vw = std::max({vw, std::fabs(v.values[m]), std::fabs(w.values[m])});
        }
    const double a1 = 4 * g / (nu * pi * pi * pi) * std::exp(-pi * pi * nu * t);
    const double lead = a1 * (t * std::pow(nu * pi * pi, 2) * 0.01 / 2 +
                              t * nu * pi * pi * std::pow(pi * h, 2) / 12);
    INFO((steady ? "steady" : "t = 1")
         << ": max |u - series| " << err << " (leading error " << lead << "), max |v|, |w| " << vw);
    CHECK(err < (steady ? 1e-10 : 1.25 * lead));
    CHECK(vw < 1e-14);
  }
}

TEST_CASE("split3d body across a periodic line equals the walled box's run", "[unit][split3d]") {
  // Periodic in x (16 nodes, h = 1/16) with a solid slab over nodes 5 .. 8
  // across all of y and z: every x line is the segment 9 .. 16, 1 .. 4 round
  // the seam, as in a box of 12 nodes between walls at rest.  The slab at a
  // fixed T = 1.5 against box walls at 1.5, and adiabatic against adiabatic
  // walls; a lid moving along y at T = 1.2, gamma = 1.4, 10 steps.  Every
  // interior fluid node must agree (the cyclic and ordinary solves differ
  // only in rounding).  Picard: the relaxed update also relaxes u~ on the
  // slab's nodes in the Y and Z sweeps, which never touch the box's wall
  // nodes, and so differs by 1e-5 relative once the slab's T varies.
  const auto text = case_text("split3d/periodic-channel.toml");
  for (const bool adiabatic : {false, true}) {
    const std::string thermal = adiabatic ? "adiabatic=true" : "temperature=1.5";
    const std::vector<std::string> common = {
        "physics.gamma=1.4",
        "physics.body_force=[0.0,0.0,0.0]",
        "boundary.south=\"no_slip\"",
        "boundary.north=\"no_slip\"",
        "boundary.top={type=\"moving_wall\", velocity=[0.0, 1.0, 0.0], temperature=1.2}",
        "time.end=0.2",
        "time.dt=0.02",
        "numerics.update=\"picard\"",
        "output.lines=[]"};
    auto ring = common, box = common;
    ring.insert(ring.end(), {"grid.cells=[16,7,7]", "grid.length=[1.0,1.0,1.0]",
                             "body=[{shape=\"box\", min=[0.27,-1.0,-1.0], max=[0.47,2.0,2.0], " +
                                 thermal + "}]"});
    box.insert(box.end(), {"grid.cells=[12,7,7]", "grid.length=[0.8125,1.0,1.0]",
                           "boundary.west={type=\"no_slip\", " + thermal + "}",
                           "boundary.east={type=\"no_slip\", " + thermal + "}"});
    const auto a = run_text(text, "", ring, "", true), b = run_text(text, "", box, "", true);
    for (const char* name : {"u", "v", "w", "temperature"}) {
      const auto fa = field(a, name), fb = field(b, name);
      REQUIRE(fa.values.size() == std::size_t(18) * 9 * 9);
      REQUIRE(fb.values.size() == std::size_t(14) * 9 * 9);
      double diff = 0, scale = 0;
      for (int k = 1; k <= 7; ++k)
        for (int j = 1; j <= 7; ++j)
          for (int mb = 1; mb <= 12; ++mb) {
            const int ia = (8 + mb - 1) % 16 + 1;  // box node 1 is ring node 9
            const double va = fa.values[ia + 18 * (j + 9 * k)],
                         vb = fb.values[mb + 14 * (j + 9 * k)];
            diff = std::max(diff, std::fabs(va - vb));
            scale = std::max(scale, std::fabs(vb));
          }
      INFO((adiabatic ? "adiabatic" : "fixed T")
           << ", " << name << ": largest difference " << diff << " of " << scale);
      CHECK(scale > 1e-4);
      CHECK(diff <= 1e-12 * scale);
    }
  }
}

TEST_CASE("split3d interpolated walls: a body's plane wall between nodes gives the exact parabola",
          "[unit][split3d]") {
  // The periodic channel (nu = 0.1, g = 0.8) between a side's wall at s = 1
  // and a body filling s < 0.3, s the coordinate across: the wall at 0.3 lies
  // between the nodes 0.28125 and 0.3125 (h = 1/32), the link fraction of
  // the first fluid node 0.4.  Steady, u = g / (2 nu) (s - 0.3) (1 - s).
  // The interpolated walls' rows (three points on unequal spacings) hold
  // a quadratic exactly: every fluid node within 5e-9 of it (the link
  // fraction is stored in float: its rounding moves the wall by up to
  // 3e-10 of h); the staircase's wall at the nodes misses by h / 2 (first
  // order).  Across x, y and z (X's sweep runs in the frame with x and y
  // exchanged).  With the wall across x or y the force acts along a later
  // sweep's axis, which adds tau g after the diffusing sweep: the steady
  // state there is the parabola plus g dt (its fixed point: (I - dt nu L)
  // (u - g dt) = u - g dt + dt g, so -nu L (u - g dt) = g).
  const auto text = case_text("split3d/periodic-channel.toml");
  const double g = 0.8, nu = 0.1, dt = 0.5, h = 1.0 / 32;
  for (int across = 0; across < 3; ++across) {
    const int along = across == 2 ? 0 : across == 0 ? 1 : 2;  // the force's axis
    const char* sides[3][2] = {{"west", "east"}, {"south", "north"}, {"bottom", "top"}};
    std::vector<std::string> set = {"time.end=40.0", "time.dt=0.5", "output.lines=[]"};
    int cells[3] = {8, 4, 8}, n[3];
    double len[3] = {2.0, 1.0, 2.0}, force[3] = {0, 0, 0}, lo[3] = {-1, -1, -1}, hi[3] = {3, 3, 3};
    cells[across] = 31, len[across] = 1.0, force[along] = g, hi[across] = 0.3;
    for (int d = 0; d < 3; ++d) {
      n[d] = cells[d] + 2;
      const bool wall = d == across;
      for (int s = 0; s < 2; ++s)
        set.push_back(std::string("boundary.") + sides[d][s] +
                      (wall ? "=\"no_slip\"" : "=\"periodic\""));
    }
    auto vec = [](const double(&v)[3]) {
      return "[" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) +
             "]";
    };
    set.push_back("grid.cells=[" + std::to_string(cells[0]) + "," + std::to_string(cells[1]) + "," +
                  std::to_string(cells[2]) + "]");
    set.push_back("grid.length=" + vec(len));
    set.push_back("physics.body_force=" + vec(force));
    set.push_back("body=[{shape=\"box\", min=" + vec(lo) + ", max=" + vec(hi) + "}]");
    const double shift = across == 2 ? 0.0 : g * dt;
    for (const bool cut : {true, false}) {
      auto s = set;
      s.push_back(std::string("numerics.body_walls=") +
                  (cut ? "\"interpolated\"" : "\"staircase\""));
      const auto r = run_text(text, "", s, "", true);
      const auto u = field(r, std::string(1, "uvw"[along]));
      REQUIRE(u.values.size() == std::size_t(n[0]) * n[1] * n[2]);
      double err = 0;
      for (int k = 1; k < n[2] - 1; ++k)
        for (int j = 1; j < n[1] - 1; ++j)
          for (int i = 1; i < n[0] - 1; ++i) {
            const int x[3] = {i, j, k};
            const double sx = x[across] * h;
            if (sx < 0.3) continue;
            const double exact = g / (2 * nu) * (sx - 0.3) * (1 - sx) + shift;
            err = std::max(
                err,
                std::fabs(u.values[i + std::size_t(n[0]) * (j + std::size_t(n[1]) * k)] - exact));
          }
      INFO("wall across "
           << "xyz"[across] << ", " << (cut ? "interpolated" : "staircase")
           << ": largest error at the fluid nodes " << err);
      if (cut)
        CHECK(err < 5e-9);
      else
        CHECK(err > 1e-2);
    }
  }
}

TEST_CASE("split3d interpolated walls: a surface a fortieth of a spacing from a node is named",
          "[unit][split3d]") {
  // DFG 3D-1Z's channel on 62 x 21 x 9 nodes, a cylinder whose axis lies on
  // the node (13, 11): radius 2 h_y - 0.0005, so the nodes two spacings off
  // the axis along y are fluid with the wall 0.0005 = 0.027 h_y from them.
  // The interpolated walls leave run.divergence_limit within 20 steps there
  // (the projection's right-hand side weighs such a node by 1 / q;
  // docs/models/split3d.md, "Interpolated walls"): the error says so and
  // names the link fraction and the staircase walls, which run the case.
  const double hx = 2.5 / 63, hy = 0.41 / 22, r = 2 * hy - 0.0005;
  const std::vector<std::string> sets = {
      "grid.cells=[62,21,9]", "time.end=0.6", "output.lines=[]",
      "body=[{shape=\"cylinder\", center=[" + std::to_string(13 * hx) +
          ",0.205,0.205], axis=[0,0,1], radius=" + std::to_string(r) + "}]"};
  const auto text = case_text("split3d/dfg-3d-1z.toml");
  auto cut = sets;
  cut.push_back("numerics.body_walls=\"interpolated\"");
  auto pc = kflow::test::prepare_text(text, cut);
  kflow::place_bodies(*pc.setup, false);
  std::string note;
  for (const auto& n : pc.setup->notes)
    if (n.find("interpolated walls") == 0) note = n;
  INFO(note);
  CHECK_THAT(note, Catch::Matchers::ContainsSubstring("the smallest at 0.0268"));
  CHECK_THROWS_WITH(
      run_text(text, "", cut),
      Catch::Matchers::ContainsSubstring("exceeds run.divergence_limit") &&
          Catch::Matchers::ContainsSubstring("the smallest link fraction is 0.0268") &&
          Catch::Matchers::ContainsSubstring("numerics.body_walls = \"staircase\""));
  const auto staircase = run_text(text, "", sets);
  CHECK(staircase.steps == 30);
  CHECK(diag(staircase, "divergence_error") < 1e-3);
}
