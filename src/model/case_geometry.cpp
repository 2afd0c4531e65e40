#include "kflow/model/case_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <ios>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kflow/geometry/stl.hpp"
#include "kflow/geometry/surface.hpp"
#include "kflow/model/case_grid.hpp"
#include "kflow/model/input_file.hpp"
#include "kflow/model/number_text.hpp"

namespace kflow {

namespace {

namespace geo = kflow::geometry;

const std::vector<std::string> shapes = {"box", "sphere", "circle", "cylinder", "stl", "obj"};
// The keys of each shape, then the placement keys every body takes.
const std::vector<std::pair<std::string, std::vector<std::string>>> shape_keys = {
    {"box", {"min", "max"}},
    {"sphere", {"center", "radius"}},
    {"circle", {"center", "radius"}},
    {"cylinder", {"center", "radius", "axis", "length"}},
    {"stl", {"file"}},
    {"obj", {"file"}}};
const std::vector<std::string> common_keys = {"shape", "name",   "translate",
                                              "scale", "rotate", "pivot"};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "x in [0.4, 0.6], y in [...]" (an axis the box does not bound: "unbounded")
std::string box_text(const geo::Box3& b, int dim) {
  std::string s;
  for (int d = 0; d < dim; ++d) {
    s += std::string(d ? ", " : "") + "xyz"[d];
    if (std::isinf(b.lo[d]) && std::isinf(b.hi[d]))
      s += " unbounded";
    else
      s += " in [" + number_text(b.lo[d]) + ", " + number_text(b.hi[d]) + "]";
  }
  return s;
}

// Every key a [[body]] table takes, of any shape, asked for up front: a body
// whose reading stops early (a bad shape, a bad value) then has none of its
// keys reported as unknown with the problem that stopped it; a key of
// another shape than the body's is reported by parse_bodies itself.
void declare_keys(const Config::Section& b) {
  for (const auto& k : common_keys) b.has(k);
  for (const auto& [s, keys] : shape_keys)
    for (const auto& k : keys) b.has(k);
  for (const char* k : {"degrees", "axis"}) b.section("rotate").has(k);
}

// A point of the case (dim entries) as a 3D point on the grid's plane.
geo::Vec3 point(const Config::Section& b, const std::string& key, int dim, double z0,
                geo::Vec3 fallback) {
  std::vector<double> fb(static_cast<std::size_t>(dim));
  for (int d = 0; d < dim; ++d) fb[std::size_t(d)] = fallback[d];
  const auto v = b.get_numbers(key, std::size_t(dim), std::size_t(dim), fb);
  geo::Vec3 p{v[0], v[1], dim == 3 ? v[2] : z0};
  return p;
}

}  // namespace

namespace {
// The domain's box (2D: the plane z = origin.z).
geo::Box3 domain_box(const linalg::Grid& grid) {
  geo::Box3 domain;
  for (int d = 0; d < 3; ++d) {
    domain.lo[d] = grid.origin[std::size_t(d)];
    domain.hi[d] = grid.origin[std::size_t(d)] + (d < grid.dim ? grid.length[std::size_t(d)] : 0);
  }
  return domain;
}
}  // namespace

geo::NodeGrid cell_centres(const linalg::Grid& grid, bool ghosts) {
  geo::NodeGrid n;
  for (int d = 0; d < 3; ++d) {
    const bool active = d < grid.dim;
    const int g = ghosts && active ? grid.ghost : 0;
    n.n[d] = active ? grid.cells[std::size_t(d)] + 2 * g : 1;
    n.h[d] = active ? grid.spacing(d) : grid.spacing(0);
    n.origin[d] = active ? grid.centre(d, -g) : grid.origin[std::size_t(d)];
  }
  return n;
}

geo::NodeGrid block_centres(const linalg::dist::LocalGrid& block, geo::LinkOptions& own) {
  const auto& G = block.global;
  const int g = block.local.ghost;
  geo::NodeGrid n = cell_centres(G, false);  // the global grid's origin and spacing
  for (int d = 0; d < G.dim; ++d) {
    n.n[d] = block.local.cells[std::size_t(d)] + 2 * g;
    n.first[d] = block.offset[std::size_t(d)] - g;
    own.from[d] = g;
    own.to[d] = g + block.local.cells[std::size_t(d)];
  }
  return n;
}

std::vector<geo::Body> parse_bodies(Config& c, const linalg::Grid& grid, const BodyRules& rules,
                                    std::vector<std::string>& notes) {
  const auto tables = c.root().tables("body");
  std::vector<geo::Body> bodies;
  // Every problem is recorded with the case's others (Config's problem(),
  // once per key) and all are thrown together at the end, with the unknown
  // keys of the bodies; a check that combines keys runs only where none of
  // them failed to read (reported()), never on a getter's fallback.
  const int dim = grid.dim;
  const double z0 = grid.origin[2];
  if (tables.size() > std::size_t(geo::max_bodies))
    c.root().problem("body", std::to_string(tables.size()) + " bodies: at most " +
                                 std::to_string(geo::max_bodies) + " (flags are bytes)");
  const geo::Box3 domain = domain_box(grid);
  for (std::size_t n = 0; n < tables.size(); ++n) {
    const auto& b = tables[n];
    declare_keys(b);
    if (!b.has("shape")) {
      b.problem("shape", "missing; expected one of " + join(shapes));
      continue;
    }
    const std::string kind = b.get_choice("shape", shapes, "");
    if (kind.empty()) continue;  // (recorded by get_choice)
    std::vector<std::string> mine = common_keys;
    for (const auto& [s, keys] : shape_keys)
      if (s == kind) mine.insert(mine.end(), keys.begin(), keys.end());
    // Keys of another shape, reported after the body's own problems (a
    // check of the whole body, keyed "body[n]", needs none of its own keys
    // to have failed, whatever the others).
    std::vector<std::pair<std::string, std::string>> others;
    std::vector<std::string> reported;  // (a key of several shapes, once)
    for (const auto& [s, keys] : shape_keys)
      for (const auto& k : keys)
        if (std::find(mine.begin(), mine.end(), k) == mine.end() && b.has(k) &&
            std::find(reported.begin(), reported.end(), k) == reported.end()) {
          reported.push_back(k);
          std::vector<std::string> own;
          for (const auto& [s2, keys2] : shape_keys)
            if (s2 == kind) own = keys2;
          others.emplace_back(k, "a " + kind + " has no '" + k + "' (a " + kind + " takes " +
                                     join(own) + ", and " + join(common_keys) + ")");
        }
    geo::Body body;
    std::string source;
    // The body read and placed; false where a problem stopped it.
    const auto read = [&]() -> bool {
      body.id = int(n);
      body.name = b.get_string("name", kind + " " + std::to_string(n));
      const bool is3 = dim == 3;
      const bool from_file = kind == "stl" || kind == "obj";  // a mesh read from a file
      const std::string format = kind == "obj" ? "OBJ" : "STL";
      if ((kind == "circle" && is3) || (kind == "cylinder" && !is3)) {
        b.problem("shape", is3 ? "\"circle\" is a 2D shape; in 3D use \"cylinder\" (with an axis)"
                               : "\"cylinder\" is a 3D shape; in 2D use \"circle\"");
        return false;
      }
      geo::Vec3 pivot{0, 0, is3 ? 0.0 : z0};
      try {
        if (kind == "box") {
          const double inf = std::numeric_limits<double>::infinity();
          const auto lo = point(b, "min", dim, z0, {0, 0, 0});
          const auto hi = point(b, "max", dim, z0, {1, 1, 1});
          if (!b.has("min")) b.problem("min", "missing; expected the box's low corner");
          if (!b.has("max")) b.problem("max", "missing; expected the box's high corner");
          geo::Vec3 l = lo, h = hi;
          if (!is3) l.z = -inf, h.z = inf;
          bool ordered = true;
          for (int d = 0; d < dim; ++d) ordered = ordered && lo[d] < hi[d];
          if (b.reported("min") || b.reported("max")) return false;  // (no corners to compare)
          if (!ordered) {
            b.problem("max", "expected max > min on every axis");
            return false;
          }
          body.shape = geo::box(l, h);
        } else if (kind == "sphere" || kind == "circle" || kind == "cylinder") {
          if (!b.has("center")) b.problem("center", "missing; expected the centre");
          const auto ctr = point(b, "center", dim, z0, {0, 0, 0});
          const double r = b.require("radius", Range::positive());
          if (kind == "sphere") {
            body.shape = geo::sphere(ctr, r);
          } else if (kind == "circle") {
            body.shape = geo::circle(ctr.x, ctr.y, r);
          } else {
            const auto a = b.get_numbers("axis", 3, 3, {0, 0, 1});
            const geo::Vec3 axis{a[0], a[1], a[2]};
            if (!(geo::norm(geo::unit(axis)) > 0.5)) {  // (any length: [1e-200, 0, 0] is x)
              b.problem("axis", "expected a non-zero direction, got [0, 0, 0]");
              return false;
            }
            const double length =
                b.get("length", std::numeric_limits<double>::infinity(), Range::positive());
            body.shape = geo::cylinder(ctr, axis, r, length);
          }
          pivot = ctr;
        } else {  // stl, obj
          const std::string file = b.get_string("file", "");
          if (file.empty()) {
            b.problem("file",
                      "missing; expected the " + format + " file (relative to the case file)");
            return false;
          }
          std::filesystem::path p(file);
          if (p.is_relative()) p = std::filesystem::path(c.directory()) / p;
          source = p.lexically_normal().string();
          body.is_mesh = true;
          // A regular file of a plausible size (a FIFO, /dev/zero or a
          // directory is never opened), then its triangles.
          const std::string what = "the " + format + " file";
          if (const auto problem = input_file_problem(source, what, max_mesh_file_bytes);
              !problem.empty()) {
            b.problem("file", problem);
            return false;
          }
          try {
            body.mesh = kind == "obj" ? geo::read_obj(source) : geo::read_stl(source);
            geo::check_mesh(body.mesh);
          } catch (const geo::MeshError& e) {
            b.problem("file", e.what());
            return false;
          } catch (const std::ios_base::failure&) {  // a read error the stream throws
            b.problem("file", source + ": cannot read " + what + ": a read error");
            return false;
          }
        }
        if (!is3 && !from_file) pivot.z = z0;
        if (kind == "box") pivot = body.shape.center, pivot.z = is3 ? pivot.z : z0;
        pivot = point(b, "pivot", dim, z0, pivot);
        // Placement: scale and rotate about the pivot, then translate.
        geo::Transform t;
        const double scale = b.get("scale", 1.0, Range::positive());
        t = t.then(geo::Transform::scaling({scale, scale, scale}, pivot));
        if (b.has("rotate")) {
          const auto rs = b.section("rotate");
          if (!rs.has("degrees") && !rs.has("axis")) {
            b.problem("rotate", is3 ? "expected a table { axis = [x, y, z], degrees = angle }"
                                    : "expected a table { degrees = angle } (2D: about z)");
          } else {
            const double deg = rs.require("degrees");
            geo::Vec3 axis{0, 0, 1};
            if (is3) {
              if (!rs.has("axis")) rs.problem("axis", "missing; expected [x, y, z]");
              const auto a = rs.get_numbers("axis", 3, 3, {0, 0, 1});
              axis = {a[0], a[1], a[2]};
              if (!(geo::norm(geo::unit(axis)) > 0.5)) {  // (any length: [1e-200, 0, 0] is x)
                rs.problem("axis", "expected a non-zero direction, got [0, 0, 0]");
                axis = {0, 0, 1};
              }
            } else if (rs.has("axis")) {
              rs.problem("axis", "a 2D rotation is about z: give degrees only");
            }
            t = t.then(geo::Transform::rotation(axis, deg * (3.141592653589793 / 180.0), pivot));
          }
        }
        t = t.then(geo::Transform::translation(point(b, "translate", dim, 0.0, {0, 0, 0})));
        if (body.is_mesh)
          body.mesh = geo::transformed(std::move(body.mesh), t);
        else
          body.shape = geo::transformed(body.shape, t);
      } catch (const std::invalid_argument& e) {  // (a value the getters let through)
        b.problem("shape", e.what());
        return false;
      }
      // (a key of the body's own that failed: its box is a fallback's)
      if (std::any_of(mine.begin(), mine.end(), [&](const auto& k) { return b.reported(k); }))
        return false;
      // Placement in the domain.
      const geo::Box3 box = geo::bounds(body);
      const auto where = geo::placement(box, domain, dim);
      if (where.outside) {
        b.problem("",
                  "the body lies outside the domain: its bounding box is " + box_text(box, dim) +
                      ", the domain's " + box_text(domain, dim) +
                      (dim == 2 ? " (2D: the body must cross the plane z = " + number_text(z0) + ")"
                                : ""));
        return false;
      }
      std::string sides;  // (every side it reaches, in one problem of the body)
      for (int a = 0; a < dim; ++a)
        for (int s = 0; s < 2; ++s)
          if (rules.keep_off[std::size_t(a)][std::size_t(s)] && where.touches[a][s])
            sides += std::string(sides.empty() ? "" : " and the ") + side_names[a][s] + " side (" +
                     "xyz"[a] + " = " + number_text(s ? domain.hi[a] : domain.lo[a]) + ")";
      if (!sides.empty())
        b.problem("", "the body reaches the " + sides + ", " + rules.why +
                          ": its bounding box is " + box_text(box, dim));
      return true;
    };
    if (read()) {
      const geo::Box3 box = geo::bounds(body);
      std::string note = "body " + std::to_string(n) + " (" + kind + " '" + body.name +
                         "'): bounding box " + box_text(box, dim);
      if (body.is_mesh)
        note += "; " + std::to_string(body.mesh.triangles()) + " triangles from " + source;
      notes.push_back(note);
      bodies.push_back(std::move(body));
    }
    for (const auto& [k, what] : others) b.problem(k, what);
  }
  if (c.root().reported("body")) {
    c.section("body").report_unknown();
    c.throw_problems();
  }
  return bodies;
}

std::string body_surface_stl(const std::vector<geo::Body>& bodies, const linalg::Grid& grid) {
  double h = Kokkos::Experimental::infinity_v<double>;
  for (int d = 0; d < grid.dim; ++d) h = std::min(h, grid.spacing(d));
  return geo::stl_binary(geo::surface_mesh(bodies, domain_box(grid), grid.dim, h),
                         "kflow: the bodies of the case, in domain coordinates");
}

}  // namespace kflow
