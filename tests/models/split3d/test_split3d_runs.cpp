// physics/split3d runs: restart bit for bit, the divergence limit, float
// against double and the host threads' subnormals, the nonlinear iterations'
// tolerance, and the removed assembly key.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kflow/core/subnormals.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/exact.hpp"
#include "kflow/model/registry.hpp"
#include "unit/helpers.hpp"

using kflow::test::case_text;
using kflow::test::diag;
using kflow::test::field;
using kflow::test::run_text;
using kflow::test::TempDir;

TEST_CASE("split3d checkpoint and restart continue bit-for-bit", "[regression][split3d]") {
  TempDir tmp("split3d-restart");
  using Sets = std::function<std::vector<std::string>(const char*)>;
  // `text` run to t = 0.1 in one go, and to 0.05 then on from its checkpoint:
  // the two final checkpoints' arrays `names` hold the same bytes.
  auto restart_matches = [&](const std::string& text, const std::string& d, const Sets& sets,
                             const std::vector<std::string>& names, const std::string& what) {
    run_text(text, d + "full", sets("0.1"));
    run_text(text, d + "half", sets("0.05"));
    run_text(text, d + "rest", sets("0.1"), d + "half/checkpoint.kfc");
    const auto a = kflow::io::read_field_file(d + "full/checkpoint.kfc");
    const auto b = kflow::io::read_field_file(d + "rest/checkpoint.kfc");
    for (const auto& name : names) {
      INFO(name << " (" << what << ")");
      REQUIRE(a.array(name));
      REQUIRE(b.array(name));
      CHECK(a.array(name)->bytes == b.array(name)->bytes);
    }
  };
  const std::vector<std::string> fields = {"kflow::split3d::u", "kflow::split3d::v",
                                           "kflow::split3d::w", "kflow::split3d::temperature",
                                           "counters"};
  auto with_phi = fields;
  with_phi.push_back("kflow::split3d::phi");
  const auto text = case_text("split3d/duct.toml");
  // none, plain and incremental projection; incremental in float (phi in double)
  for (const int form : {0, 1, 2, 3}) {
    const Sets sets = [form](const char* end) {
      std::vector<std::string> s = {"grid.cells=[15,7,7]", "grid.length=[1.0,1.0,1.0]",
                                    "output.every=0.05", "output.lines=[]",
                                    std::string("time.end=") + end};
      if (form > 0) s.push_back("physics.projection=true");
      if (form > 0)
        s.push_back(std::string("physics.projection_scheme=") +
                    (form == 1 ? "\"plain\"" : "\"incremental\""));
      if (form == 3) s.push_back("run.precision=\"float\"");
      return s;
    };
    restart_matches(text, tmp.str() + "/" + std::to_string(form), sets, form ? with_phi : fields,
                    "projection form " + std::to_string(form));
  }
  // A float run's checkpoint from before the projection was in double holds
  // phi as float32: it is widened on restart, and the run ends within float's
  // rounding of the uninterrupted one.
  {
    const std::string d = tmp.str() + "/3";
    auto old = kflow::io::read_field_file(d + "half/checkpoint.kfc");
    bool found = false;
    for (auto& a : old.arrays)
      if (a.name == "kflow::split3d::phi") {
        REQUIRE(a.type == "float64");
        std::vector<double> v(a.bytes.size() / sizeof(double));
        std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
        std::vector<float> f(v.begin(), v.end());
        a.type = "float32";
        a.bytes.resize(f.size() * sizeof(float));
        std::memcpy(a.bytes.data(), f.data(), a.bytes.size());
        found = true;
      }
    REQUIRE(found);
    kflow::io::write_field_file(d + "old.kfc", old);
    const auto r = run_text(
        text, d + "old",
        {"grid.cells=[15,7,7]", "grid.length=[1.0,1.0,1.0]", "output.every=0.05", "output.lines=[]",
         "time.end=0.1", "physics.projection=true", "run.precision=\"float\""},
        d + "old.kfc", true);
    const auto b = kflow::io::read_field_file(d + "full/checkpoint.kfc");
    const auto* u = b.array("kflow::split3d::u");
    REQUIRE(u);
    std::vector<float> uf(u->bytes.size() / sizeof(float));
    std::memcpy(uf.data(), u->bytes.data(), u->bytes.size());
    const auto ur = field(r, "u");
    REQUIRE(ur.values.size() == uf.size());
    double speed = 0, diff = 0;
    for (std::size_t m = 0; m < uf.size(); ++m) {
      speed = std::max(speed, std::fabs(double(uf[m])));
      diff = std::max(diff, std::fabs(ur.values[m] - uf[m]));
    }
    INFO("restart from float32 phi: max u difference " << diff << " of " << speed);
    CHECK(speed > 0);
    CHECK(diff <= 1e-5 * speed);
  }
  // Periodic in x and y (ghost copies in the checkpoint) with an adiabatic slab
  // across the periodic x lines and a lid along y.
  const Sets csets = [](const char* end) {
    return std::vector<std::string>{
        "grid.cells=[12,6,7]",
        "physics.gamma=1.4",
        "output.every=0.05",
        "output.lines=[]",
        "boundary.top={type=\"moving_wall\", velocity=[0.0, 1.0, 0.0], temperature=1.2}",
        "body=[{shape=\"box\", min=[0.5,-1.0,-1.0], max=[0.9,2.0,0.5], adiabatic=true}]",
        std::string("time.end=") + end,
        "time.dt=0.01"};
  };
  restart_matches(case_text("split3d/periodic-channel.toml"), tmp.str() + "/c", csets, fields,
                  "periodic channel");
}

TEST_CASE("split3d stops a run whose divergence error passes run.divergence_limit",
          "[unit][split3d]") {
  const auto text = case_text("split3d/duct.toml");
  const std::vector<std::string> sets = {"grid.cells=[15,7,7]", "grid.length=[1.0,1.0,1.0]",
                                         "time.end=0.05", "output.lines=[]"};
  const auto ok = run_text(text, "", sets);
  const double err = diag(ok, "divergence_error");
  CHECK(err > 0);
  auto low = sets;
  low.push_back("run.divergence_limit=" + std::to_string(0.5 * err));
  CHECK_THROWS_WITH(run_text(text, "", low),
                    Catch::Matchers::ContainsSubstring("exceeds run.divergence_limit"));
}

TEST_CASE("split3d in float agrees with double to single precision", "[unit][split3d]") {
  // The duct, and the periodic channel with an adiabatic slab across its
  // periodic lines and a lid along y (float cyclic solves).
  const std::string files[2] = {"split3d/duct.toml", "split3d/periodic-channel.toml"};
  const std::vector<std::string> cases[2] = {
      {"grid.cells=[15,7,7]", "grid.length=[1.0,1.0,1.0]", "time.end=0.2", "output.lines=[]"},
      {"grid.cells=[12,6,7]", "physics.gamma=1.4",
       "boundary.top={type=\"moving_wall\", velocity=[0.0, 1.0, 0.0], temperature=1.2}",
       "body=[{shape=\"box\", min=[0.5,-1.0,-1.0], max=[0.9,2.0,0.5], adiabatic=true}]",
       "time.end=0.2", "time.dt=0.01", "output.lines=[]"}};
  for (int c = 0; c < 2; ++c) {
    const auto text = case_text(files[c]);
    const auto& sets = cases[c];
    auto fl = sets;
    fl.push_back("run.precision=\"float\"");
    const auto d = run_text(text, "", sets, "", true), f = run_text(text, "", fl, "", true);
    // velocity components against the largest speed, T against its own scale
    double speed = 0;
    for (const char* name : {"u", "v"})
      for (double v : field(d, name).values) speed = std::max(speed, std::fabs(v));
    for (const char* name : {"u", "v", "w", "temperature"}) {
      const auto a = field(d, name), b = field(f, name);
      double scale = name[0] == 't' ? 0 : speed, diff = 0;
      for (std::size_t k = 0; k < a.values.size(); ++k) {
        if (name[0] == 't') scale = std::max(scale, std::fabs(a.values[k]));
        diff = std::max(diff, std::fabs(a.values[k] - b.values[k]));
      }
      INFO(files[c] << ", " << name << ": max difference " << diff << " of " << scale);
      CHECK(scale > 0);
      CHECK(diff <= 1e-5 * scale);
    }
  }
}

TEST_CASE("split3d in float with the projection: the solve in double, to the case's tolerance",
          "[unit][split3d]") {
  // In float the projection's residual stalls near eps (n + 1)^2 (2.4e-4 for
  // 31 nodes): with the default solver.tolerance = 1e-8 every float run with
  // the projection stopped at its first step.  The projection is solved in
  // double in both precisions: the float run keeps 1e-8 and says so, and its
  // velocity stays within 1e-5 of the largest speed of the double run's.
  const auto text = case_text("split3d/duct.toml");
  const std::vector<std::string> sets = {"grid.cells=[31,15,15]", "physics.projection=true",
                                         "time.steps=5", "output.lines=[]"};
  auto fl = sets;
  fl.push_back("run.precision=\"float\"");
  const auto projection_note = [](const kflow::PreparedCase& pc) {
    for (const auto& n : pc.setup->notes)
      if (n.find("projection") == 0) return n;
    return std::string();
  };
  const auto note = projection_note(kflow::test::prepare_text(text, fl));
  INFO(note);
  CHECK_THAT(note, Catch::Matchers::ContainsSubstring(" to 1e-08 in double"));
  CHECK_THAT(projection_note(kflow::test::prepare_text(text, sets)),
             !Catch::Matchers::ContainsSubstring("in double"));
  const auto d = run_text(text, "", sets, "", true), f = run_text(text, "", fl, "", true);
  REQUIRE(f.steps == 5);  // every step's solve reached 1e-8 (else the run stops)
  double speed = 0, diff = 0;
  for (const char* name : {"u", "v", "w"}) {
    const auto a = field(d, name), b = field(f, name);
    for (std::size_t k = 0; k < a.values.size(); ++k) {
      speed = std::max(speed, std::fabs(a.values[k]));
      diff = std::max(diff, std::fabs(a.values[k] - b.values[k]));
    }
  }
  WARN("float with the projection against double: max velocity difference " << diff << " of "
                                                                            << speed);
  CHECK(speed > 0);
  // measured 3.1e-7 of 0.884 (2 cores; 4.0e-6 with the solve in float)
  CHECK(diff <= 1e-5 * speed);
}

TEST_CASE("split3d in float: the host threads' subnormals, kept and flushed to zero",
          "[unit][split3d]") {
  // The calling thread and a thread it starts afterwards (the kflow command
  // sets the mode before Kokkos starts its threads).
  auto product = [] {
    volatile float a = 1e-30f, b = 1e-10f;  // 1e-40: subnormal
    return float(a * b);
  };
  struct Restore {
    ~Restore() { kflow::set_host_subnormals(kflow::Subnormals::keep); }
  } restore;
  if (!kflow::set_thread_subnormals(kflow::Subnormals::flush)) {
    SUCCEED("this platform has no flush-to-zero control");
    return;
  }
  CHECK(kflow::thread_flushes_subnormals());
  CHECK(product() == 0.0f);
  float in_thread = -1;
  std::thread([&] { in_thread = product(); }).join();
  CHECK(in_thread == 0.0f);
  kflow::set_thread_subnormals(kflow::Subnormals::keep);
  CHECK(product() > 0.0f);
  CHECK_THROWS_WITH(kflow::parse_subnormals("zero", "--subnormals"),
                    Catch::Matchers::ContainsSubstring("'zero': expected 'flush'"));
  // Every thread of the host space, then the lid-driven cavity in float (the
  // paper's gamma = 1.4: the dissipation squares velocity gradients that start
  // near 0, and their squares fall below FLT_MIN) kept and flushed: the fields
  // differ by rounding at most.
  kflow::set_host_subnormals(kflow::Subnormals::flush);
  CHECK(kflow::describe_host_subnormals() == "subnormals flushed to zero");
  kflow::set_host_subnormals(kflow::Subnormals::keep);
  CHECK(kflow::describe_host_subnormals() == "subnormals kept");
  const auto text = case_text("split3d/cavity-re100.toml");
  const std::vector<std::string> sets = {"grid.cells=[50,50,50]", "time.steps=3", "output.lines=[]",
                                         "run.precision=\"float\"", "run.backend=\"openmp\""};
  kflow::RunResult r[2];
  for (int flush = 0; flush < 2; ++flush) {
    kflow::set_host_subnormals(flush ? kflow::Subnormals::flush : kflow::Subnormals::keep);
    r[flush] = run_text(text, "", sets, "", true);
  }
  for (const char* name : {"u", "v", "w", "temperature"}) {
    const auto a = field(r[0], name), b = field(r[1], name);
    REQUIRE(a.values.size() == b.values.size());
    double diff = 0;
    for (std::size_t k = 0; k < a.values.size(); ++k)
      diff = std::max(diff, std::fabs(a.values[k] - b.values[k]));
    INFO(name << ": largest difference " << diff);
    CHECK(diff <= 1e-6);  // the lid moves at 1, T is about 1
  }
}

TEST_CASE("split3d numerics.change_tolerance ends the nonlinear iterations early",
          "[unit][split3d]") {
  // The transient lid cavity (Re 30, Picard, 8 local x 4 global at most): the
  // change of u~ falls fast with Picard's local iterations (4 of them leave
  // 1.4e-4 on a transient cavity: docs/models/split3d.md, "The update: Picard
  // 4 x 1 by default"), so a tolerance ends the iterations early.
  const auto text = kflow::test::case_text("split3d/cavity-re100.toml");
  const std::vector<std::string> common = {"grid.cells=[19,19,19]",
                                           "physics.reynolds=30.0",
                                           "numerics.update=\"picard\"",
                                           "numerics.local_iterations=8",
                                           "numerics.global_iterations=4",
                                           "time.dt=0.05",
                                           "time.steps=6",
                                           "output.lines=[]"};
  auto with = [&](std::vector<std::string> extra) {
    auto s = common;
    s.insert(s.end(), extra.begin(), extra.end());
    return run_text(text, "", s, "", true);
  };
  const auto full = with({});
  CHECK(diag(full, "solves_per_step") == 4 * 3 * 8 * 4);
  // A tolerance no change meets runs the full counts: the same bits.
  const auto zero = with({"numerics.change_tolerance=1e-300"});
  CHECK(diag(zero, "solves_per_step") == 4 * 3 * 8 * 4);
  CHECK(field(zero, "u").values == field(full, "u").values);
  // A tolerance every change meets: one local iteration a direction and one
  // global iteration, exactly the run with those counts.
  const auto huge = with({"numerics.change_tolerance=1e30"});
  const auto one = with({"numerics.local_iterations=1", "numerics.global_iterations=1"});
  CHECK(diag(huge, "solves_per_step") == 4 * 3);
  CHECK(diag(huge, "local_iterations_total") == 3 * 6);
  for (const char* name : {"u", "v", "w", "temperature"})
    CHECK(field(huge, name).values == field(one, name).values);
  // In between: fewer solves, the last change within the tolerance, and the
  // kinetic energy of the full iterations to well within the tolerance's effect.
  const auto mid = with({"numerics.change_tolerance=1e-3"});
  const double solves = diag(mid, "solves_per_step");
  INFO("solves per step " << solves << ", last change " << diag(mid, "last_update_change"));
  CHECK(solves < 4 * 3 * 8 * 4);
  CHECK(solves >= 4 * 3 * 2);
  CHECK(diag(mid, "last_update_change") <= 1e-3);
  const double ke = diag(full, "kinetic_energy");
  CHECK(std::fabs(diag(mid, "kinetic_energy") - ke) <= 1e-3 * ke);
}

TEST_CASE("split3d: the removed numerics.assembly is refused, naming what replaced it",
          "[unit][split3d]") {
  const auto text = case_text("split3d/cavity-re100.toml");
  for (const char* v : {"\"auto\"", "\"stored\"", "\"fusd\""})
    CHECK_THROWS_WITH(run_text(text, "", {std::string("numerics.assembly=") + v}, "", true),
                      Catch::Matchers::ContainsSubstring("numerics.assembly") &&
                          Catch::Matchers::ContainsSubstring("was removed: split3d has one "
                                                             "assembly"));
}
