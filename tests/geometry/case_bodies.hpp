#pragma once
// The case-geometry tests' case reading (tests/geometry/test_case_geometry.cpp,
// test_case_geometry_problems.cpp): a case's [[body]] tables parsed on a
// 20-cell grid, with the bodies, the notes and the error's message.

#include <string>
#include <vector>

#include "geometry/geometry_helpers.hpp"
#include "kflow/model/case_geometry.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/error.hpp"

namespace kflow::test::bodies {

// The case file's name: in cases/geometry, so that file = "sphere-binary.stl"
// finds the committed mesh.
inline std::string case_name() {
  return kflow::test::source_dir() + "/cases/geometry/test.toml";
}

inline kflow::linalg::Grid grid(int dim) {
  kflow::linalg::Grid g;
  g.dim = dim;
  g.cells = {20, 20, dim == 3 ? 20 : 1};
  return g;
}

struct Parsed {
  std::vector<kflow::geometry::Body> bodies;
  std::vector<std::string> notes;
  std::string error;
};

inline Parsed parse(const std::string& text, int dim, const kflow::BodyRules& rules = {},
                    const std::string& name = case_name()) {
  Parsed p;
  try {
    auto c = kflow::Config::parse(text, name);
    p.bodies = kflow::parse_bodies(c, grid(dim), rules, p.notes);
    c.check_unknown();
  } catch (const kflow::Error& e) {
    p.error = e.what();
  }
  return p;
}

// How many times `what` occurs in `s`.
inline int count_of(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace kflow::test::bodies
