// physics/mac2d against published data on grids that need a GPU or the
// `long` label: the cavity at Re = 1000 (Ghia, Ghia & Shin 1982; Botella &
// Peyret 1998), the DFG cylinder benchmarks 2D-1 and 2D-2 (Schaefer & Turek
// 1996) and the backward-facing step (Gartling 1990); and, in the default
// run, the interpolated walls on DFG 2D-1's coarse grid.

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kflow/io/lines.hpp"
#include "unit/helpers.hpp"

using kflow::test::diag;
using kflow::test::field;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {

std::string case_text(const std::string& name) {
  return kflow::test::case_text("mac2d/" + name);
}

using kflow::test::reference_value;

// Minutes on a GPU, hours on two CPU cores: these run where CUDA is built.
void require_gpu() {
  const auto b = kflow::compiled_backends();
  if (std::find(b.begin(), b.end(), "cuda") == b.end())
    SKIP("needs the cuda backend (hours on a CPU); run tools/test -L long on a GPU build");
}

}  // namespace

namespace {

// The largest deviation of the Re = 1000 cavity's centre lines (n^2 cells)
// from a reference's interior points ("ghia1982", 17 points a line, or
// "erturk2005", 23), each checked against tol.
double centre_lines_worst(const kflow::RunResult& r, int n, const std::string& source, double tol) {
  kflow::linalg::Grid g;
  g.dim = 2;
  g.cells = {n, n, 1};
  const std::size_t rows = source == "ghia1982" ? 17 : 23;
  double worst = 0;
  for (const std::string which : {"u", "v"})
    for (const auto& [s, value] :
         kflow::test::reference_table(source + "_re1000_" + which + ".csv", rows)) {
      if (s <= 0 || s >= 1) continue;
      kflow::io::LineSpec l;
      l.points = 2;
      const bool u_line = which == "u";
      l.from[0] = l.to[0] = u_line ? 0.5 : s;
      l.from[1] = l.to[1] = u_line ? s : 0.5;
      const double got = kflow::io::sample_line(g, field(r, which), l)[0];
      worst = std::max(worst, std::fabs(got - value));
      INFO(which << " at " << s << ": " << got << " vs " << source << " " << value);
      CHECK(std::fabs(got - value) <= tol);
    }
  return worst;
}

// Botella & Peyret (1998)'s primary vortex: psi_min, x, y.
std::array<double, 3> botella_peyret() {
  const auto ref = kflow::test::reference_rows("cavity_primary_vortex.csv", 4);
  REQUIRE(ref[3][0] == "botella_peyret1998");
  return {std::stod(ref[3][2]), std::stod(ref[3][3]), std::stod(ref[3][4])};
}

}  // namespace

TEST_CASE("mac2d cavity at Re = 1000 on 256^2 against Ghia et al. (1982)", "[validation][long]") {
  require_gpu();
  // The case as it is (TVD), t = 40: 22 minutes on 2 CPU cores, beyond
  // ctest's 20-minute limit.  Measured (OpenMP, line samples of the run):
  // centre lines within 0.0151 of Ghia et al. (1982) (v at x = 0.9453, where
  // Ghia's 129^2 grid is itself off: 128^2 gave 0.0090 there) and within
  // 0.0028 of Erturk et al. (2005, 601^2; 128^2: 0.0098); psi_min -0.11823
  // at (0.5310, 0.5655), -0.60 % from Botella & Peyret (1998).  The blend
  // (H200): gamma = 0.2 0.0128 from Ghia, gamma = 0.5 0.0213.  Required:
  // Ghia within 0.02, Erturk within 0.005, psi_min within 1 % of Botella &
  // Peyret's, the centre within a cell of theirs.
  const auto r = run_text(case_text("cavity-re1000.toml"), "", {"output.lines=[]"}, "", true);
  const auto [bp, bx, by] = botella_peyret();
  const double ghia = centre_lines_worst(r, 256, "ghia1982", 0.02);
  const double erturk = centre_lines_worst(r, 256, "erturk2005", 0.005);
  const double psi = diag(r, "psi_min");
  WARN("TVD, Re = 1000, 256^2: largest deviation from Ghia "
       << ghia << ", from Erturk " << erturk << "; psi_min " << psi << ", " << 100 * (psi / bp - 1)
       << " %");
  CHECK(std::fabs(psi / bp - 1) <= 0.01);
  CHECK(std::fabs(diag(r, "psi_min_x") - bx) <= 1.0 / 256);
  CHECK(std::fabs(diag(r, "psi_min_y") - by) <= 1.0 / 256);
}

TEST_CASE("mac2d TVD cavity at Re = 1000 on 128^2: Ghia's centre lines, Botella & Peyret's psi_min",
          "[validation][long]") {
  // cavity-re1000 (TVD) on 128^2 to t = 40, 1 to 3 minutes on 2 cores.
  // Measured (OpenMP): centre lines within 0.0090 of Ghia et al. (1982) (v
  // at x = 0.9531); psi_min -0.11766 at (0.5305, 0.5659), -1.07 % from
  // Botella & Peyret (1998)'s -0.1189366 at (0.5308, 0.5652), still
  // strengthening by 0.2 % over t = 35..40.  The blend (gamma = 0.2) on the
  // same grid: 0.0213 and -0.11261 (-5.3 %).  Required: centre lines within
  // 0.012, psi_min within 1.5 % of Botella & Peyret's, the centre within a
  // cell of theirs.
  const auto r = run_text(case_text("cavity-re1000.toml"), "",
                          {"output.lines=[]", "grid.cells=[128,128]"}, "", true);
  const auto [bp, bx, by] = botella_peyret();
  const double worst = centre_lines_worst(r, 128, "ghia1982", 0.012);
  const double psi = diag(r, "psi_min"), x = diag(r, "psi_min_x"), y = diag(r, "psi_min_y");
  WARN("TVD, Re = 1000, 128^2: largest deviation from Ghia "
       << worst << "; psi_min " << psi << " at (" << x << ", " << y << "), " << 100 * (psi / bp - 1)
       << " % from Botella & Peyret");
  CHECK(std::fabs(psi / bp - 1) <= 0.015);
  CHECK(std::fabs(x - bx) <= 1.0 / 128);
  CHECK(std::fabs(y - by) <= 1.0 / 128);
}

TEST_CASE("mac2d cylinder DFG 2D-1 (Re = 20): drag and lift", "[validation][long]") {
  require_gpu();
  // Reference: FEATFLOW values c_D = 5.57953523384, c_L = 0.010618948146
  // (reference/dfg_cylinder_2d.csv; Schaefer & Turek 1996 intervals
  // 5.57-5.59, 0.0104-0.0110).  The cylinder is a staircase of cells and the
  // wall stresses are taken half a cell from it (first order): measured on
  // an H200, c_D = 5.163 (D = 20 cells) and 5.119 (D = 40 cells), i.e. 7.5 %
  // and 8.3 % low; c_L = 0.0073 and 0.0070.  Tolerances: c_D within 10 %,
  // c_L positive and below the reference.
  const auto r = run_text(case_text("cylinder-re20.toml"), "");
  const double cd_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,c_D", 4);
  const double cl_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,c_L", 4);
  const double cd = diag(r, "drag_coefficient"), cl = diag(r, "lift_coefficient");
  WARN("DFG 2D-1: c_D = " << cd << " (reference " << cd_ref << "), c_L = " << cl << " (" << cl_ref
                          << ")");
  CHECK(std::fabs(cd - cd_ref) <= 0.10 * cd_ref);
  CHECK(cl > 0);
  CHECK(cl < cl_ref);
}

TEST_CASE("mac2d cylinder DFG 2D-2 (Re = 100): Strouhal number and force maxima",
          "[validation][long]") {
  require_gpu();
  // Schaefer & Turek 1996 intervals (reference/dfg_cylinder_2d.csv):
  // St 0.295-0.305, c_L,max 0.99-1.01, c_D,max 3.22-3.24.  Measured on an
  // H200 over t = 6..12: St = 0.303, c_L,max = 1.000, c_D,max = 3.155 (2 %
  // low, the staircase cylinder as in 2D-1).  Tolerances: St and c_L,max
  // within 3 %, c_D,max within 5 % of the interval's centre.
  TempDir tmp("cylinder100");
  run_text(case_text("cylinder-re100.toml"), tmp.str() + "/out", {"output.every=100.0"});
  std::ifstream in(tmp.str() + "/out/log.csv");
  std::string header;
  std::getline(in, header);
  std::vector<std::string> names;
  {
    std::stringstream s(header);
    std::string n;
    while (std::getline(s, n, ',')) names.push_back(n);
  }
  const auto col = [&](const std::string& n) {
    return int(std::find(names.begin(), names.end(), n) - names.begin());
  };
  std::vector<double> t, cd, cl;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream s(line);
    std::string x;
    while (std::getline(s, x, ',')) v.push_back(std::stod(x));
    if (v[col("time")] < 6.0) continue;  // past the onset of shedding
    t.push_back(v[col("time")]);
    cd.push_back(v[col("drag_coefficient")]);
    cl.push_back(v[col("lift_coefficient")]);
  }
  REQUIRE(t.size() > 100);
  std::vector<double> up;  // upward zero crossings of c_L
  for (std::size_t k = 1; k < t.size(); ++k)
    if (cl[k - 1] < 0 && cl[k] >= 0)
      up.push_back(t[k - 1] + (t[k] - t[k - 1]) * -cl[k - 1] / (cl[k] - cl[k - 1]));
  REQUIRE(up.size() > 5);
  const double period = (up.back() - up.front()) / double(up.size() - 1);
  const double st = 0.1 / (1.0 * period);  // D / (U T), U = 2 Um / 3 = 1
  const double cl_max = *std::max_element(cl.begin(), cl.end());
  const double cd_max = *std::max_element(cd.begin(), cd.end());
  WARN("DFG 2D-2: St = " << st << ", c_L,max = " << cl_max << ", c_D,max = " << cd_max);
  CHECK(std::fabs(st - 0.300) <= 0.03 * 0.300);
  CHECK(std::fabs(cl_max - 1.00) <= 0.03);
  CHECK(std::fabs(cd_max - 3.23) <= 0.05 * 3.23);
}

TEST_CASE("mac2d backward-facing step at Re = 800 against Gartling (1990)", "[validation][long]") {
  require_gpu();
  // Gartling 1990 (reference/bfs_re800_gartling1990.csv, in channel heights):
  // lower-wall reattachment 6.10, upper-wall separation 4.85 and
  // reattachment 10.48.  The case as it is (TVD, 960 x 64).  With the blend
  // at gamma = 0.5 (needed for stability on 64 cells per height) the bubbles
  // came out about 9 % short (H200: 5.56, 4.40, 9.59).  Tolerance: 12 %.
  // The first sign change on the lower wall is the corner eddy under the
  // inlet; the second is the reattachment.
  const auto r = run_text(case_text("step-re800.toml"), "");
  const double reattach = diag(r, "south_x2"), sep = diag(r, "north_x1"),
               reattach_top = diag(r, "north_x2");
  WARN("step Re = 800: lower reattachment " << reattach << ", upper separation " << sep
                                            << ", upper reattachment " << reattach_top);
  CHECK(std::fabs(reattach - 6.10) <= 0.12 * 6.10);
  CHECK(std::fabs(sep - 4.85) <= 0.12 * 4.85);
  CHECK(std::fabs(reattach_top - 10.48) <= 0.12 * 10.48);
}

TEST_CASE("mac2d TVD backward-facing step at Re = 800 on 480 x 32 against Gartling (1990)",
          "[validation][long]") {
  // step-re800 (TVD, multigrid) on half its grid, to t = 150: about 8
  // minutes on 2 cores.  Measured (OpenMP): lower reattachment 5.639
  // (-7.6 %), upper separation 4.418 (-8.9 %) and reattachment 10.410
  // (-0.7 %) against Gartling's 6.10, 4.85, 10.48; the blend (gamma = 0.5)
  // on the same grid: 5.215, 4.129, 8.659 (-14.5 %, -14.9 %, -17.4 %).  Both
  // still lengthen at t = 150 (TVD: 5.534 at t = 125).  Required: within
  // 10 %, 10 % and 3 %.
  const auto r = run_text(case_text("step-re800.toml"), "", {"grid.cells=[480,32]"});
  const double reattach = diag(r, "south_x2"), sep = diag(r, "north_x1"),
               reattach_top = diag(r, "north_x2");
  WARN("TVD, step Re = 800, 480 x 32: lower reattachment "
       << reattach << ", upper separation " << sep << ", upper reattachment " << reattach_top);
  CHECK(std::fabs(reattach - 6.10) <= 0.10 * 6.10);
  CHECK(std::fabs(sep - 4.85) <= 0.10 * 4.85);
  CHECK(std::fabs(reattach_top - 10.48) <= 0.03 * 10.48);
}

TEST_CASE("mac2d interpolated walls: DFG 2D-1 (Re = 20) on the coarse grid, D = 10 cells",
          "[validation]") {
  // Reference (cases/reference/dfg_cylinder_2d.csv): FEATFLOW's c_D =
  // 5.57953523384, c_L = 0.010618948146, Delta_p = 0.11752016697 (Schaefer &
  // Turek 1996).  Measured on the 2-core VM (TVD, CG + multigrid, t = 8,
  // within 0.3 % of t = 15): over the surface c_D = 5.0515 (-9.5 %),
  // c_L = 0.010916 (+2.8 %); the momentum balance around the body
  // c_D = 5.5681 (-0.20 %); Delta_p = 0.11579 (-1.5 %); the staircase walls
  // on this grid: Delta_p = 0.1116 (-5.0 %).  At D = 20 cells:
  // docs/models/mac2d.md.  Tolerances: surface c_D 12 %, c_L 5 %, balance
  // c_D 1 %, Delta_p 2 % and nearer than the staircase's.
  const std::vector<std::string> sets = {"grid.cells=[220,41]",
                                         "numerics.convection=\"tvd\"",
                                         "solver.pressure.method=\"cg\"",
                                         "solver.pressure.preconditioner=\"mg\"",
                                         "output.every=100.0",
                                         "time.end=8.0",
                                         "analysis.pressure_probes=[0.15,0.2,0.25,0.2]"};
  auto with = [&](const char* walls) {
    auto s = sets;
    s.push_back(std::string("numerics.body_walls=\"") + walls + "\"");
    return run_text(case_text("cylinder-re20.toml"), "", s);
  };
  const auto r = with("interpolated");
  const double cd_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,c_D", 4);
  const double cl_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,c_L", 4);
  const double dp_ref = reference_value("dfg_cylinder_2d.csv", "2D-1,Delta_p", 4);
  const double cd = diag(r, "drag_coefficient"), cl = diag(r, "lift_coefficient"),
               bd = diag(r, "drag_balance"), dp = diag(r, "delta_p");
  WARN("DFG 2D-1, D = 10, interpolated walls: c_D = "
       << cd << ", c_L = " << cl << ", balance c_D = " << bd << ", delta_p = " << dp);
  CHECK(std::fabs(cd / cd_ref - 1) <= 0.12);
  CHECK(std::fabs(cl / cl_ref - 1) <= 0.05);
  CHECK(std::fabs(bd / cd_ref - 1) <= 0.01);
  CHECK(std::fabs(dp / dp_ref - 1) <= 0.02);
  const double dp_staircase = diag(with("staircase"), "delta_p");
  CHECK(std::fabs(dp - dp_ref) < std::fabs(dp_staircase - dp_ref));
}
