#include "lbm_inflow_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "kflow/model/error.hpp"
#include "kflow/model/number_text.hpp"
#include "kflow/model/table.hpp"

namespace kflow::lbm {

namespace {

// Where p lies between the sorted values v: the index i of the interval
// [v[i], v[i+1]] and the weight of v[i+1].
std::pair<std::size_t, double> locate(const std::vector<double>& v, double p) {
  if (v.size() == 1) return {0, 0.0};
  std::size_t i = std::size_t(std::upper_bound(v.begin(), v.end(), p) - v.begin());
  i = std::min(std::max(i, std::size_t(1)), v.size() - 1) - 1;
  const double w = (p - v[i]) / (v[i + 1] - v[i]);
  return {i, std::min(1.0, std::max(0.0, w))};
}

}  // namespace

std::vector<double> inflow_table(const Config::Section& side_s, const std::string& directory,
                                 const linalg::Grid& g, int d, int side) {
  const std::string file = side_s.get_string("file", "");
  if (file.empty()) {
    side_s.problem("file",
                   "missing; a table inflow needs its CSV file (relative to the case file)");
    return {};
  }
  const std::string path = file[0] == '/' ? file : directory + "/" + file;
  Table t;
  try {
    t = read_table(path, "the inflow table", 2);
  } catch (const Error& e) {
    side_s.problem("file", e.what());
    return {};
  }
  const char* axis = "xyz";
  const int e1 = d == 0 ? 1 : 0, e2 = d == 2 ? 1 : 2;  // the side's tangential axes
  // Columns: coordinates of the tangential axes in the grid, velocities.
  std::vector<int> coord;  // axes with a coordinate column
  std::vector<int> ccol;
  for (int e : {e1, e2})
    if (const int c = t.column(std::string(1, axis[e])); c >= 0) {
      if (e >= g.dim) {
        side_s.problem("file", path + ": column '" + axis[e] + "' is not an axis of this " +
                                   std::to_string(g.dim) + "D grid");
        return {};
      }
      coord.push_back(e), ccol.push_back(c);
    }
  if (t.column(std::string(1, axis[d])) >= 0) {
    side_s.problem("file", path + ": column '" + axis[d] +
                               "' runs across the side (normal to it); "
                               "the table's coordinates lie along the side: " +
                               std::string(1, axis[e1]) +
                               (g.dim == 3 ? std::string(" and/or ") + axis[e2] : ""));
    return {};
  }
  if (coord.empty()) {
    side_s.problem("file", path + ": no coordinate column; expected '" + axis[e1] + "'" +
                               (g.dim == 3 ? std::string(" and/or '") + axis[e2] + "'" : "") +
                               " (the position along the side)");
    return {};
  }
  const char* vel[3] = {"u", "v", "w"};
  int vcol[3] = {-1, -1, -1};
  std::string missing;
  for (int e = 0; e < g.dim; ++e)
    if ((vcol[e] = t.column(vel[e])) < 0)
      missing += std::string(missing.empty() ? "" : ", ") + vel[e];
  if (!missing.empty()) {
    side_s.problem("file", path + ": no velocity column " + missing + "; expected columns " +
                               (g.dim == 2 ? "u, v" : "u, v, w") + " (every component)");
    return {};
  }
  for (const auto& n : t.names) {
    bool known = n == "u" || n == "v" || (n == "w" && g.dim == 3);
    for (int c : ccol) known = known || t.names[std::size_t(c)] == n;
    if (!known) {
      side_s.problem("file", path + ": unknown column '" + n + "'; expected " +
                                 (g.dim == 2 ? "u, v" : "u, v, w") + " and the coordinates");
      return {};
    }
  }
  // The coordinates' distinct values, sorted; a tensor grid with two.
  std::vector<std::vector<double>> values(coord.size());
  for (std::size_t k = 0; k < coord.size(); ++k) {
    for (const auto& r : t.rows) values[k].push_back(r[std::size_t(ccol[k])]);
    std::sort(values[k].begin(), values[k].end());
    values[k].erase(std::unique(values[k].begin(), values[k].end()), values[k].end());
    const int e = coord[k];
    const double lo = g.origin[std::size_t(e)], hi = lo + g.length[std::size_t(e)];
    const double tol = 1e-9 * g.length[std::size_t(e)];
    if (values[k].size() < 2 || values[k].front() > lo + tol || values[k].back() < hi - tol) {
      side_s.problem("file", path + ": column '" + axis[e] + "' spans [" +
                                 number_text(values[k].front(), 9) + ", " +
                                 number_text(values[k].back(), 9) + "]; it must cover the side, [" +
                                 number_text(lo, 9) + ", " + number_text(hi, 9) +
                                 "], with at least two values");
      return {};
    }
  }
  const std::size_t n0 = values[0].size(), n1 = coord.size() == 2 ? values[1].size() : 1;
  if (t.rows.size() != n0 * n1) {
    side_s.problem("file",
                   path + ": " + std::to_string(t.rows.size()) + " rows for " + std::to_string(n0) +
                       (coord.size() == 2 ? " x " + std::to_string(n1) : "") +
                       " distinct coordinates; expected one row per " +
                       (coord.size() == 2 ? "pair of coordinates (a tensor grid)" : "position"));
    return {};
  }
  // The rows by their place in the (tensor) grid.
  std::vector<std::array<double, 3>> at(n0 * n1, {0.0, 0.0, 0.0});
  std::vector<char> seen(n0 * n1, 0);
  for (const auto& r : t.rows) {
    std::size_t k =
        std::size_t(std::lower_bound(values[0].begin(), values[0].end(), r[std::size_t(ccol[0])]) -
                    values[0].begin());
    if (coord.size() == 2)
      k += n0 * std::size_t(
                    std::lower_bound(values[1].begin(), values[1].end(), r[std::size_t(ccol[1])]) -
                    values[1].begin());
    if (seen[k]) {
      side_s.problem("file", path + ": a position is listed twice; expected one row per " +
                                 (coord.size() == 2 ? "pair of coordinates" : "position"));
      return {};
    }
    seen[k] = 1;
    for (int e = 0; e < g.dim; ++e) at[k][std::size_t(e)] = r[std::size_t(vcol[e])];
  }
  // Sampled at the half-cell points of the side's axes, (bi)linearly.
  const int c1 = e1 < g.dim ? g.cells[std::size_t(e1)] : 1,
            c2 = e2 < g.dim ? g.cells[std::size_t(e2)] : 1;
  const std::size_t m1 = std::size_t(2 * c1 + 1), m2 = std::size_t(2 * c2 + 1);
  std::vector<double> out(3 * m1 * m2, 0.0);
  const double inward = side ? -1.0 : 1.0;
  for (std::size_t k2 = 0; k2 < m2; ++k2)
    for (std::size_t k1 = 0; k1 < m1; ++k1) {
      double pos[3] = {0, 0, 0};
      pos[e1] = e1 < g.dim ? g.origin[std::size_t(e1)] + double(k1) * 0.5 * g.spacing(e1) : 0;
      pos[e2] = e2 < g.dim ? g.origin[std::size_t(e2)] + double(k2) * 0.5 * g.spacing(e2) : 0;
      const auto a = locate(values[0], pos[coord[0]]);
      const auto b = coord.size() == 2 ? locate(values[1], pos[coord[1]])
                                       : std::make_pair(std::size_t(0), 0.0);
      for (int e = 0; e < 3; ++e) {
        auto v = [&](std::size_t i, std::size_t j) {
          return at[i + n0 * j][std::size_t(e)];
        };
        const std::size_t i1 = std::min(a.first + 1, n0 - 1), j1 = std::min(b.first + 1, n1 - 1);
        const double lo = (1 - a.second) * v(a.first, b.first) + a.second * v(i1, b.first);
        const double hi = (1 - a.second) * v(a.first, j1) + a.second * v(i1, j1);
        out[3 * (k1 + m1 * k2) + std::size_t(e)] = (1 - b.second) * lo + b.second * hi;
      }
      const double normal = out[3 * (k1 + m1 * k2) + std::size_t(d)] * inward;
      if (normal < 0) {
        side_s.problem("file", path + ": the velocity at " + axis[coord[0]] + " = " +
                                   number_text(pos[coord[0]], 9) + " points out of the domain (" +
                                   vel[d] + " = " + number_text(normal * inward, 9) +
                                   "); an inflow's " + vel[d] + " must be " +
                                   (side ? "<= 0" : ">= 0") + " everywhere");
        return {};
      }
    }
  double most = 0;
  for (std::size_t k = 0; k < m1 * m2; ++k)
    most = std::max(most, out[3 * k + std::size_t(d)] * inward);
  if (!(most > 0)) {
    side_s.problem("file", path + ": no velocity into the domain anywhere; an inflow table needs " +
                               std::string(vel[d]) + (side ? " < 0" : " > 0") + " somewhere");
    return {};
  }
  return out;
}

}  // namespace kflow::lbm
