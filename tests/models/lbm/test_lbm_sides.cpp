// physics/lbm's inflow profiles from CSV tables (lbm_inflow_table.hpp)
// against the built-in parabolas, and the tables' checks.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "lbm_body_cases.hpp"
#include "unit/helpers.hpp"

using kflow::test::diag;
using kflow::test::field;
using kflow::test::prepare_text;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {

// Plane Poiseuille flow between no-slip walls, height H = 1, fed by the
// parabolic inflow u = 4 Um y (H - y) / H^2 (Um = 1.5) on the west side.
const char* const poiseuille = R"([case]
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

// A CSV file in `dir` of the parabolic channel profile u = 4 Um y (1 - y)
// at y = k / (2 n), k = 0 .. 2n (the half-cell points of n cells of height
// 1, where the inflow's links cross the side), v = 0.
std::string parabola_csv(const TempDir& dir, int n, double um) {
  const std::string path = dir.str() + "/inflow.csv";
  std::ofstream f(path);
  f << "y,u,v\n";
  f.precision(17);
  for (int k = 0; k <= 2 * n; ++k) {
    const double y = double(k) / (2 * n);
    f << y << "," << 4 * um * y * (1 - y) << ",0\n";
  }
  return path;
}

double largest_difference(const kflow::RunResult& a, const kflow::RunResult& b,
                          const std::string& name) {
  const auto fa = field(a, name), fb = field(b, name);
  REQUIRE(fa.values.size() == fb.values.size());
  double d = 0;
  for (std::size_t k = 0; k < fa.values.size(); ++k)
    d = std::max(d, std::fabs(fa.values[k] - fb.values[k]));
  return d;
}

}  // namespace

TEST_CASE("lbm table inflow: a table of the parabola at its crossing points is the parabola",
          "[unit]") {
  // The table lists the parabolic profile at the points where the links
  // cross the side, so its (linear) interpolation is exact there: the run
  // must match the built-in parabolic inflow up to the rounding of the two
  // ways of computing it (the table's values are converted to lattice units
  // once, the formula's each step): 1e-12 of Um.
  TempDir tmp("lbm-table-inflow");
  const std::string csv = parabola_csv(tmp, 16, 1.5);
  const std::string table =
      "boundary.west={ type = \"inflow\", profile = \"table\", file = \"" + csv + "\" }";
  for (const char* scheme : {"lattice.streaming=\"two_grid\"", "lattice.streaming=\"in_place\""}) {
    const auto formula = run_text(poiseuille, "", {scheme, "time.end=5.0"}, "", true);
    const auto tabled = run_text(poiseuille, "", {scheme, "time.end=5.0", table}, "", true);
    const double du = largest_difference(formula, tabled, "velocity");
    const double drho = largest_difference(formula, tabled, "density");
    WARN(scheme << ": table against formula, largest |du| " << du << ", |drho| " << drho);
    CHECK(du < 1e-12 * 1.5);
    CHECK(drho < 1e-12);
  }
}

TEST_CASE("lbm table inflow: a duct's profile from a table of y and z", "[unit]") {
  // The duct of lbm_body_cases.hpp (24 x 12 x 12, a sphere) fed by its
  // parabolic inflow 16 Um y (1 - y) z (1 - z), Um = 2, or by the same as a
  // tensor-grid table at the side's half-cell points: the same flow up to
  // rounding.
  TempDir tmp("lbm-table-duct");
  const std::string csv = tmp.str() + "/duct.csv";
  {
    std::ofstream f(csv);
    f.precision(17);
    f << "z,y,u,v,w\n";  // any column order; rows in any order
    for (int j = 24; j >= 0; --j)
      for (int i = 0; i <= 24; ++i) {
        const double y = i / 24.0, z = j / 24.0;
        f << z << "," << y << "," << 16 * 2.0 * y * (1 - y) * z * (1 - z) << ",0,0\n";
      }
  }
  const std::string table =
      "boundary.west={ type = \"inflow\", profile = \"table\", file = \"" + csv + "\" }";
  const auto formula = run_text(kflow::test::lbm_cases::duct, "", {}, "", true);
  const auto tabled = run_text(kflow::test::lbm_cases::duct, "", {table}, "", true);
  const double du = largest_difference(formula, tabled, "velocity");
  WARN("duct: table against formula, largest |du| " << du << ", c_d " << diag(formula, "c_d")
                                                    << " / " << diag(tabled, "c_d"));
  CHECK(du < 1e-12 * 2.0);
  CHECK(std::fabs(diag(formula, "c_d") - diag(tabled, "c_d")) < 1e-10 * diag(formula, "c_d"));
}

TEST_CASE("lbm table inflow: bad tables are refused with the file, line and column named",
          "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  TempDir tmp("lbm-table-bad");
  auto with = [&](const std::string& name, const std::string& text) {
    const std::string path = tmp.str() + "/" + name;
    std::ofstream(path) << text;
    return "boundary.west={ type = \"inflow\", profile = \"table\", file = \"" + path + "\" }";
  };
  const auto refused = [&](const std::string& set, const std::string& what) {
    INFO(set);
    CHECK_THROWS_WITH(prepare_text(poiseuille, {set}), ContainsSubstring(what));
  };
  refused(with("short.csv", "y,u,v\n0,0,0\n0.5,1\n1,0,0\n"),
          "short.csv:3: the inflow table: a row of 2 values where the header has 3 columns");
  refused(with("nan.csv", "y,u,v\n0,0,0\n0.5,nan,0\n1,0,0\n"), "column 'u': 'nan' is not a finite");
  refused(with("part.csv", "y,u,v\n0,0,0\n0.5,1,0\n"), "it must cover the side, [0, 1]");
  refused(with("normal.csv", "x,u,v\n0,0,0\n1,1,0\n"), "runs across the side");
  refused(with("out.csv", "y,u,v\n0,0,0\n0.5,-1,0\n1,0,0\n"), "points out of the domain");
  refused(with("still.csv", "y,u,v\n0,0,0\n1,0,0\n"), "no velocity into the domain");
  refused(with("nov.csv", "y,u\n0,0\n1,1\n"), "no velocity column v");
  refused(with("extra.csv", "y,u,v,p\n0,0,0,0\n1,1,0,0\n"), "unknown column 'p'");
  refused(with("twice.csv", "y,u,v\n0,0,0\n0,1,0\n1,0,0\n"), "expected one row per position");
  refused(with("empty.csv", ""), "is empty");
  refused("boundary.west={ type = \"inflow\", profile = \"table\", file = \"" + tmp.str() + "\" }",
          "it is a directory");
  refused("boundary.west={ type = \"inflow\", profile = \"table\" }", "needs its CSV file");
  refused(
      "boundary.west={ type = \"inflow\", profile = \"parabolic\", max_velocity = 1.0, "
      "file = \"a.csv\" }",
      "a file belongs to profile = \"table\"");
  // The table's fastest point counts for the inflow's Mach number: 1.5 /
  // 1.0 * 0.05 * 5 = 0.375 at lattice.velocity 0.25 (Ma 0.65).
  CHECK_THROWS_WITH(prepare_text(poiseuille, {with("fast2.csv", "y,u,v\n0,0,0\n0.5,1.5,0\n1,0,0\n"),
                                              "lattice.velocity=0.25"}),
                    ContainsSubstring("Mach"));
}
