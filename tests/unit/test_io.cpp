// Output: VTK image data round trip, .pvd listing, field files, and the
// guarantee that a failing run leaves an earlier run's output intact.

#include <fcntl.h>
#include <unistd.h>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

#include "helpers.hpp"
#include "kflow/io/fieldfile.hpp"
#include "kflow/io/pvd.hpp"
#include "kflow/io/vtk.hpp"
#include "kflow/model/error.hpp"

namespace fs = std::filesystem;
using kflow::test::read_file;
using kflow::test::run_text;
using kflow::test::TempDir;

namespace {
const char* const small_case = R"([case]
model = "diffusion"
[grid]
cells = [12, 10]
[time]
end = 0.02
[output]
every = 0.004
lines = [{ name = "mid", field = "u", from = [0.0, 0.5], to = [1.0, 0.5] }]
)";

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[e.path().string()] = read_file(e.path().string());
  return files;
}
}  // namespace

TEST_CASE("a .vti written by kflow reads back with VTK's reader, values equal", "[unit]") {
  if (!kflow::io::vtk_available()) SKIP("this build has no VTK");
  TempDir tmp("vti");
  for (int dim : {2, 3}) {
    kflow::linalg::Grid g;
    g.dim = dim;
    g.cells = {7, 5, dim == 3 ? 3 : 1};
    g.length = {1.4, 1.0, dim == 3 ? 0.6 : 1.0};
    g.origin = {-0.5, 0.25, 0.0};
    const std::size_t n = g.interior_cells();
    kflow::HostField s{"p", 1, {}}, v{"velocity", 3, {}};
    for (std::size_t i = 0; i < n; ++i) {
      s.values.push_back(std::sin(0.37 * i) * 1e-3 + i);
      for (int c = 0; c < 3; ++c) v.values.push_back(1.0 / (i + c + 1));
    }
    const auto path = tmp.str() + "/f" + std::to_string(dim) + ".vti";
    kflow::io::write_vti(path, g, {s, v}, 1.25);
    kflow::linalg::Grid back;
    const auto fields = kflow::io::read_vti(path, &back);
    REQUIRE(fields.size() == 2);
    CHECK(fields[0].name == "p");
    CHECK(fields[0].values == s.values);
    CHECK(fields[1].components == 3);
    CHECK(fields[1].values == v.values);
    CHECK(back.dim == dim);
    CHECK(back.cells == g.cells);
    CHECK(back.origin == g.origin);
    CHECK(std::fabs(back.length[0] - 1.4) < 1e-12);
  }
}

TEST_CASE("VTK's failures come in kflow's message, not as VTK's raw blocks on stderr", "[unit]") {
  // VTK prints a failed write as a dozen lines per error (source file, object
  // addresses, the pipeline request), through its logger and again through
  // its output window; kflow keeps what VTK said in its own message.
  if (!kflow::io::vtk_available()) SKIP("this build has no VTK");
  TempDir tmp("vti_fail");
  kflow::linalg::Grid g;
  g.dim = 2;
  g.cells = {4, 3, 1};
  const kflow::HostField s{"p", 1, std::vector<double>(12, 1.0)};
  const std::string err = tmp.str() + "/stderr.txt";
  std::string what;
  {
    std::fflush(stderr);
    const int saved = ::dup(2);
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    ::dup2(fd, 2);
    try {
      kflow::io::write_vti(tmp.str() + "/missing/f.vti", g, {s}, 0.0);
    } catch (const kflow::Error& e) {
      what = e.what();
    }
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(fd);
    ::close(saved);
  }
  INFO("message: " << what);
  CHECK_THAT(what, Catch::Matchers::ContainsSubstring("VTK could not write " + tmp.str() +
                                                      "/missing/f.vti"));
  CHECK_THAT(what, Catch::Matchers::ContainsSubstring("Error opening output file"));
  CHECK_THAT(what, Catch::Matchers::ContainsSubstring("No such file or directory"));
  CHECK_THAT(what, !Catch::Matchers::ContainsSubstring("0x"));
  CHECK_THAT(what, !Catch::Matchers::ContainsSubstring("returned failure for request"));
  const std::string printed = read_file(err);
  INFO("stderr: " << printed);
  CHECK(printed.empty());
  // A good write afterwards is silent and keeps nothing of the failure.
  kflow::io::write_vti(tmp.str() + "/f.vti", g, {s}, 0.0);
  CHECK(kflow::io::read_vti(tmp.str() + "/f.vti").size() == 1);
}

TEST_CASE("a .pvti and its pieces read back as the whole image, values equal", "[unit]") {
  if (!kflow::io::vtk_available()) SKIP("this build has no VTK");
  TempDir tmp("pvti");
  for (int dim : {2, 3}) {
    kflow::linalg::Grid g;
    g.dim = dim;
    g.cells = {7, 5, dim == 3 ? 4 : 1};
    g.length = {1.4, 1.0, dim == 3 ? 0.8 : 1.0};
    g.origin = {-0.5, 0.25, 0.0};
    auto value = [](int i, int j, int k, int c) {
      return 100.0 * k + 10.0 * j + i + 0.1 * c;
    };
    // The whole image, and the same cut into blocks: x at 3, y at 2 (and z at 1).
    kflow::HostField whole_p{"p", 1, {}}, whole_v{"velocity", 3, {}};
    for (int k = 0; k < g.cells[2]; ++k)
      for (int j = 0; j < g.cells[1]; ++j)
        for (int i = 0; i < g.cells[0]; ++i) {
          whole_p.values.push_back(value(i, j, k, 0));
          for (int c = 0; c < 3; ++c) whole_v.values.push_back(value(i, j, k, c));
        }
    std::vector<kflow::io::Block> blocks;
    std::vector<std::string> files;
    const int cuts[3][3] = {{0, 3, 7}, {0, 2, 5}, {0, 1, g.cells[2]}};
    for (int bz = 0; bz < (dim == 3 ? 2 : 1); ++bz)
      for (int by = 0; by < 2; ++by)
        for (int bx = 0; bx < 2; ++bx) {
          kflow::io::Block b;
          const int at[3] = {bx, by, dim == 3 ? bz : 0};
          for (int d = 0; d < 3; ++d) {
            const int lo = d < dim ? cuts[d][at[d]] : 0, hi = d < dim ? cuts[d][at[d] + 1] : 1;
            b.offset[d] = lo;
            b.cells[d] = hi - lo;
          }
          kflow::HostField p{"p", 1, {}}, v{"velocity", 3, {}};
          for (int k = b.offset[2]; k < b.offset[2] + b.cells[2]; ++k)
            for (int j = b.offset[1]; j < b.offset[1] + b.cells[1]; ++j)
              for (int i = b.offset[0]; i < b.offset[0] + b.cells[0]; ++i) {
                p.values.push_back(value(i, j, k, 0));
                for (int c = 0; c < 3; ++c) v.values.push_back(value(i, j, k, c));
              }
          files.push_back("piece" + std::to_string(blocks.size()) + ".vti");
          kflow::io::write_vti_piece(tmp.str() + "/" + files.back(), g, b, {p, v}, 2.5);
          blocks.push_back(b);
        }
    const auto path = tmp.str() + "/f" + std::to_string(dim) + ".pvti";
    kflow::io::write_pvti(path, g, {whole_p, whole_v}, blocks, files);
    kflow::linalg::Grid back;
    const auto fields = kflow::io::read_vti(path, &back);
    REQUIRE(fields.size() == 2);
    CHECK(fields[0].name == "p");
    CHECK(fields[0].values == whole_p.values);
    CHECK(fields[1].components == 3);
    CHECK(fields[1].values == whole_v.values);
    CHECK(back.dim == dim);
    CHECK(back.cells == g.cells);
    CHECK(back.origin == g.origin);
    CHECK(std::fabs(back.length[0] - 1.4) < 1e-12);
  }
}

TEST_CASE("field files round-trip exactly and reject damaged files", "[unit]") {
  TempDir tmp("kff");
  kflow::io::FieldFile f;
  f.meta["kind"] = "checkpoint";
  f.meta["time"] = kflow::io::exact(0.1 + 0.2);
  f.arrays.push_back({"u", "float64", {3, 2}, std::vector<char>(48, '\n')});
  f.arrays.push_back({"empty", "float32", {0}, {}});
  const auto path = tmp.str() + "/x.kfc";
  kflow::io::write_field_file(path, f);
  const auto g = kflow::io::read_field_file(path);
  CHECK(g.meta == f.meta);
  CHECK(std::stod(g.meta.at("time")) == 0.1 + 0.2);
  REQUIRE(g.arrays.size() == 2);
  CHECK(g.arrays[0].bytes == f.arrays[0].bytes);
  CHECK(g.arrays[0].extents == f.arrays[0].extents);
  const auto text = read_file(path);
  {
    std::ofstream cut(path, std::ios::binary);
    cut << text.substr(0, text.size() - 20);
  }
  CHECK_THROWS_AS(kflow::io::read_field_file(path), kflow::Error);
  CHECK_THROWS_AS(kflow::io::read_field_file(tmp.str() + "/missing.kfc"), kflow::Error);
}

// Damage a checkpoint can suffer ("nothing lost, nothing destroyed"):
// one flipped bit in an array or in the metadata fails the checksum; a
// metadata value with a newline round-trips; numbers are read strictly
// ("2s", "0.x", "nan", out of range); sizes that do not match the extents or
// the file are refused before any allocation.
TEST_CASE("damaged field files are refused with the file and the entry named", "[unit]") {
  TempDir tmp("damaged");
  kflow::io::FieldFile f;
  f.meta["kind"] = "checkpoint";
  f.meta["case"] = "two\nlines \\ and a backslash";
  f.meta["step"] = "2s";
  f.meta["time"] = "0.x";
  f.meta["bad_time"] = "nan";
  f.meta["next_frame"] = "-5";
  f.arrays.push_back({"u", "float64", {4, 4}, std::vector<char>(128, 1)});
  const auto path = tmp.str() + "/c.kfc";
  kflow::io::write_field_file(path, f);
  const auto g = kflow::io::read_field_file(path);
  CHECK(g.meta.at("case") == f.meta.at("case"));
  using Catch::Matchers::ContainsSubstring;
  using kflow::io::meta_double;
  using kflow::io::meta_int;
  CHECK_THROWS_WITH(meta_int(g, "step", path, 0, 100),
                    ContainsSubstring("c.kfc: entry 'step' is \"2s\""));
  CHECK_THROWS_WITH(meta_int(g, "next_frame", path, 0, 3), ContainsSubstring("'next_frame'"));
  CHECK_THROWS_WITH(meta_double(g, "time", path), ContainsSubstring("'time' is \"0.x\""));
  CHECK_THROWS_WITH(meta_double(g, "bad_time", path), ContainsSubstring("finite"));
  const auto text = read_file(path);
  auto damaged = [&](std::size_t at, char with, const std::string& why) {
    std::string t = text;
    t[at] = with;
    std::ofstream(path, std::ios::binary) << t;
    INFO("byte " << at);
    CHECK_THROWS_WITH(kflow::io::read_field_file(path), ContainsSubstring(why));
  };
  damaged(text.size() - 20, char(text[text.size() - 20] ^ 1), "'u' fails its checksum");
  damaged(text.find("2s"), '3', "the metadata fail their checksum");
  // An array header whose size disagrees with its extents, or exceeds the file.
  std::string t = text;
  t.replace(t.find("128 "), 3, "999");
  std::ofstream(path, std::ios::binary) << t;
  CHECK_THROWS_WITH(kflow::io::read_field_file(path), ContainsSubstring("does not match"));
}

TEST_CASE("a restart refuses a checkpoint with impossible numbers", "[unit]") {
  TempDir tmp("impossible");
  run_text(small_case, tmp.str() + "/a");
  const auto ck = tmp.str() + "/a/checkpoint.kfc";
  auto f = kflow::io::read_field_file(ck);
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"next_frame", "999999999"}, {"step", "-100"}, {"time", "nan"}, {"cells0", "-12"}}) {
    auto g = f;
    g.meta[key] = value;
    const auto path = tmp.str() + "/bad.kfc";
    kflow::io::write_field_file(path, g);
    INFO(key << " = " << value);
    CHECK_THROWS_WITH(run_text(small_case, tmp.str() + "/b", {"time.end=1"}, path),
                      Catch::Matchers::ContainsSubstring("bad.kfc: entry '" + key + "'"));
  }
}

// --restart given something that is not a checkpoint file: /dev/zero was
// read until memory ran out, a FIFO waited for ever, a directory said "wrong
// header".  Each is named before it is opened (kflow/model/input_file.hpp),
// a run's directory with the checkpoint it holds.
TEST_CASE("a restart from a device, a FIFO or a directory is named, never read", "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  TempDir tmp("restart-path");
  run_text(small_case, tmp.str() + "/a");
  auto restart_error = [&](const std::string& from) -> std::string {
    try {
      run_text(small_case, tmp.str() + "/b", {"time.end=1"}, from);
    } catch (const kflow::Error& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(restart_error(tmp.str() + "/a"),
             ContainsSubstring(tmp.str() +
                               "/a: cannot read the checkpoint: it is a directory, not "
                               "a file (did you mean " +
                               tmp.str() + "/a/checkpoint.kfc?)"));
  CHECK_THAT(restart_error(tmp.str()),  // a directory without a checkpoint: no hint
             ContainsSubstring(tmp.str() + ": cannot read the checkpoint: it is a directory, not "
                                           "a file; expected a kflow field file (format 2)"));
  // (/dev/null stands for /dev/zero, which the old reader read until memory ran out)
  CHECK_THAT(restart_error("/dev/null"),
             ContainsSubstring("/dev/null: cannot read the checkpoint: it is a character device"));
  {
    kflow::test::Fifo fifo(tmp.str() + "/fifo.kfc");
    CHECK_THAT(restart_error(fifo.path),
               ContainsSubstring(fifo.path + ": cannot read the checkpoint: it is a FIFO (named "
                                             "pipe), not a file"));
    CHECK(fifo.opened == 0);
  }
  CHECK_THAT(restart_error(tmp.str() + "/none.kfc"),
             ContainsSubstring("none.kfc: cannot read the checkpoint: No such file or directory"));
  CHECK(!fs::exists(tmp.str() + "/b"));
}

// A format 1 file (no checksums, metadata unescaped) was read without its
// checksums and its escaped case text misread: formats kflow no longer
// writes are refused, naming the file, the format found and the one expected.
TEST_CASE("a field file of a format kflow no longer writes is refused with both formats",
          "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  TempDir tmp("format1");
  kflow::io::FieldFile f;
  f.meta["kind"] = "checkpoint";
  f.meta["case"] = "a \\ backslash";
  f.arrays.push_back({"u", "float64", {2}, std::vector<char>(16, 1)});
  const auto path = tmp.str() + "/old.kfc";
  kflow::io::write_field_file(path, f);
  auto text = read_file(path);
  REQUIRE(text.rfind("KFLOW-FIELDS 2\n", 0) == 0);
  for (const std::string version : {"1", "3", "x2"}) {
    std::ofstream(path, std::ios::binary) << "KFLOW-FIELDS " + version + text.substr(14);
    INFO("format " << version);
    CHECK_THROWS_WITH(
        kflow::io::read_field_file(path, "the checkpoint"),
        ContainsSubstring(path + ": field file format " + (version == "x2" ? "'x2'" : version) +
                          "; this kflow reads format 2 only"));
  }
  std::ofstream(path, std::ios::binary) << "KFLOW-FIELDS 1" + text.substr(14);
  CHECK_THROWS_WITH(kflow::io::read_field_file(path),
                    ContainsSubstring("(format 1, without checksums, came from an older kflow"));
}

// A checkpoint whose ghost width differs printed two grids alike ("128x128
// cells on 1 x 1 differs from 128x128 cells on 1 x 1"): the field that
// differs is named, with both values.
TEST_CASE("a restart into another grid names the field that differs", "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  TempDir tmp("ghost");
  run_text(small_case, tmp.str() + "/a");
  auto f = kflow::io::read_field_file(tmp.str() + "/a/checkpoint.kfc");
  const auto ghost = f.meta.at("ghost");
  f.meta["ghost"] = ghost == "1" ? "2" : "1";
  const auto path = tmp.str() + "/ghost.kfc";
  kflow::io::write_field_file(path, f);
  CHECK_THROWS_WITH(
      run_text(small_case, tmp.str() + "/b", {"time.end=1"}, path),
      ContainsSubstring("ghost.kfc: checkpoint grid 12x10 cells on 1 x 1 differs from the case's "
                        "grid 12x10 cells on 1 x 1: ghost width (model's ghost layers) " +
                        f.meta.at("ghost") + " in the checkpoint, " + ghost + " in the case"));
  f.meta["ghost"] = ghost;
  f.meta["length1"] = "1.0000000000000002";
  kflow::io::write_field_file(path, f);
  CHECK_THROWS_WITH(run_text(small_case, tmp.str() + "/b", {"time.end=1"}, path),
                    ContainsSubstring(": length in y 1.0000000000000002 in the checkpoint, 1 in "
                                      "the case"));
}

// A damaged value in the log of the run restarted from (x0.122 for a time)
// was carried into the new log silently: every column of every carried row
// of log.csv and of the line CSVs is a number, or the restart stops naming
// file, line, column and value, with the earlier output as it was.
TEST_CASE("a restart refuses carried log and line rows with a value that is not a number",
          "[unit]") {
  using Catch::Matchers::ContainsSubstring;
  TempDir tmp("carried-csv");
  const auto dir = tmp.str() + "/a";
  run_text(small_case, dir);
  // Column `column` (from 1) of line `row` (from 1) of `file` in the output.
  auto damage = [&](const std::string& file, int row, int column, const std::string& value) {
    std::istringstream in(read_file(dir + "/" + file));
    std::string text, line;
    for (int r = 1; std::getline(in, line); ++r) {
      if (r == row) {
        std::vector<std::string> cells;
        std::stringstream cs(line);
        for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
        REQUIRE(cells.size() >= std::size_t(column));
        cells[column - 1] = value;
        line.clear();
        for (const auto& c : cells) line += (line.empty() ? "" : ",") + c;
      }
      text += line + "\n";
    }
    std::ofstream(dir + "/" + file, std::ios::binary) << text;
  };
  const auto good = snapshot(dir);
  for (const auto& [file, column, value, header] :
       std::vector<std::tuple<std::string, int, std::string, std::string>>{
           {"log.csv", 2, "x0.122", "time"},
           {"log.csv", 5, "1.5e", ""},
           {"line_mid.csv", 6, "", "u"},
           {"line_mid.csv", 3, "0.5\x1b[31m", "x"}}) {
    for (const auto& [name, text] : good) std::ofstream(name, std::ios::binary) << text;
    damage(file, 3, column, value);
    const auto before = snapshot(dir);
    INFO(file << " column " << column << " = " << value);
    std::string shown = value.substr(0, value.find('\x1b'));
    CHECK_THROWS_WITH(run_text(small_case, dir, {"time.end=0.03"}, dir + "/checkpoint.kfc"),
                      ContainsSubstring(dir + "/" + file + ":3: column " + std::to_string(column) +
                                        " (" + header) &&
                          ContainsSubstring(") is \"" + shown) &&
                          ContainsSubstring("; expected a number (a damaged or edited file)"));
    CHECK(snapshot(dir) == before);  // nothing carried, nothing overwritten
    CHECK(!fs::exists(dir + ".running"));
  }
  // (an escape code is shown escaped)
  CHECK_THROWS_WITH(run_text(small_case, dir, {"time.end=0.03"}, dir + "/checkpoint.kfc"),
                    ContainsSubstring("is \"0.5\\x1b[31m\""));
}

TEST_CASE("the .pvd lists every frame with its time; lines and summary are written",
          "[regression]") {
  if (!kflow::io::vtk_available()) SKIP("this build has no VTK");
  TempDir tmp("pvd");
  const auto dir = tmp.str() + "/run";
  const auto r = run_text(small_case, dir);
  CHECK(r.status == "completed");
  CHECK(r.output_dir == dir);
  const auto pvd = read_file(dir + "/run.pvd");
  std::regex entry("timestep=\"([^\"]+)\"[^>]*file=\"([^\"]+)\"");
  std::vector<double> times;
  for (auto it = std::sregex_iterator(pvd.begin(), pvd.end(), entry); it != std::sregex_iterator();
       ++it) {
    times.push_back(std::stod((*it)[1]));
    CHECK(fs::exists(dir + "/" + (*it)[2].str()));
  }
  REQUIRE(times.size() == 6);
  for (int k = 0; k < 6; ++k) CHECK(std::fabs(times[k] - 0.004 * k) < 1e-15);
  for (const char* f : {"summary.json", "log.csv", "line_mid.csv", "checkpoint.kfc", "case.toml"})
    CHECK(fs::exists(dir + "/" + f));
  CHECK(!fs::exists(dir + ".running"));
  CHECK(read_file(dir + "/summary.json").find("\"status\": \"completed\"") != std::string::npos);
}

TEST_CASE("a .pvd reads back exactly as written; damaged entries are errors", "[unit]") {
  TempDir tmp("pvdrt");
  const auto path = tmp.str() + "/run.pvd";
  const kflow::io::FrameList frames = {
      {0.0, "frame_00000.vti"}, {0.1 + 0.2, "frame_00001.vti"}, {1e-300, "a b.vti"}};
  kflow::io::write_pvd(path, frames);
  CHECK(kflow::io::read_pvd(path) == frames);
  CHECK(kflow::io::read_pvd(tmp.str() + "/missing.pvd").empty());
  // A .pvd that is a directory or a FIFO is named, never opened.
  CHECK_THROWS_WITH(kflow::io::read_pvd(tmp.str()),
                    Catch::Matchers::ContainsSubstring(
                        ": cannot read the frame list: it is a directory, not a file"));
  {
    kflow::test::Fifo fifo(tmp.str() + "/fifo.pvd");
    CHECK_THROWS_WITH(kflow::io::read_pvd(fifo.path),
                      Catch::Matchers::ContainsSubstring("it is a FIFO (named pipe)"));
    CHECK(fifo.opened == 0);
  }
  auto damaged = read_file(path);
  damaged.replace(damaged.find("timestep=\"0\""), 13, "timestep=\"x\"");
  std::ofstream(path) << damaged;
  CHECK_THROWS_AS(kflow::io::read_pvd(path), kflow::Error);
}

TEST_CASE("a failing run leaves the earlier run's output intact", "[regression]") {
  TempDir tmp("keep");
  const auto dir = tmp.str() + "/run";
  run_text(small_case, dir);
  const auto before = snapshot(dir);
  REQUIRE(before.size() > 5);
  // A time step below its floor fails after the run has started.
  CHECK_THROWS_WITH(run_text(small_case, dir, {"time.dt_floor=1"}),
                    Catch::Matchers::ContainsSubstring("below time.dt_floor"));
  CHECK(snapshot(dir) == before);
  CHECK(fs::exists(dir + ".failed"));
  CHECK(!fs::exists(dir + ".running"));
  // Bad input fails before anything is written.
  CHECK_THROWS(run_text(small_case, dir, {"time.end=-1"}));
  CHECK(snapshot(dir) == before);
}

TEST_CASE("kff frames convert to .vti and .pvd", "[regression]") {
  TempDir tmp("convert");
  const auto dir = tmp.str() + "/run";
  run_text(small_case, dir, {"output.format=\"kff\""});
  CHECK(fs::exists(dir + "/frame_00005.kff"));
  CHECK(!fs::exists(dir + "/run.pvd"));
  if (!kflow::io::vtk_available()) SKIP("this build has no VTK to convert with");
  CHECK(kflow::io::convert_frames(dir) == 6);
  CHECK(fs::exists(dir + "/run.pvd"));
  const auto ff = kflow::io::read_field_file(dir + "/frame_00003.kff");
  const auto fields = kflow::io::read_vti(dir + "/frame_00003.vti");
  REQUIRE(fields.size() == ff.arrays.size());
  std::vector<double> u(ff.arrays[0].bytes.size() / 8);
  std::memcpy(u.data(), ff.arrays[0].bytes.data(), ff.arrays[0].bytes.size());
  CHECK(fields[0].values == u);
}

// A damaged frame (negative or mismatched extents, a bad time) stops convert
// with the file named, before VTK sees it, and leaves no .vti of this
// convert behind (the reproducer aborted inside VTK and left partial files).
TEST_CASE("a failed convert names the damaged frame and leaves nothing half-written",
          "[regression]") {
  if (!kflow::io::vtk_available()) SKIP("this build has no VTK to convert with");
  TempDir tmp("convert-bad");
  const auto dir = tmp.str() + "/run";
  run_text(small_case, dir, {"output.format=\"kff\""});
  const auto last = dir + "/frame_00005.kff";
  auto f = kflow::io::read_field_file(last);
  for (const auto& [key, value, why] :
       std::vector<std::array<std::string, 3>>{{"cells0", "-5", "entry 'cells0' is \"-5\""},
                                               {"cells1", "11", "does not match the frame's grid"},
                                               {"time", "0.x", "entry 'time' is \"0.x\""}}) {
    auto g = f;
    g.meta[key] = value;
    kflow::io::write_field_file(last, g);
    INFO(key << " = " << value);
    CHECK_THROWS_WITH(kflow::io::convert_frames(dir),
                      Catch::Matchers::ContainsSubstring("frame_00005.kff") &&
                          Catch::Matchers::ContainsSubstring(why));
    for (int k = 0; k < 6; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "/frame_%05d.vti", k);
      CHECK(!fs::exists(dir + name));
    }
    CHECK(!fs::exists(dir + "/run.pvd"));
  }
}
