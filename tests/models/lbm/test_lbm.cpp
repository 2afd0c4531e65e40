// physics/lbm: exact solutions (plane Poiseuille flow, square-duct series,
// Taylor-Green decay), Ghia et al. (1982) for the 2D cavity, two-grid vs
// in-place streaming bit for bit, restart, the set-up checks, and flows with
// 16-bit storage (its conversions: test_lbm_storage.cpp; the GPUs' launches
// against the CPUs': test_lbm_launches.cpp).

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "kflow/io/fieldfile.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/exact.hpp"
#include "unit/helpers.hpp"

using kflow::test::check_identical;
using kflow::test::diag;
using kflow::test::field;
using kflow::test::prepare_text;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {

const double pi = 3.14159265358979323846;

// Plane Poiseuille flow: height H = 1, nu = U H / Re = 0.1, g = 1.2: the
// exact profile is u(y) = g y (1 - y) / (2 nu) = 6 y (1 - y).
const char* const poiseuille = R"([case]
model = "lbm"
[grid]
cells = [2, 16]
length = [0.125, 1.0]
[lattice]
collision = "trt"
[physics]
reynolds = 10.0
body_force = [1.2, 0.0]
[boundary]
west = "periodic"
east = "periodic"
[time]
end = 15.0
)";

// Max relative error of u against 6 y (1 - y) at the cell centres.
double poiseuille_error(const std::vector<std::string>& sets, int ny) {
  auto all = sets;
  all.push_back("grid.cells=[2, " + std::to_string(ny) + "]");
  all.push_back("grid.length=[" + std::to_string(2.0 / ny) + ", 1.0]");
  const auto r = run_text(poiseuille, "", all, "", true);
  const auto u = field(r, "u");
  double e = 0;
  for (int j = 0; j < ny; ++j) {
    const double y = (j + 0.5) / ny, exact = 6 * y * (1 - y);
    e = std::max(e, std::fabs(u.values[2 * j] - exact) / 1.5);
    CHECK(u.values[2 * j] == u.values[2 * j + 1]);  // uniform in x
  }
  return e;
}

}  // namespace

TEST_CASE("lbm Poiseuille: BGK converges at second order (fixed tau)", "[unit]") {
  std::vector<double> e;
  for (int n : {8, 16, 32})
    e.push_back(poiseuille_error({"lattice.collision=\"bgk\"", "lattice.tau=0.9"}, n));
  const double p1 = std::log2(e[0] / e[1]), p2 = std::log2(e[1] / e[2]);
  INFO("max relative errors " << e[0] << " " << e[1] << " " << e[2] << ", orders " << p1 << " "
                              << p2);
  CHECK(p1 > 1.9);
  CHECK(p2 > 1.9);
  CHECK(p2 < 2.1);
}

TEST_CASE("lbm Poiseuille: TRT profile within 1e-3 of the exact solution", "[unit]") {
  // With the magic parameter 3/16 the halfway wall is exact for any tau;
  // 1e-3 relative is the required tolerance at the finest grid (32 cells).
  // t = 10 H^2/nu: the slowest transient has decayed to exp(-pi^2 10) ~ 5e-5.
  for (const char* tau : {"lattice.tau=0.7", "lattice.tau=1.5"}) {
    const double e = poiseuille_error({tau, "time.end=10.0"}, 32);
    INFO(tau << ": max relative error " << e);
    CHECK(e < 1e-3);
  }
  // BGK at tau = 1.5 misplaces the wall (viscosity-dependent slip).
  CHECK(poiseuille_error({"lattice.collision=\"bgk\"", "lattice.tau=1.5", "time.end=10.0"}, 32) >
        2e-3);
}

TEST_CASE("lbm square duct: centreline velocity within 1% of the series solution", "[unit]") {
  // Duct -a < y < a, -b < z < b, a = b = 0.5; nu = 0.1, g = 1.2: the series
  // solution (White, Viscous Fluid Flow, Eq. 3-48) in kflow/model/exact.hpp.
  const char* duct = R"([case]
model = "lbm"
[grid]
cells = [2, 20, 20]
length = [0.1, 1.0, 1.0]
[lattice]
collision = "trt"
[physics]
reynolds = 10.0
body_force = [1.2, 0.0, 0.0]
[boundary]
west = "periodic"
east = "periodic"
[time]
end = 6.0
)";
  const double a = 0.5, b = 0.5, g = 1.2, nu = 0.1;
  // 200000 odd terms: the alternating tail is below 1e-16 of the leading factor
  const double uc = kflow::exact::duct_velocity(0, 0, a, b, g, nu, 200000);
  const auto r = run_text(duct, "", {}, "", true);
  const auto u = field(r, "u");
  // The centreline lies between cells 9 and 10 in y and z: mean of four.
  auto at = [&](int j, int k) {
    return u.values[std::size_t(2) * (j + 20 * k)];
  };
  const double lbm = 0.25 * (at(9, 9) + at(10, 9) + at(9, 10) + at(10, 10));
  // Correct the four-cell mean to the centre with the series' own curvature
  // is not needed at 1%: the bilinear mean differs from u(0,0) by O(h^2).
  INFO("centreline: lbm " << lbm << ", series " << uc);
  CHECK(std::fabs(lbm - uc) < 0.01 * uc);
}

namespace {

// Taylor-Green vortex, periodic box of side 1, k = 2 pi.
const char* const tg2 = R"([case]
model = "lbm"
[grid]
cells = [32, 32]
[lattice]
velocity = 0.05
[physics]
reynolds = 10.0
[boundary]
west = "periodic"
east = "periodic"
south = "periodic"
north = "periodic"
[initial]
type = "taylor_green"
[time]
end = 0.05
)";

// Energy decay rate between two times (skips the start-up transient), and
// the rate nu |k|^2 implies: E ~ exp(-2 nu |k|^2 t).
std::pair<double, double> tg_rates(const char* toml, std::vector<std::string> sets,
                                   const std::string& end1, const std::string& end2, double nu,
                                   double k2) {
  auto s1 = sets, s2 = sets;
  s1.push_back(end1);
  s2.push_back(end2);
  const auto r1 = run_text(toml, "", s1), r2 = run_text(toml, "", s2);
  const double rate =
      std::log(diag(r1, "kinetic_energy") / diag(r2, "kinetic_energy")) / (r2.time - r1.time);
  return {rate, 2 * nu * k2};
}

}  // namespace

TEST_CASE("lbm Taylor-Green 2D: energy decay rate within 1% of 2 nu |k|^2", "[unit]") {
  for (const char* coll : {"lattice.collision=\"bgk\"", "lattice.collision=\"trt\""}) {
    const auto [rate, exact] =
        tg_rates(tg2, {coll}, "time.end=0.02", "time.end=0.1", 0.1, 2 * (2 * pi) * (2 * pi));
    INFO(coll << ": measured " << rate << ", exact " << exact);
    CHECK(std::fabs(rate - exact) < 0.01 * exact);
  }
}

TEST_CASE("lbm Taylor-Green 3D: energy decay rate within 1% of 2 nu |k|^2", "[unit]") {
  // Re = 0.1: Stokes flow, in which the 3D vortex keeps its shape and decays
  // at 3 nu k^2 in velocity (at Re = 1 the nonlinear transfer to higher
  // modes already raises the energy decay rate by about 2.6%).
  const char* tg3 = R"([case]
model = "lbm"
[grid]
cells = [32, 32, 32]
[lattice]
tau = 0.8
[physics]
reynolds = 0.1
[boundary]
west = "periodic"
east = "periodic"
south = "periodic"
north = "periodic"
bottom = "periodic"
top = "periodic"
[initial]
type = "taylor_green"
[time]
end = 0.01
)";
  const auto [rate, exact] =
      tg_rates(tg3, {}, "time.steps=20", "time.steps=60", 10.0, 3 * (2 * pi) * (2 * pi));
  INFO("measured " << rate << ", exact " << exact);
  CHECK(std::fabs(rate - exact) < 0.01 * exact);
}

namespace {

// A lid-driven cavity (2D or 3D) and a forced, partly periodic 3D box with a
// moving wall: every boundary kind, used for the scheme comparisons.
const char* const cavity2 = R"([case]
model = "lbm"
[grid]
cells = [24, 20]
length = [1.2, 1.0]
[physics]
reynolds = 100.0
[boundary]
north = { type = "moving_wall", velocity = [1.0, 0.0] }
[time]
steps = 31
)";

const char* const box3 = R"([case]
model = "lbm"
[grid]
cells = [10, 8, 6]
length = [1.25, 1.0, 0.75]
[lattice]
collision = "trt"
[physics]
reynolds = 20.0
body_force = [0.3, 0.0, 0.1]
[boundary]
west = "periodic"
east = "periodic"
top = { type = "moving_wall", velocity = [0.5, 0.5, 0.0] }
north = { type = "moving_wall", velocity = [0.0, 0.0, 1.0] }
[time]
steps = 17
)";

}  // namespace

TEST_CASE("lbm two-grid and in-place (AA) streaming give bit-identical fields", "[unit]") {
  for (const char* toml : {cavity2, box3})
    for (const char* steps : {"time.steps=30", "time.steps=31"})
      for (const char* prec :
           {"run.precision=\"double\"", "run.precision=\"float\"", "run.precision=\"float16s\""}) {
        INFO(steps << " " << prec);
        const auto two = run_text(toml, "", {steps, prec}, "", true);
        const auto aa =
            run_text(toml, "", {steps, prec, "lattice.streaming=\"in_place\""}, "", true);
        check_identical(two, aa);
        CHECK(diag(two, "max_velocity") > 0);
      }
  // D3Q27 too.
  const auto two = run_text(box3, "", {"lattice.stencil=\"D3Q27\""}, "", true);
  const auto aa =
      run_text(box3, "", {"lattice.stencil=\"D3Q27\"", "lattice.streaming=\"in_place\""}, "", true);
  check_identical(two, aa);
}

TEST_CASE("lbm conserves mass in a closed cavity; float follows double", "[unit]") {
  const auto d = run_text(cavity2, "", {"time.steps=400"}, "", true);
  CHECK(std::fabs(diag(d, "mean_density") - 1) < 1e-12);
  const auto f = run_text(cavity2, "", {"time.steps=400", "run.precision=\"float\""}, "", true);
  const auto ud = field(d, "u");
  const auto uf = field(f, "u");
  double diff = 0;
  for (std::size_t i = 0; i < ud.values.size(); ++i)
    diff = std::max(diff, std::fabs(ud.values[i] - uf.values[i]));
  INFO("max |u_double - u_float| = " << diff);
  CHECK(diff < 1e-4);
  CHECK(diff > 0);
}

TEST_CASE("lbm checkpoint and restart continue bit-for-bit, across streaming schemes",
          "[regression]") {
  TempDir tmp("lbm-restart");
  // (the cavity once more with 16-bit storage: its checkpoint holds the stored bits)
  struct Case {
    const char* toml;
    std::string precision;
  };
  for (const auto& [toml, precision] : {Case{cavity2, "double"}, Case{box3, "double"},
                                        Case{cavity2, "float16s"}, Case{cavity2, "float16c"}}) {
    const std::vector<std::string> sets = {"output.every_steps=5", "time.steps=20",
                                           "run.precision=\"" + precision + "\""};
    const auto full = run_text(toml, tmp.str() + "/full", sets, "", true);
    auto first = sets;
    first[1] = "time.steps=5";
    run_text(toml, tmp.str() + "/half", first);
    for (const char* scheme :
         {"lattice.streaming=\"two_grid\"", "lattice.streaming=\"in_place\""}) {
      auto rs = sets;
      rs.push_back(scheme);
      const auto rest =
          run_text(toml, tmp.str() + "/rest", rs, tmp.str() + "/half/checkpoint.kfc", true);
      CHECK(rest.steps == full.steps);
      CHECK(rest.time == full.time);
      check_identical(full, rest);
    }
  }
}

TEST_CASE("lbm model time is physical: one step is dt = u_lat dx / U", "[unit]") {
  // 20 cells on L = 1, u_lat = 0.1, U = 2: dt = 0.1 * 0.05 / 2 = 2.5e-3.
  const auto r = run_text(cavity2, "",
                          {"physics.velocity=2.0", "time.end=0.1", "time.steps=1000",
                           "boundary.north.velocity=[2.0, 0.0]"});
  CHECK(r.steps == 40);
  CHECK(std::fabs(r.time - 0.1) < 1e-12);
  CHECK_THROWS_WITH(run_text(cavity2, "", {"time.dt=0.01"}),
                    Catch::Matchers::ContainsSubstring("steps by exactly"));
}

TEST_CASE("lbm set-up checks: unstable set-ups are errors with the numbers, doubtful ones warn",
          "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  // tau = 0.5 + 3 * 0.1 * 20 / 1e5: far below the grid Reynolds limit.
  CHECK_THROWS_WITH(prepare_text(cavity2, {"physics.reynolds=1e5"}),
                    ContainsSubstring("grid Reynolds number") && ContainsSubstring("tau = "));
  CHECK_THROWS_WITH(prepare_text(cavity2, {"lattice.velocity=0.5"}),
                    ContainsSubstring("Mach") && ContainsSubstring("lattice.velocity"));
  CHECK_THROWS_WITH(prepare_text(cavity2, {"lattice.tau=0.5"}), ContainsSubstring("tau"));
  CHECK_THROWS_WITH(prepare_text(cavity2, {"lattice.tau=0.8", "lattice.velocity=0.1"}),
                    ContainsSubstring("not both"));
  CHECK_THROWS_WITH(prepare_text(cavity2, {"boundary.north.velocity=[1.0, 0.5]"}),
                    ContainsSubstring("normal"));
  CHECK_THROWS_WITH(prepare_text(cavity2, {"grid.length=[1.0, 1.0]"}),
                    ContainsSubstring("square cells"));
  CHECK_THROWS_WITH(prepare_text(cavity2, {"lattice.stencil=\"D3Q19\""}),
                    ContainsSubstring("D2Q9"));
  // Re = 400 on 20 cells: tau = 0.515 (warning), grid Reynolds 20 (warning).
  const auto pc = prepare_text(cavity2, {"physics.reynolds=400"});
  REQUIRE(pc.setup->notes.size() == 2);
  CHECK_THAT(pc.setup->notes[0], ContainsSubstring("close to 0.5"));
  CHECK_THAT(pc.setup->notes[1], ContainsSubstring("grid Reynolds"));
  CHECK(prepare_text(cavity2).setup->notes.empty());
}

namespace {

// Linear interpolation of cell-centre values v[0..n) at s in [0, 1], with
// the wall value at s = 0 and s = 1.
double interp(const std::vector<double>& v, double s, double lo, double hi) {
  const int n = static_cast<int>(v.size());
  const double c = s * n - 0.5;
  if (c < 0) return lo + (v[0] - lo) * (s * n / 0.5);
  if (c > n - 1) return hi + (v[n - 1] - hi) * ((1 - s) * n / 0.5);
  const int i = std::min(static_cast<int>(c), n - 2);
  return v[i] + (c - i) * (v[i + 1] - v[i]);
}

}  // namespace

namespace {

// The final fields of a case file of cases/lbm/ with overrides.
kflow::RunResult run_case(const std::string& name, const std::vector<std::string>& sets) {
  kflow::RunOptions opt;
  opt.case_path = kflow::test::source_dir() + "/cases/lbm/" + name;
  opt.overrides = sets;
  opt.write_output = false;
  opt.quiet = true;
  opt.keep_final_fields = true;
  auto pc = kflow::prepare(opt);
  std::ostringstream log;
  return kflow::run(pc, opt, log);
}

}  // namespace

TEST_CASE("lbm 2D cavity Re = 100 on 256^2 within 0.02 of Ghia et al. (1982)",
          "[validation][long]") {
  // Case cases/lbm/cavity-2d-re100.toml; steady after 30 L/U.  In double and
  // with 16-bit storage (float16s), to the same tolerance.
  for (const char* precision : {"double", "float16s"}) {
    const auto r =
        run_case("cavity-2d-re100.toml", {std::string("run.precision=\"") + precision + "\""});
    const int n = 256;
    const auto u = field(r, "u");
    const auto v = field(r, "v");
    std::vector<double> uc(n), vc(n);
    for (int k = 0; k < n; ++k) {
      uc[k] = 0.5 * (u.values[127 + n * k] + u.values[128 + n * k]);  // x = 0.5
      vc[k] = 0.5 * (v.values[k + n * 127] + v.values[k + n * 128]);  // y = 0.5
    }
    double dev = 0;
    for (const auto& [y, ref] : kflow::test::reference_table("ghia1982_re100_u.csv", 17))
      dev = std::max(dev, std::fabs(interp(uc, y, 0.0, 1.0) - ref));
    for (const auto& [x, ref] : kflow::test::reference_table("ghia1982_re100_v.csv", 17))
      dev = std::max(dev, std::fabs(interp(vc, x, 0.0, 0.0) - ref));
    // WARN: the figure is reported even when the test passes.
    WARN(precision << ": largest deviation from Ghia et al. (1982), Tables I and II, Re = 100: "
                   << dev);
    CHECK(dev <= 0.02);
  }
}

// The steady Re = 1000 cavities in every precision against spectral
// references, side by side (docs/models/lbm.md's table of the formats).
// 2D: cases/lbm/cavity-2d-re1000.toml on 128^2 (TRT, tau = 0.538) to t =
// 100 L/U; psi(x, y) = integral of u dy from the bottom wall (midpoint rule
// on the cell centres), its minimum the primary vortex's strength: Botella &
// Peyret 1998, psi_min = -0.1189366 (cases/reference/cavity_primary_vortex.csv).
// 3D: cases/lbm/cavity-3d-re1000.toml on 64^3 (TRT) to t = 36 L/U (lid at z
// = 1 moving +x): u's minimum on the vertical centre line and w's extrema on
// the horizontal one, cell values (the centre line between the middle
// cells: their mean); Albensoeder & Kuhlmann 2005, u_min -0.2804, w_min
// -0.4350, w_max 0.2467 (cases/reference/cavity3d_albensoeder2005_re1000_
// extrema.csv, its v is w here).  Tolerances, from the references: 1 %
// (2D); in 3D 5 % for double and float (64^3 against a spectral solution;
// measured 3.8-4.4 %) and 9 % for the 16-bit formats, whose 3D extrema fall
// 2-4 % short of double's (measured: docs/models/lbm.md); from double: 1 %
// (2D) and 5 % (3D).
TEST_CASE("lbm precisions: Re = 1000 cavities against Botella & Peyret and Albensoeder & Kuhlmann",
          "[validation][long]") {
  const char* precisions[] = {"double", "float", "float16s", "float16c"};
  double psi[4], ext[4][3];
  for (int p = 0; p < 4; ++p) {
    const std::string prec = std::string("run.precision=\"") + precisions[p] + "\"";
    {
      const int n = 128;
      const auto r =
          run_case("cavity-2d-re1000.toml", {prec, "grid.cells=[128, 128]", "time.end=100.0"});
      const auto u = field(r, "u");
      REQUIRE(u.values.size() == std::size_t(n) * n);
      psi[p] = 0;
      for (int i = 0; i < n; ++i) {
        double q = 0;  // at the face below cell (i, j)
        for (int j = 0; j < n; ++j) {
          const double uij = u.values[i + std::size_t(n) * j];
          psi[p] = std::min(psi[p], q + 0.5 * uij / n);
          q += uij / n;
        }
      }
    }
    {
      const int n = 64;
      const auto r =
          run_case("cavity-3d-re1000.toml",
                   {prec, "grid.cells=[64, 64, 64]", "time.end=36.0", "lattice.collision=\"trt\""});
      const auto u = field(r, "u"), w = field(r, "w");
      REQUIRE(u.values.size() == std::size_t(n) * n * n);
      auto at = [&](const kflow::HostField& f, int i, int j, int k) {
        return f.values[i + std::size_t(n) * (j + std::size_t(n) * k)];
      };
      const int h = n / 2;
      ext[p][0] = ext[p][1] = 1e9, ext[p][2] = -1e9;
      for (int m = 0; m < n; ++m) {
        // u on x = y = 0.5 along z; w on y = z = 0.5 along x
        const double uc = 0.25 * (at(u, h - 1, h - 1, m) + at(u, h, h - 1, m) + at(u, h - 1, h, m) +
                                  at(u, h, h, m));
        const double wc = 0.25 * (at(w, m, h - 1, h - 1) + at(w, m, h, h - 1) + at(w, m, h - 1, h) +
                                  at(w, m, h, h));
        ext[p][0] = std::min(ext[p][0], uc);
        ext[p][1] = std::min(ext[p][1], wc);
        ext[p][2] = std::max(ext[p][2], wc);
      }
    }
  }
  const double psi_ref = -0.1189366, ext_ref[3] = {-0.2803833, -0.4350186, 0.2466511};
  std::ostringstream table;
  table << "precision: psi_min (2D, dev. from B&P); u_min, w_min, w_max (3D, dev. from A&K)\n";
  for (int p = 0; p < 4; ++p) {
    table << precisions[p] << ": " << psi[p] << " (" << 100 * (psi[p] / psi_ref - 1) << " %);";
    for (int e = 0; e < 3; ++e)
      table << " " << ext[p][e] << " (" << 100 * (ext[p][e] / ext_ref[e] - 1) << " %)";
    table << "\n";
  }
  WARN(table.str());
  for (int p = 0; p < 4; ++p) {
    INFO(precisions[p]);
    CHECK(std::fabs(psi[p] / psi_ref - 1) < 0.01);
    for (int e = 0; e < 3; ++e)
      CHECK(std::fabs(ext[p][e] / ext_ref[e] - 1) < (p < 2 ? 0.05 : 0.09));
    CHECK(std::fabs(psi[p] / psi[0] - 1) < 0.01);
    for (int e = 0; e < 3; ++e) CHECK(std::fabs(ext[p][e] / ext[0][e] - 1) < 0.05);
  }
}

namespace {

// A 16-bit format (the set run.precision=...): the Taylor-Green decay rate
// within float's 1 % of the exact one, and the cavity after 400 steps within
// 1e-3 of double's velocities and mean density.
void check_16bit_flows(const std::string& f16) {
  const auto [rate, exact] = tg_rates(tg2, {"lattice.collision=\"trt\"", f16}, "time.end=0.02",
                                      "time.end=0.1", 0.1, 2 * (2 * pi) * (2 * pi));
  INFO(f16 << ": Taylor-Green: measured " << rate << ", exact " << exact);
  CHECK(std::fabs(rate - exact) < 0.01 * exact);
  const auto d = run_text(cavity2, "", {"time.steps=400"}, "", true);
  const auto h = run_text(cavity2, "", {"time.steps=400", f16}, "", true);
  const auto ud = field(d, "u"), uh = field(h, "u");
  double diff = 0;
  for (std::size_t i = 0; i < ud.values.size(); ++i)
    diff = std::max(diff, std::fabs(ud.values[i] - uh.values[i]));
  INFO(f16 << ": cavity: max |u_double - u_16bit| = " << diff << ", mean density "
           << diag(h, "mean_density"));
  CHECK(diff < 1e-3);
  CHECK(std::fabs(diag(h, "mean_density") - 1) < 1e-3);
}

}  // namespace

TEST_CASE("lbm float16s: Poiseuille, Taylor-Green and the cavity with 16-bit storage", "[unit]") {
  const std::string f16 = "run.precision=\"float16s\"";
  // Plane Poiseuille flow (TRT): binary16 keeps 11 significant bits of
  // f_i - w_i, so the approach to the steady profile stalls once a step's
  // change falls below half a unit in the last place of the deviations, which
  // are proportional to u_lat, while the approach rate is nu_lat pi^2 / N^2
  // per step, also proportional to u_lat (nu_lat = u_lat N / Re): the profile
  // stays short by a relative error proportional to N / u_lat.  Checked: the
  // error at N = 16 and 32 (float's is below 1e-4), and its scaling with
  // u_lat (an error of another kind would not halve when u_lat doubles).
  auto error = [&](const char* u, int n) {
    return poiseuille_error({u, "time.end=10.0", f16}, n);
  };
  const double e16 = error("lattice.velocity=0.1", 16), e32 = error("lattice.velocity=0.1", 32);
  const double e32_slow = error("lattice.velocity=0.05", 32);
  INFO("Poiseuille, u_lat = 0.1: max relative error " << e16 << " (16 cells), " << e32
                                                      << " (32 cells); u_lat = 0.05: " << e32_slow);
  CHECK(e16 < 0.03);
  CHECK(e32 < 0.05);
  CHECK(e32 / e16 > 1.5);
  CHECK(e32 / e16 < 2.5);
  CHECK(e32_slow / e32 > 1.5);
  CHECK(e32_slow / e32 < 3);
  check_16bit_flows(f16);
}

TEST_CASE("lbm float16c: Poiseuille, Taylor-Green and the cavity with 16-bit storage", "[unit]") {
  const std::string f16 = "run.precision=\"float16c\"";
  // As float16s (the test above), with one significant bit more for
  // |f_i - w_i| >= 2^-14 and steps of 2^-25 below.
  const double e16 = poiseuille_error({"lattice.velocity=0.1", "time.end=10.0", f16}, 16);
  INFO("Poiseuille, u_lat = 0.1, 16 cells: max relative error " << e16);
  CHECK(e16 < 0.03);
  check_16bit_flows(f16);
}
