// physics/lbm around bodies: DFG 2D-1 (Schaefer & Turek 1996) drag, lift and
// pressure difference with interpolated and halfway bounce-back walls, the
// velocity inflow and the pressure outflow; two-grid and in-place streaming
// bit for bit with bodies and open sides; restarts; flags; bad input.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kflow/geometry/stl.hpp"
#include "kflow/geometry/tessellate.hpp"
#include "lbm_body_cases.hpp"
#include "unit/helpers.hpp"

using kflow::test::case_text;
using kflow::test::diag;
using kflow::test::field;
using kflow::test::prepare_text;
using kflow::test::reference_value;
using kflow::test::run_text;
using kflow::test::TempDir;
using kflow::test::lbm_cases::channel;
using kflow::test::lbm_cases::duct;

namespace {

// Fields (kflow::test::check_identical) and the last log row, bit for bit.
void check_same(const kflow::RunResult& a, const kflow::RunResult& b) {
  kflow::test::check_identical(a, b);
  REQUIRE(a.diagnostics.size() == b.diagnostics.size());
  for (std::size_t k = 0; k < a.diagnostics.size(); ++k) {
    INFO("diagnostic " << a.diagnostics[k].first);
    CHECK(a.diagnostics[k].second == b.diagnostics[k].second);
  }
}

// The channel without its cylinder (and the probes, which the body's
// absence leaves as they are).
std::string channel_without_body() {
  std::string t = channel;
  const auto a = t.find("[[body]]"), b = t.find("[analysis]");
  return t.erase(a, b - a);
}

}  // namespace

TEST_CASE("lbm bodies in 3D: two-grid and in-place streaming give the same bits", "[unit]") {
  for (const char* stencil : {"lattice.stencil=\"D3Q19\"", "lattice.stencil=\"D3Q27\""})
    for (const char* prec : {"run.precision=\"double\"", "run.precision=\"float16s\""}) {
      INFO(stencil << " " << prec);
      const auto two = run_text(duct, "", {stencil, prec}, "", true);
      const auto aa =
          run_text(duct, "", {stencil, prec, "lattice.streaming=\"in_place\""}, "", true);
      check_same(two, aa);
      CHECK(diag(two, "c_d") > 0);
      CHECK(std::isfinite(diag(two, "c_s")));
    }
}

TEST_CASE("lbm bodies: two-grid and in-place streaming give the same bits, walls and sides",
          "[unit]") {
  for (const char* walls :
       {"lattice.body_walls=\"interpolated\"", "lattice.body_walls=\"bounce_back\""})
    for (const char* steps : {"time.steps=40", "time.steps=41"})
      for (const char* prec :
           {"run.precision=\"double\"", "run.precision=\"float\"", "run.precision=\"float16s\""}) {
        INFO(walls << " " << steps << " " << prec);
        const auto two = run_text(channel, "", {walls, steps, prec}, "", true);
        const auto aa =
            run_text(channel, "", {walls, steps, prec, "lattice.streaming=\"in_place\""}, "", true);
        check_same(two, aa);
        CHECK(diag(two, "c_d") > 0);
      }
}

TEST_CASE("lbm bodies: the flags show the body, the sides and the cells next to them", "[unit]") {
  const auto r = run_text(channel, "", {"time.steps=1"}, "", true);
  const auto f = field(r, "flags");
  const auto rho = field(r, "density");
  const auto u = field(r, "velocity");
  // The circle of radius 0.25 about (0.8, 0.52) on cells of 1/21: cell
  // centres inside it are solid (-1); counted against the exact test.
  const double h = 1.0 / 21;
  int inside = 0, solid = 0, near = 0;
  for (int j = 0; j < 21; ++j)
    for (int i = 0; i < 60; ++i) {
      const double x = (i + 0.5) * h, y = (j + 0.5) * h;
      const bool in = (x - 0.8) * (x - 0.8) + (y - 0.52) * (y - 0.52) <= 0.25 * 0.25;
      const double v = f.values[std::size_t(i + 60 * j)];
      inside += in;
      solid += v == -1;
      near += v == 5;
      if (in) {
        CHECK(v == -1);
        CHECK(rho.values[std::size_t(i + 60 * j)] == 1.0);  // rho0 in a body
        CHECK(u.values[3 * std::size_t(i + 60 * j)] == 0.0);
      }
    }
  CHECK(solid == inside);
  CHECK(near > 0);
  CHECK(f.values[std::size_t(60 * 10)] == 3);       // west: the inflow
  CHECK(f.values[std::size_t(59 + 60 * 10)] == 4);  // east: the outflow
  CHECK(f.values[std::size_t(30)] == 1);            // south: no-slip
}

TEST_CASE("lbm bodies: a checkpoint continues bit for bit across streaming schemes",
          "[regression]") {
  TempDir tmp("lbm-bodies-restart");
  for (const char* prec : {"run.precision=\"double\"", "run.precision=\"float16s\""}) {
    const std::vector<std::string> sets = {"output.every_steps=15", "time.steps=30", prec};
    const auto full = run_text(channel, tmp.str() + "/full", sets, "", true);
    auto first = sets;
    first[1] = "time.steps=15";
    run_text(channel, tmp.str() + "/half", first);
    for (const char* scheme :
         {"lattice.streaming=\"two_grid\"", "lattice.streaming=\"in_place\""}) {
      auto rs = sets;
      rs.push_back(scheme);
      const auto rest =
          run_text(channel, tmp.str() + "/rest", rs, tmp.str() + "/half/checkpoint.kfc", true);
      CHECK(rest.steps == full.steps);
      check_same(full, rest);
    }
  }
}

TEST_CASE("lbm bodies and open sides: bad input is refused with the keys named", "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  CHECK_THROWS_WITH(prepare_text(channel, {"boundary.east=\"no_slip\""}),
                    ContainsSubstring("outflow"));
  std::string touching = channel;  // the cylinder moved onto the inflow side
  touching.replace(touching.find("center = [0.8, 0.52]"), 20, "center = [0.2, 0.52]");
  CHECK_THROWS_WITH(prepare_text(touching), ContainsSubstring("inflow or an outflow"));
  CHECK_THROWS_WITH(prepare_text(channel, {"boundary.west.velocity=[1.0, 0.0]"}),
                    ContainsSubstring("max_velocity"));
  CHECK_THROWS_WITH(
      prepare_text(channel, {"boundary.west={ type = \"inflow\", velocity = [-1.0, 0.0] }"}),
      ContainsSubstring("into the domain"));
  CHECK_THROWS_WITH(prepare_text(channel, {"boundary.south.pressure=1.0"}),
                    ContainsSubstring("only an outflow side takes a pressure"));
  CHECK_THROWS_WITH(prepare_text(channel, {"analysis.pressure_probes=[0.45, 0.52, 9.0, 0.52]"}),
                    ContainsSubstring("pressure_probes"));
  CHECK_THROWS_WITH(prepare_text(channel, {"lattice.body_walls=\"bouzidi\""}),
                    ContainsSubstring("body_walls"));
  // An inflow's lattice Mach number: 1.5 / 1.0 * 0.05 * 5 = 0.375 -> Ma 0.65.
  CHECK_THROWS_WITH(prepare_text(channel, {"lattice.velocity=0.25"}), ContainsSubstring("Mach"));
  const auto pc = prepare_text(channel, {"lattice.velocity=0.05"});
  bool mach_note = false;
  for (const auto& n : pc.setup->notes)
    mach_note = mach_note || n.find("inflow at lattice Mach") != std::string::npos;
  CHECK(mach_note);  // peak 0.075: Ma = 0.13
}

namespace {

struct Dfg {
  double cd, cl, dp;
};

// DFG 2D-1 (cases/lbm/dfg-2d-1.toml) at `cells` per diameter to t = 60
// (the channel's slow acoustic mode between the inflow and the outflow has
// decayed to below 1e-5 of c_D by then).
Dfg dfg_2d_1(int per_diameter, const std::string& walls) {
  const auto r = run_text(
      case_text("lbm/dfg-2d-1.toml"), "",
      {"grid.cells=[" + std::to_string(22 * per_diameter) + ", " +
           std::to_string(int(4.1 * per_diameter + 0.5)) + "]",
       "time.end=60.0", "output.log_every=100000", "lattice.body_walls=\"" + walls + "\""});
  return {diag(r, "c_d"), diag(r, "c_l"), diag(r, "delta_p")};
}

}  // namespace

TEST_CASE("lbm DFG 2D-1 (Re = 20) at 20 cells per diameter: drag and lift inside the intervals",
          "[validation]") {
  // Schaefer & Turek (1996) intervals, cases/reference/dfg_cylinder_2d.csv:
  // c_D 5.57-5.59, c_L 0.0104-0.0110, delta_p 0.1172-0.1176.  Measured (2
  // cores, double, TRT, interpolated walls): c_D 5.5867, c_L 0.010634,
  // delta_p 0.11584 (1.4 % low: the tolerance below is 2 % of the interval's
  // centre, the interval itself at 40 cells: the [long] test).
  const auto m = dfg_2d_1(20, "interpolated");
  const double cd_lo = reference_value("dfg_cylinder_2d.csv", "2D-1,c_D", 2);
  const double cd_hi = reference_value("dfg_cylinder_2d.csv", "2D-1,c_D", 3);
  const double cl_lo = reference_value("dfg_cylinder_2d.csv", "2D-1,c_L", 2);
  const double cl_hi = reference_value("dfg_cylinder_2d.csv", "2D-1,c_L", 3);
  const double dp_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,Delta_p", 4);
  WARN("DFG 2D-1, D = 20 cells: c_D = " << m.cd << ", c_L = " << m.cl << ", delta_p = " << m.dp);
  CHECK(m.cd >= cd_lo);
  CHECK(m.cd <= cd_hi);
  CHECK(m.cl >= cl_lo);
  CHECK(m.cl <= cl_hi);
  CHECK(std::fabs(m.dp - dp_ref) <= 0.02 * dp_ref);
}

TEST_CASE("lbm DFG 2D-1 (Re = 20) at 40 cells per diameter: drag and lift inside the intervals",
          "[validation][long]") {
  // The case as shipped (cases/lbm/dfg-2d-1.toml: 40 cells per diameter,
  // u_lat = 0.05).  Measured (2 cores, double, TRT): c_D 5.5772, c_L
  // 0.010897, delta_p 0.11672; halfway bounce-back 5.6134, 0.011672,
  // 0.11701.  delta_p is 0.7 % below the interval's lower end (0.1172): the
  // tolerance is 1 % of the reference value, the interval is not reached yet.
  const auto m = dfg_2d_1(40, "interpolated");
  WARN("DFG 2D-1, D = 40 cells: c_D = " << m.cd << ", c_L = " << m.cl << ", delta_p = " << m.dp);
  CHECK(m.cd >= reference_value("dfg_cylinder_2d.csv", "2D-1,c_D", 2));
  CHECK(m.cd <= reference_value("dfg_cylinder_2d.csv", "2D-1,c_D", 3));
  CHECK(m.cl >= reference_value("dfg_cylinder_2d.csv", "2D-1,c_L", 2));
  CHECK(m.cl <= reference_value("dfg_cylinder_2d.csv", "2D-1,c_L", 3));
  const double dp_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,Delta_p", 4);
  CHECK(std::fabs(m.dp - dp_ref) <= 0.01 * dp_ref);
}

TEST_CASE("lbm DFG 2D-2 (Re = 100): Strouhal number and force maxima", "[validation][long]") {
  // cases/lbm/dfg-2d-2.toml at 20 cells per diameter (u_lat = 0.05), the
  // log every 0.005 s, the periodic state t > 6.  Schaefer & Turek (1996)
  // intervals (cases/reference/dfg_cylinder_2d.csv): St 0.295-0.305,
  // c_D,max 3.22-3.24, c_L,max 0.99-1.01.  Measured (2 cores, double, TRT,
  // the case's characteristic outflow): D = 20: St 0.2987, c_D,max 3.3456
  // (3.6 % high), c_L,max 0.9889 (with the pressure outflow, whose
  // reflections scatter each period's maxima: 0.979, outside).  Tolerances
  // (D = 20): St inside its interval, c_D,max within 4 % and c_L,max within
  // 2 % of the intervals' centres.
  TempDir tmp("lbm-dfg-2d-2");
  run_text(case_text("lbm/dfg-2d-2.toml"), tmp.str() + "/out",
           {"grid.cells=[440, 82]", "output.log_every=20", "output.every=100.0"});
  std::ifstream in(tmp.str() + "/out/log.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  {
    std::stringstream s(line);
    for (std::string n; std::getline(s, n, ',');) names.push_back(n);
  }
  const auto col = [&](const std::string& n) {
    const auto it = std::find(names.begin(), names.end(), n);
    REQUIRE(it != names.end());
    return std::size_t(it - names.begin());
  };
  const std::size_t ct = col("time"), cd_col = col("c_d"), cl_col = col("c_l");
  std::vector<double> t, cd, cl;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream s(line);
    for (std::string x; std::getline(s, x, ',');) v.push_back(std::stod(x));
    if (v[ct] < 6.0) continue;
    t.push_back(v[ct]);
    cd.push_back(v[cd_col]);
    cl.push_back(v[cl_col]);
  }
  REQUIRE(t.size() > 500);
  std::vector<double> up;  // upward zero crossings of c_L
  for (std::size_t k = 1; k < t.size(); ++k)
    if (cl[k - 1] < 0 && cl[k] >= 0)
      up.push_back(t[k - 1] + (t[k] - t[k - 1]) * -cl[k - 1] / (cl[k] - cl[k - 1]));
  REQUIRE(up.size() > 5);
  const double st = 0.1 / ((up.back() - up.front()) / double(up.size() - 1));  // D f / U, U = 1
  double cd_max = 0, cl_max = 0;
  for (std::size_t k = 0; k < t.size(); ++k)
    if (t[k] >= up[up.size() - 3])
      cd_max = std::max(cd_max, cd[k]), cl_max = std::max(cl_max, cl[k]);
  WARN("DFG 2D-2, D = 20 cells: St = " << st << ", c_D,max = " << cd_max
                                       << ", c_L,max = " << cl_max);
  CHECK(st >= reference_value("dfg_cylinder_2d.csv", "2D-2,St", 2));
  CHECK(st <= reference_value("dfg_cylinder_2d.csv", "2D-2,St", 3));
  CHECK(std::fabs(cd_max - 3.23) <= 0.04 * 3.23);
  CHECK(std::fabs(cl_max - 1.00) <= 0.02);
}

TEST_CASE("lbm inflow and outflow: a parabolic inflow keeps the channel's parabola", "[unit]") {
  // Plane Poiseuille flow between no-slip walls, height H = 1, fed by the
  // parabolic inflow u = 4 Um y (H - y) / H^2 (Um = 1.5) and leaving through
  // the pressure outflow.  The lattice fluid is weakly compressible: the
  // pressure drop that drives the flow (12 nu U / H^2 over the length) is a
  // density drop of 2.7 % here, so u = j / rho grows along the channel while
  // the mass flux stays.  Checked in the middle column: the profile's shape
  // (u over its mean) against the parabola's (TRT, Lambda = 3/16: exact at
  // halfway walls for incompressible flow; measured 0.0041 of Um here, the
  // flow's acceleration along the density drop), and the mass flux sum rho u
  // dy against the inflow's U H (rho0 = 1; measured equal to 1e-6).
  const char* const toml = R"([case]
model = "lbm"
[grid]
cells = [48, 16]
length = [3.0, 1.0]
[lattice]
collision = "trt"
velocity = 0.05
[physics]
reynolds = 10.0
[boundary]
west = { type = "inflow", profile = "parabolic", max_velocity = 1.5 }
east = "outflow"
[time]
end = 60.0
[output]
fields = ["velocity", "density"]
)";
  for (const char* scheme : {"lattice.streaming=\"two_grid\"", "lattice.streaming=\"in_place\""}) {
    const auto r = run_text(toml, "", {scheme}, "", true);
    const auto u = field(r, "velocity");
    const auto rho = field(r, "density");
    double mean = 0, flux = 0, v = 0;
    for (int j = 0; j < 16; ++j) {
      const std::size_t k = std::size_t(24 + 48 * j);
      mean += u.values[3 * k] / 16;
      flux += rho.values[k] * u.values[3 * k] / 16;
      v = std::max(v, std::fabs(u.values[3 * k + 1]) / 1.5);
    }
    double shape = 0;
    for (int j = 0; j < 16; ++j) {
      const double y = (j + 0.5) / 16;
      shape = std::max(shape,
                       std::fabs(u.values[3 * std::size_t(24 + 48 * j)] / mean - 6 * y * (1 - y)));
    }
    WARN(scheme << ": shape error " << shape << ", mass flux " << flux
                << " (inflow 1), max |v| / Um " << v);
    CHECK(shape < 5e-3);
    CHECK(std::fabs(flux - 1) < 1e-4);
    CHECK(v < 1e-4);
  }
}

TEST_CASE("lbm bodies: the moment of a cylinder centred in a symmetric channel is zero", "[unit]") {
  // The channel's cylinder moved onto the centre line y = 0.5 of the 21
  // cells: the flow is mirror-symmetric, so lift and moment vanish up to
  // rounding.  A lever taken about another point (a moment centre off by a
  // cell, say) gives c_m = -dy c_d / L, 1e-1 here; the rounding is ~1e-14.
  std::string centred = channel;
  centred.replace(centred.find("center = [0.8, 0.52]"), 20, "center = [0.8, 0.50]");
  const auto r = run_text(centred, "", {}, "", true);
  const double cd = diag(r, "c_d"), cl = diag(r, "c_l"), cm = diag(r, "c_m");
  WARN("centred cylinder: c_d " << cd << ", c_l " << cl << ", c_m " << cm);
  CHECK(cd > 0);
  CHECK(std::fabs(cl) < 1e-9 * cd);
  CHECK(std::fabs(cm) < 1e-9 * cd);
}

TEST_CASE("lbm bodies: forces.moment_center moves the moment by the lever of the force", "[unit]") {
  // M(P) = M(C) + (C - P) x F: with P = C + (dx, dy), c_m(P) = c_m(C) +
  // (dy c_d - dx c_l) / L (L = forces.reference_length = physics.length =
  // 0.5 here).  The default centre is the body's bounding-box centre.
  const auto c = run_text(channel, "", {"forces.moment_center=[0.8, 0.52]"}, "", true);
  const auto d = run_text(channel, "", {}, "", true);
  CHECK(diag(d, "c_m") == diag(c, "c_m"));
  const auto p = run_text(channel, "", {"forces.moment_center=[0.9, 0.42]"}, "", true);
  const double expect = diag(c, "c_m") + (-0.1 * diag(c, "c_d") - 0.1 * diag(c, "c_l")) / 0.5;
  WARN("c_m about the centre " << diag(c, "c_m") << ", about (0.9, 0.42) " << diag(p, "c_m")
                               << ", expected " << expect);
  CHECK(std::fabs(diag(p, "c_m") - expect) <= 1e-12 * std::fabs(expect));
}

TEST_CASE("lbm bodies in 3D: the moments of a cylinder through the duct", "[unit]") {
  // A cylinder along z through the whole duct (no length: infinite) has an
  // infinite bounding box: its default moment centre is the middle of the
  // part inside the domain, here (0.7, 0.45, 0.5), the same bits as that
  // point given.  The inflow is symmetric about z = 0.5, so the moments
  // about the z axis's normals vanish to rounding against c_mz.
  std::string text = duct;
  text.replace(text.find("shape = \"sphere\""), 16, "shape = \"cylinder\"\naxis = [0.0, 0.0, 1.0]");
  text.replace(text.find("center = [0.7, 0.45, 0.52]"), 26, "center = [0.7, 0.45, 0.3]");
  text.replace(text.find("radius = 0.27"), 13, "radius = 0.2");
  const auto d = run_text(text, "", {}, "", true);
  const auto p = run_text(text, "", {"forces.moment_center=[0.7, 0.45, 0.5]"}, "", true);
  for (const char* k : {"c_mx", "c_my", "c_mz"}) {
    INFO(k);
    CHECK(std::isfinite(diag(d, k)));
    CHECK(diag(d, k) == diag(p, k));
  }
  WARN("cylinder through the duct: c_d " << diag(d, "c_d") << ", c_mx " << diag(d, "c_mx")
                                         << ", c_my " << diag(d, "c_my") << ", c_mz "
                                         << diag(d, "c_mz"));
  CHECK(std::fabs(diag(d, "c_mx")) < 1e-9 * diag(d, "c_d"));
  CHECK(std::fabs(diag(d, "c_my")) < 1e-9 * diag(d, "c_d"));
}

TEST_CASE("lbm bodies: the torque on a cylinder held in a shear flow (Stokes)", "[validation]") {
  // A fixed circular cylinder (radius a) in the simple shear u = G y takes
  // the torque T = -2 pi mu a^2 G per unit depth in Stokes flow: the
  // shear's rotation, G/2, against the rotlet of a cylinder turning at the
  // rate w in fluid at rest, T = -4 pi mu a^2 w (Jeffery 1922; e.g. Happel &
  // Brenner 1983, ch. 4).  Here a plane Couette flow between walls moving at
  // -U and +U (G = 2U/H, H = 1), periodic along x (length 1), a = H/16 at 5
  // cells, Re_a = G a^2 / nu = 0.012, run to 1.25 viscous times H^2/nu.
  // c_m = 2 T / (rho0 U^2 L^2), U = L = 1.  The walls and the periodic
  // images 16 radii away and the five cells per radius make up the
  // tolerance, 5 %.
  const char* const toml = R"([case]
model = "lbm"
[grid]
cells = [80, 80]
length = [1.0, 1.0]
[lattice]
collision = "trt"
tau = 2.0
[physics]
reynolds = 1.6
[boundary]
west = "periodic"
east = "periodic"
south = { type = "moving_wall", velocity = [-1.0, 0.0] }
north = { type = "moving_wall", velocity = [1.0, 0.0] }
[[body]]
shape = "circle"
center = [0.5, 0.5]
radius = 0.0625
[time]
end = 2.0
[output]
log_every = 100000
)";
  const auto r = run_text(toml, "", {}, "", true);
  const double nu = 1.0 / 1.6, a = 0.0625, shear = 2.0;
  const double expect = 2 * (-2 * 3.14159265358979323846 * nu * a * a * shear);
  WARN("cylinder in shear: c_m " << diag(r, "c_m") << ", Stokes " << expect << " ("
                                 << 100 * (diag(r, "c_m") / expect - 1) << " %), c_d "
                                 << diag(r, "c_d") << ", c_l " << diag(r, "c_l"));
  CHECK(std::fabs(diag(r, "c_m") / expect - 1) < 0.05);
}

TEST_CASE("lbm bodies: the run writes the bodies' surface as body.stl beside its frames",
          "[unit]") {
  // The channel's circle (centre (0.8, 0.52), radius 0.25) as a slab one
  // cell (h = 1/21) thick about the plane z = 0, in float32; a polygon's
  // box lies inside the circle's by at most a tenth of a cell.
  TempDir tmp("lbm-body-stl");
  run_text(channel, tmp.str() + "/out", {"time.steps=2"});
  const auto m = kflow::geometry::read_stl(tmp.str() + "/out/body.stl");
  REQUIRE(m.triangles() > 64);
  const auto b = kflow::geometry::bounds(m);
  const double h = 1.0 / 21;
  const auto near = [&](double v, double edge, double inwards) {
    return (v - edge) * inwards >= -1e-6 && (v - edge) * inwards <= 0.1 * h + 1e-6;
  };
  CHECK(near(b.lo.x, 0.55, 1));
  CHECK(near(b.hi.x, 1.05, -1));
  CHECK(near(b.lo.y, 0.27, 1));
  CHECK(near(b.hi.y, 0.77, -1));
  CHECK(std::fabs(b.lo.z + 0.5 * h) <= 1e-6);
  CHECK(std::fabs(b.hi.z - 0.5 * h) <= 1e-6);
  // A case without bodies writes none.
  run_text(channel_without_body(), tmp.str() + "/plain", {"time.steps=2"});
  CHECK_FALSE(std::ifstream(tmp.str() + "/plain/body.stl").good());
}

namespace {
// Stokes flow through a simple cubic array of spheres (cases/lbm/sphere-array.toml)
// on n^3 cells: the drag coefficient K = (F + g V_sphere) / (6 pi mu a U)
// (cases/reference/zick_homsy_1982_sc.csv gives the convention), and the
// force's balance with the body force on the fluid cells.
struct ArrayDrag {
  double k = 0, force = 0, balance = 0;
};
ArrayDrag sphere_array(int n, const std::string& body_table = "") {
  std::string toml = case_text("lbm/sphere-array.toml");
  if (!body_table.empty()) {
    const auto a = toml.find("[[body]]"), b = toml.find("[forces]");
    toml.replace(a, b - a, body_table + "\n");
  }
  const std::string cells = std::to_string(n);
  const auto r =
      run_text(toml, "", {"grid.cells=[" + cells + ", " + cells + ", " + cells + "]"}, "", true);
  const auto u = field(r, "velocity"), flags = field(r, "flags"), rho = field(r, "density");
  const double a = 0.310175245449700, g = 1.0, mu = 1.0, h3 = std::pow(1.0 / n, 3);
  double ux = 0, fluid_mass = 0;
  for (std::size_t c = 0; c < flags.values.size(); ++c) {
    ux += u.values[3 * c];
    if (flags.values[c] >= 0) fluid_mass += rho.values[c] * h3;
  }
  const double us = ux / double(flags.values.size());  // superficial: the whole cube's mean
  ArrayDrag d;
  d.force = diag(r, "c_d");  // reference velocity 1, area 2: c_d = F / rho
  d.balance = g * fluid_mass;
  d.k = (d.force + g * 4.0 / 3.0 * M_PI * a * a * a) / (6 * M_PI * mu * a * us);
  return d;
}
}  // namespace

TEST_CASE("lbm bodies: Stokes drag of a simple cubic array of spheres (Zick & Homsy 1982)",
          "[validation]") {
  // phi = 0.125, K = 4.292 (Zick & Homsy 1982, Table 2).  Measured (2 cores,
  // double, TRT, tau = 1): 24 cells (a = 7.4 cells) K = 4.2254 (-1.55 %); 32
  // cells -0.5 %, 48 cells -0.28 % (docs/models/lbm.md).  Tolerances: 2 % at
  // 24 cells; the sphere from an STL mesh (an icosphere of 5120 triangles,
  // facets at most 5e-4 a inside) within 0.5 % of the analytic sphere's K; the
  // momentum-exchange force equal to the body force on the fluid to 1e-4.
  const double k_ref = reference_value("zick_homsy_1982_sc.csv", "0.125", 1);
  const auto exact = sphere_array(24);
  WARN("sphere array, 24 cells: K = " << exact.k << " (Zick & Homsy " << k_ref << "), force "
                                      << exact.force << ", balance " << exact.balance);
  CHECK(std::fabs(exact.k - k_ref) <= 0.02 * k_ref);
  CHECK(std::fabs(exact.force - exact.balance) <= 1e-4 * exact.balance);
  TempDir tmp("lbm-sphere-array");
  const std::string stl = tmp.str() + "/sphere.stl";
  {
    std::ofstream f(stl, std::ios::binary);
    f << kflow::geometry::stl_binary(
        kflow::geometry::sphere_mesh({0.5, 0.5, 0.5}, 0.310175245449700, 4));
  }
  const auto mesh = sphere_array(24, "[[body]]\nshape = \"stl\"\nfile = \"" + stl + "\"\n");
  WARN("the same sphere from an STL mesh: K = " << mesh.k);
  CHECK(std::fabs(mesh.k - exact.k) <= 0.005 * exact.k);
}

TEST_CASE("lbm bodies: Stokes drag of a simple cubic array of spheres at 48 cells",
          "[validation][long]") {
  // Measured (2 cores): K = 4.2802 (-0.28 %), 108 s.  Tolerance 0.5 %.
  const double k_ref = reference_value("zick_homsy_1982_sc.csv", "0.125", 1);
  const auto d = sphere_array(48);
  WARN("sphere array, 48 cells: K = " << d.k);
  CHECK(std::fabs(d.k - k_ref) <= 0.005 * k_ref);
}
