// Case validation: every class of bad input is reported with the file, line,
// key and value before any work starts.

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "helpers.hpp"
#include "kflow/core/bench.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/printable.hpp"

using Catch::Matchers::ContainsSubstring;
using kflow::test::prepare_text;

namespace {
const char* const good = R"([case]
model = "diffusion"
[grid]
cells = [8, 8]
[time]
end = 0.1
)";

std::string error_of(const std::string& toml, std::vector<std::string> sets = {}) {
  try {
    prepare_text(toml, sets);
  } catch (const kflow::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a valid case passes and defaults apply", "[unit]") {
  auto pc = prepare_text(good);
  CHECK(pc.model->name == "diffusion");
  CHECK(pc.precision == "double");
  CHECK(pc.end == 0.1);
  CHECK(pc.setup->grid.cells[0] == 8);
  CHECK(pc.output_dir == "out/test");
}

TEST_CASE("unknown key: named with line and a suggestion", "[unit]") {
  const auto msg = error_of(std::string(good) + "safety_factr = 0.5\n");
  CHECK_THAT(msg, ContainsSubstring("test.toml:7"));
  CHECK_THAT(msg, ContainsSubstring("time.safety_factr"));
  CHECK_THAT(msg, ContainsSubstring("did you mean 'safety_factor'"));
  CHECK_THAT(error_of(std::string(good) + "[tme]\nend = 1\n"), ContainsSubstring("'tme'"));
}

// A quoted key with a dot ("time.end" = 99) is one key of that name, not
// time.end: it was neither used nor reported.  Every key kflow does not use
// is an error however it is written.
TEST_CASE("a quoted dotted key is an unknown key, at the top level and in a table", "[unit]") {
  const auto top = error_of("\"time.end\" = 99\n" + std::string(good));
  CHECK_THAT(top, ContainsSubstring("test.toml:1: key '\"time.end\"': unknown key: a quoted key "
                                    "is one key of that name, not a dotted path"));
  CHECK_THAT(top, ContainsSubstring("for the key time.end write time.end = ... unquoted"));
  // Without a [time] table: time.end is missing, and the quoted key is named too.
  const std::string no_time =
      "\"time.end\" = 99\n[case]\nmodel = \"diffusion\"\n[grid]\n"
      "cells = [8, 8]\n";
  const auto missing = error_of(no_time);
  CHECK_THAT(missing, ContainsSubstring("key 'time.end': missing"));
  CHECK_THAT(missing, ContainsSubstring("test.toml:1: key '\"time.end\"': unknown key"));
  // In a table, and with brackets.
  CHECK_THAT(error_of(std::string(good) + "\"safety.factor\" = 0.5\n"),
             ContainsSubstring("test.toml:7: key 'time.\"safety.factor\"': unknown key"));
  CHECK_THAT(error_of("\"grid.cells[0]\" = 4\n" + std::string(good)),
             ContainsSubstring("key '\"grid.cells[0]\"': unknown key"));
}

TEST_CASE("wrong type: key, value and expectation", "[unit]") {
  const auto msg = error_of(R"([case]
model = "diffusion"
[grid]
cells = [8, 8]
[time]
end = "soon"
)");
  CHECK_THAT(msg, ContainsSubstring("test.toml:6"));
  CHECK_THAT(msg, ContainsSubstring("time.end"));
  CHECK_THAT(msg, ContainsSubstring("\"soon\""));
  CHECK_THAT(msg, ContainsSubstring("expected a number"));
}

// An open end of a range (Range::positive()) is not printed as a bound.
TEST_CASE("out of range: an open-ended range is said without a huge bound", "[unit]") {
  const std::string cavity = R"([case]
model = "mac2d"
[grid]
cells = [16, 16]
[physics]
reynolds = -5.0
[boundary]
north = { type = "moving_wall", velocity = 1.0 }
[time]
end = 0.1
)";
  const auto msg = error_of(cavity);
  CHECK_THAT(msg, ContainsSubstring("physics.reynolds"));
  CHECK_THAT(msg, ContainsSubstring("expected a number > 0"));
  CHECK_THAT(msg, !ContainsSubstring("1e+300"));
}

TEST_CASE("out of range: key, value and range", "[unit]") {
  const auto msg = error_of(good, {"time.safety_factor=1.5"});
  CHECK_THAT(msg, ContainsSubstring("--set time.safety_factor=1.5"));
  CHECK_THAT(msg, ContainsSubstring("(0, 1]"));
  CHECK_THAT(error_of(good, {"grid.cells=[8, 0]"}), ContainsSubstring("grid.cells"));
  CHECK_THAT(error_of(good, {"physics.diffusivity=-1"}), ContainsSubstring("physics.diffusivity"));
}

TEST_CASE("missing required keys", "[unit]") {
  CHECK_THAT(error_of("[grid]\ncells = [8, 8]\n[time]\nend = 1\n"),
             ContainsSubstring("case.model"));
  CHECK_THAT(error_of("[case]\nmodel = \"diffusion\"\n[grid]\ncells = [8, 8]\n"),
             ContainsSubstring("time.end"));
  CHECK_THAT(error_of("[case]\nmodel = \"diffusion\"\n[time]\nend = 1\n"),
             ContainsSubstring("grid.cells"));
}

TEST_CASE("malformed TOML: file, line and column", "[unit]") {
  const auto msg = error_of("[case]\nmodel = \"diffusion\n");
  CHECK_THAT(msg, ContainsSubstring("test.toml:2"));
  CHECK_THAT(msg, ContainsSubstring("malformed TOML"));
}

TEST_CASE("unknown model and unknown precision", "[unit]") {
  const auto msg = error_of(good, {"case.model=difusion"});
  CHECK_THAT(msg, ContainsSubstring("unknown model \"difusion\""));
  CHECK_THAT(msg, ContainsSubstring("did you mean \"diffusion\""));
  CHECK_THAT(error_of(good, {"run.precision=half"}), ContainsSubstring("\"half\""));
  // 16-bit storage is lbm's only: the others name what they support.
  CHECK_THAT(error_of(good, {"run.precision=float16s"}),
             ContainsSubstring("supports precision double, float, not \"float16s\""));
}

TEST_CASE("unknown or missing backend", "[unit]") {
  CHECK_THAT(error_of(good, {"run.backend=opencl"}), ContainsSubstring("'opencl'"));
  kflow::RunOptions o;
  o.backend = "vulkan";
  CHECK_THROWS_WITH(prepare_text(good, {}, o), ContainsSubstring("'vulkan'"));
}

TEST_CASE("bad --set arguments", "[unit]") {
  CHECK_THAT(error_of(good, {"time.end"}), ContainsSubstring("KEY=VALUE"));
  CHECK_THAT(error_of(good, {"=3"}), ContainsSubstring("KEY=VALUE"));
  CHECK_THAT(error_of(good, {"time.end="}), ContainsSubstring("empty"));
  CHECK_THAT(error_of(good, {"time.end=[1,"}), ContainsSubstring("not valid TOML"));
  CHECK_THAT(error_of(good, {"grid.cells.x=3"}), ContainsSubstring("not a table"));
  // A --set that names a key no one reads is an unknown key, attributed to --set.
  CHECK_THAT(error_of(good, {"time.ende=3"}), ContainsSubstring("did you mean 'end'"));
}

// --set time=1 replaced the [time] table by a number, and the error then
// said the case lacked time.end without naming the --set.
TEST_CASE("a --set that replaces a table is refused; problems it causes name it", "[unit]") {
  CHECK_THAT(
      error_of(good, {"time=1"}),
      ContainsSubstring("--set time=1: 'time' is a section of the case ([time], test.toml:5) with "
                        "time.end, not a value: --set sets one key of it, such as --set "
                        "time.end=1"));
  // Below the top level a key may take a value or a table (a side's type).
  CHECK(error_of(good, {"boundary.west={ type = \"neumann\" }", "boundary.west=\"neumann\""}) ==
        "");
  // A table in place of a table replaces it; what it lacks is named with the --set.
  CHECK_THAT(error_of(good, {"time={ dt = 0.001 }"}),
             ContainsSubstring("--set time={ dt = 0.001 }: key 'time.end': missing"));
  // A case without [time]: the value is set, and the missing time.end names it.
  const std::string no_time = "[case]\nmodel = \"diffusion\"\n[grid]\ncells = [8, 8]\n";
  CHECK_THAT(error_of(no_time, {"time=1"}), ContainsSubstring("--set time=1: key 'time.end': "
                                                              "missing"));
}

TEST_CASE("command-line overrides (--set) set values with TOML syntax or bare words", "[unit]") {
  auto pc = prepare_text(good, {"time.end=2.5", "grid.cells=[16, 4]", "run.precision=float"});
  CHECK(pc.end == 2.5);
  CHECK(pc.setup->grid.cells[0] == 16);
  CHECK(pc.setup->grid.cells[1] == 4);
  CHECK(pc.precision == "float");
}

TEST_CASE("inconsistent combinations", "[unit]") {
  CHECK_THAT(error_of(good, {"boundary.west=\"periodic\""}), ContainsSubstring("partner"));
  CHECK_THAT(error_of(good, {"time.dt=0.001", "time.safety_factor=0.5"}),
             ContainsSubstring("not both"));
  CHECK_THAT(error_of(good, {"output.every=0.1", "output.every_steps=3"}),
             ContainsSubstring("not both"));
  CHECK_THAT(error_of(good, {"boundary.top=\"neumann\""}), ContainsSubstring("2D case"));
  CHECK_THAT(error_of(good, {"output.fields=[\"u\", \"v\"]"}), ContainsSubstring("\"v\""));
  CHECK_THAT(error_of(good, {"boundary.north={ type = \"dirichlet\", value = 1.0 }"}),
             ContainsSubstring("homogeneous"));
}

TEST_CASE("closest() suggests near misses only", "[unit]") {
  CHECK(kflow::closest("safty_factor", {"end", "safety_factor"}) == "safety_factor");
  CHECK(kflow::closest("xyz", {"end", "safety_factor"}).empty());
}

// Regressions: a missing time.end (or case.model) hid every other problem;
// a long array was "an array" without its length.
TEST_CASE("a missing time.end or model does not hide the other problems", "[unit]") {
  const auto no_end = error_of(
      "[case]\nmodel = \"diffusion\"\n[grid]\ncells = [8, -1]\n[output]\nevery = -1.0\n"
      "[tiem]\nend = 1.0\n");
  CHECK_THAT(no_end, ContainsSubstring("key 'time.end': missing"));
  CHECK_THAT(no_end, ContainsSubstring("key 'grid.cells'"));
  CHECK_THAT(no_end, ContainsSubstring("key 'output.every'"));
  CHECK_THAT(no_end, ContainsSubstring("key 'tiem': unknown key"));
  const auto bad_end = error_of(good, {"time.end=\"soon\"", "output.every=-1"});
  CHECK_THAT(bad_end, ContainsSubstring("key 'time.end': expected a number > 0, got \"soon\""));
  CHECK_THAT(bad_end, ContainsSubstring("key 'output.every'"));
  const auto no_model = error_of("[grid]\ncells = [8, 8]\n[time]\nend = -1.0\n");
  CHECK_THAT(no_model, ContainsSubstring("key 'case.model': missing"));
  CHECK_THAT(no_model, ContainsSubstring("key 'time.end': expected a number > 0, got -1.0"));
}

TEST_CASE("a long array is reported with its length, a short one as written", "[unit]") {
  std::string cells = "[";
  for (int k = 0; k < 3000000; ++k) cells += k ? ",1" : "1";
  cells += "]";
  CHECK_THAT(error_of(good, {"grid.cells=" + cells}),
             ContainsSubstring("got an array of 3000000 elements"));
  CHECK_THAT(error_of(good, {"grid.cells=[8, 8, 8, 8]"}), ContainsSubstring("got [8, 8, 8, 8]"));
}

// output.every = 1e-300 wrote a frame every step for ever: runs that cannot
// end in a sane number of steps, frames or log rows are refused with the numbers.
TEST_CASE("runs too long to finish are refused before work", "[unit]") {
  CHECK_THAT(error_of(good, {"output.every=1e-300"}),
             ContainsSubstring("output.every = 1e-300 up to t = 0.1 writes 1e+299 frames"));
  CHECK_THAT(error_of(good, {"output.every=1e-300", "time.end=1e300", "time.steps=10000000"}),
             ContainsSubstring("output.every = 1e-300, below time.dt_floor = 1e-14 (every step "
                               "lands on an output time), over 1e+07 steps writes 1e+07 frames"));
  CHECK_THAT(error_of(good, {"output.every=1e-8"}),
             ContainsSubstring("output.every = 1e-08 up to t = 0.1 writes 1e+07 frames"));
  CHECK_THAT(error_of(good, {"time.end=1e300"}),
             ContainsSubstring("kflow runs at most 1e+12 steps"));
  CHECK_THAT(error_of(good, {"time.steps=100000000000", "time.end=1e8", "output.log_every=1"}),
             ContainsSubstring("rows to log.csv; at most 1e+09"));
  // The limits leave ordinary long runs alone.
  CHECK_NOTHROW(prepare_text(good, {"time.end=1e3", "output.every=0.01"}));
}

// A case path that is not a regular file is named before it is opened (one
// check for every input file, kflow/model/input_file.hpp): a FIFO would wait
// for ever, a device never end, a directory read as an empty case.
TEST_CASE("a case path that is a FIFO, a device, a directory or too big is named, never read",
          "[unit]") {
  kflow::test::TempDir tmp("case-path");
  auto load_error = [](const std::string& path) -> std::string {
    try {
      kflow::Config::load(path);
    } catch (const kflow::Error& e) {
      return e.what();
    }
    return "";
  };
  {
    kflow::test::Fifo fifo(tmp.str() + "/case.toml");
    CHECK_THAT(load_error(fifo.path),
               ContainsSubstring(fifo.path + ": cannot read the case file: it is a FIFO (named "
                                             "pipe), not a file; expected a TOML case file"));
    CHECK(fifo.opened == 0);
  }
  CHECK_THAT(load_error(tmp.str()),
             ContainsSubstring(tmp.str() + ": cannot read the case file: it is a directory"));
  CHECK_THAT(load_error("/dev/zero"),
             ContainsSubstring("/dev/zero: cannot read the case file: it is a character device"));
  CHECK_THAT(load_error(tmp.str() + "/missing.toml"),
             ContainsSubstring("missing.toml: cannot read the case file: No such file"));
  const auto big = tmp.str() + "/big.toml";
  std::ofstream(big).close();
  std::filesystem::resize_file(big, (std::uintmax_t(16) << 20) + 1);  // sparse: no disk used
  CHECK_THAT(load_error(big), ContainsSubstring("big.toml: cannot read the case file: it has "
                                                "16777217 bytes, the case file at most 16777216"));
}

// A case name with a newline or escape codes was printed as it was (a
// newline started a line of its own, ESC [2J cleared the terminal): text
// from a user is printed escaped (kflow/model/printable.hpp).
TEST_CASE("a case name or value with a newline or escape codes is printed escaped", "[unit]") {
  CHECK(kflow::printable("a\nb\x1b[2J\tc\x7f") == "a\\nb\\x1b[2J\\tc\\x7f");
  CHECK(kflow::printable("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 as it is
  CHECK(kflow::printable("abcdef", 3) == "abc...");
  CHECK(kflow::printable_lines("one \x1b[31m\ntwo") == "one \\x1b[31m\ntwo");
  const std::string named =
      "[case]\nname = \"two\\nlines \\u001b[31mred\"\n" + std::string(good).substr(7);
  kflow::RunOptions opt;
  opt.case_path = "test.toml";
  opt.write_output = false;
  auto pc = kflow::prepare(kflow::Config::parse(named, "test.toml"), opt);
  REQUIRE(pc.name == "two\nlines \x1b[31mred");
  std::ostringstream log;
  kflow::run(pc, opt, log);
  CHECK_THAT(log.str(), ContainsSubstring("kflow: case \"two\\nlines \\x1b[31mred\": model"));
  CHECK(log.str().find('\x1b') == std::string::npos);
  // A value echoed in a problem.
  CHECK_THAT(error_of(good, {"time.end=\"soon\\u001b[2J\""}),
             ContainsSubstring("got \"soon\\x1b[2J\""));
}

// Integer benchmark parameters beyond an int (--set n=2147483648, 3^62,
// which overflowed a long) are refused with their range, not wrapped.
TEST_CASE("integer benchmark parameters are range-checked, not wrapped", "[unit]") {
  auto error = [](const std::string& set) -> std::string {
    try {
      kflow::BenchParams({set}).get_int("n", 1);
    } catch (const kflow::Error& e) {
      return e.what();
    }
    return "";
  };
  CHECK(kflow::BenchParams({"n=2^30"}).get_int("n", 1) == 1073741824);
  CHECK(kflow::BenchParams({"n=2147483647"}).get_int("n", 1) == 2147483647);
  for (const std::string v : {"2147483648", "2^31", "3^62", "99999999999999999999", "-2^3", "2^x"})
    CHECK_THAT(error("n=" + v), ContainsSubstring("bench: --set n=" + v +
                                                  ": expected an integer (or 2^k) from 1 to "
                                                  "2147483647"));
  CHECK_THAT(error("n=\x1b"
                   "c"),
             ContainsSubstring("--set n=\\x1bc: expected"));  // ESC c: reset
}

TEST_CASE("Range: named ranges accept, refuse and print as a user writes them", "[unit]") {
  using kflow::Range;
  CHECK(Range::positive().text() == "a number > 0");
  CHECK(Range::at_least(0).text() == "a number >= 0");
  CHECK(Range::between(0, 1).text() == "a number in [0, 1]");
  CHECK(Range::positive().at_most(2).text() == "a number in (0, 2]");
  CHECK(Range::any().text() == "a number");
  CHECK(Range::any().at_most(3).text() == "a number <= 3");
  CHECK(!Range::positive().contains(0));
  CHECK(Range::positive().contains(1e308));
  CHECK(Range::at_least(0).contains(0));
  CHECK(!Range::between(0, 1).contains(1.0000001));
  CHECK(!Range::positive().at_most(2).contains(0));
  CHECK(Range::positive().at_most(2).contains(2));
  auto c = kflow::Config::parse("[a]\nx = 0.0\ny = 1e300\nz = -1\n", "t.toml", {});
  const auto a = c.section("a");
  CHECK(a.get("y", 1.0, Range::positive()) == 1e300);  // no bound: any finite value
  CHECK(a.get("x", 5.0, Range::positive()) == 5.0);    // refused: recorded, fallback
  CHECK(a.get("z", 2.0, Range::at_least(0)) == 2.0);
  CHECK(a.require("w", Range::between(0, 1)) == 1.0);  // missing: recorded, a value inside
  try {
    c.check_unknown();
    FAIL("values out of range passed");
  } catch (const kflow::Error& e) {
    CHECK_THAT(e.what(), ContainsSubstring("a.x"));
    CHECK_THAT(e.what(), ContainsSubstring("expected a number > 0, got 0"));
    CHECK_THAT(e.what(), ContainsSubstring("expected a number >= 0, got -1"));
    CHECK_THAT(e.what(), ContainsSubstring("a.w"));
    CHECK_THAT(e.what(), ContainsSubstring("missing; expected a number in [0, 1]"));
  }
}

TEST_CASE("get_enum: a choice read into an enum through one table", "[unit]") {
  enum class Shape { round, square };
  const std::vector<std::pair<std::string, Shape>> table = {{"round", Shape::round},
                                                            {"square", Shape::square}};
  auto c = kflow::Config::parse("[a]\nshape = \"square\"\n[b]\nshape = \"sqare\"\n", "t.toml", {});
  CHECK(c.section("a").get_enum("shape", table, Shape::round) == Shape::square);
  CHECK(c.section("c").get_enum("shape", table, Shape::round) == Shape::round);  // the default
  CHECK(c.section("b").get_enum("shape", table, Shape::round) == Shape::round);  // recorded
  try {
    c.check_unknown();
    FAIL("a misspelt choice passed");
  } catch (const kflow::Error& e) {
    CHECK_THAT(e.what(), ContainsSubstring("b.shape"));
    CHECK_THAT(e.what(), ContainsSubstring("square"));
  }
  // A model's enum-read key: a misspelt initial.type names the choices.
  const auto msg = error_of(std::string(good) + "[initial]\ntype = \"sine_mod\"\n");
  CHECK_THAT(msg, ContainsSubstring("initial.type"));
  CHECK_THAT(msg, ContainsSubstring("sine_mode"));
}
