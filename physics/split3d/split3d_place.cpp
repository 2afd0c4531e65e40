// physics/split3d: the bodies on the nodes (Setup::place_cells: walls at
// rest or adiabatic, and the checks that refuse a geometry) and, with
// interpolated walls, the link fractions of the nodes beside them
// (Setup::place_cut_walls).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kflow/model/case_geometry.hpp"
#include "kflow/model/error.hpp"
#include "split3d.hpp"

namespace kflow::split3d {

// The nodes the bodies cover (`solid_nodes`: the interior nodes, i fastest,
// body id + 1 or 0) become walls at rest (the first body listed wins).
// Refused, all together: an adiabatic body one node thick between fluid
// nodes, no fluid left, fluid split into disconnected regions (periodic
// axes join their ends).
void Setup::place_cells(const std::vector<unsigned char>& solid_nodes) {
  const int e[3] = {nodes.cells[0] + 2, nodes.cells[1] + 2, nodes.cells[2] + 2};
  const std::size_t n = std::size_t(e[0]) * e[1] * e[2];
  auto idx = [&](int i, int j, int k) {
    return std::size_t(i) + std::size_t(e[0]) * (std::size_t(j) + std::size_t(e[1]) * k);
  };
  const double h[3] = {nodes.spacing(0), nodes.spacing(1), nodes.spacing(2)};
  auto name = [&](int body) {
    for (const auto& b : bodies)
      if (b.id == body) return "[[body]] '" + b.name + "'";
    return std::string("a body");
  };
  solid.assign(n, not_solid);
  solid_body.assign(n, 0);
  for (int k = 1; k < e[2] - 1; ++k)
    for (int j = 1; j < e[1] - 1; ++j)
      for (int i = 1; i < e[0] - 1; ++i) {
        const unsigned char id =
            solid_nodes[std::size_t(i - 1) +
                        std::size_t(e[0] - 2) *
                            (std::size_t(j - 1) + std::size_t(e[1] - 2) * (k - 1))];
        if (id == 0 || std::size_t(id) > body_heat.size()) continue;
        const std::size_t m = idx(i, j, k);
        solid[m] = body_heat[id - 1u].adiabatic ? solid_adiabatic : solid_fixed;
        solid_body[m] = id;
      }
  // Periodic axes: the ghost nodes 0 and n + 1 copy nodes n and 1.
  for (int d = 0; d < 3; ++d) {
    if (!periodic[d]) continue;
    for (std::size_t m = 0; m < n; ++m) {
      int x[3] = {int(m % e[0]), int(m / e[0] % e[1]), int(m / e[0] / e[1])};
      if (x[d] != 0 && x[d] != e[d] - 1) continue;
      x[d] = x[d] == 0 ? e[d] - 2 : 1;
      solid[m] = solid[idx(x[0], x[1], x[2])];
      solid_body[m] = solid_body[idx(x[0], x[1], x[2])];
    }
  }
  std::string problems;
  auto problem = [&](const std::string& p) {
    problems += "\n  " + p;
  };
  std::vector<std::array<bool, 3>> thin(body_heat.size(), {false, false, false});
  // The neighbour of interior node x along d (sgn -1, +1) if it is an
  // interior node (periodic axes wrap), else false.
  auto step = [&](int(&y)[3], int d, int sgn) {
    y[d] += sgn;
    if (periodic[d]) y[d] = y[d] < 1 ? e[d] - 2 : y[d] > e[d] - 2 ? 1 : y[d];
    return y[d] >= 1 && y[d] <= e[d] - 2;
  };
  // An adiabatic node copies the T of its one fluid neighbour per line (the
  // lines through nodes on the faces have at most one).
  for (int k = 1; k < e[2] - 1; ++k)
    for (int j = 1; j < e[1] - 1; ++j)
      for (int i = 1; i < e[0] - 1; ++i) {
        if (solid[idx(i, j, k)] != solid_adiabatic) continue;
        for (int d = 0; d < 3; ++d) {
          int lo[3] = {i, j, k}, hi[3] = {i, j, k};
          if (!step(lo, d, -1) || !step(hi, d, 1)) continue;
          if (solid[idx(lo[0], lo[1], lo[2])] || solid[idx(hi[0], hi[1], hi[2])]) continue;
          const int body = solid_body[idx(i, j, k)] - 1;
          if (thin[std::size_t(body)][std::size_t(d)]) continue;  // (once per body and axis)
          thin[std::size_t(body)][std::size_t(d)] = true;
          const double x = nodes.origin[d] + ((d == 0 ? i : d == 1 ? j : k) - 0.5) * h[d];
          problem(name(body) + " (adiabatic) is one node thick along " + std::string(1, "xyz"[d]) +
                  " (first at " + std::string(1, "xyz"[d]) + " = " + number_text(x) +
                  ") between fluid nodes: an adiabatic node copies the temperature of one "
                  "fluid neighbour per line; make the body at least 2 nodes (h = " +
                  number_text(h[d]) + ") thick there");
        }
      }
  // The fluid among the interior nodes must be one connected region.
  std::vector<int> region(n, -1);
  int regions = 0;
  long fluid = 0;
  std::vector<std::size_t> stack;
  for (int k = 1; k < e[2] - 1; ++k)
    for (int j = 1; j < e[1] - 1; ++j)
      for (int i = 1; i < e[0] - 1; ++i) {
        const std::size_t m = idx(i, j, k);
        if (solid[m] || region[m] >= 0) continue;
        stack.assign(1, m);
        region[m] = regions;
        while (!stack.empty()) {
          const std::size_t q = stack.back();
          stack.pop_back();
          ++fluid;
          const int x[3] = {int(q % e[0]), int(q / e[0] % e[1]), int(q / e[0] / e[1])};
          for (int d = 0; d < 3; ++d)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
              int y[3] = {x[0], x[1], x[2]};
              if (!step(y, d, sgn)) continue;
              const std::size_t r = idx(y[0], y[1], y[2]);
              if (!solid[r] && region[r] < 0) region[r] = regions, stack.push_back(r);
            }
        }
        ++regions;
      }
  if (fluid == 0) problem("the bodies cover every interior node: no fluid is left");
  if (regions > 1)
    problem("the bodies split the fluid into " + std::to_string(regions) +
            " disconnected regions; every region needs its own inflow and outflow, which "
            "split3d does not check: join them");
  if (!problems.empty()) throw Error("the case's bodies on split3d's nodes:" + problems);
  if (cut_walls) place_cut_walls();
  long n_solid = 0, adiabatic = 0;
  for (auto v : solid) n_solid += v != not_solid, adiabatic += v == solid_adiabatic;
  notes.push_back(std::to_string(bodies.size()) + " bod" + (bodies.size() == 1 ? "y" : "ies") +
                  ": " + std::to_string(n_solid) + " solid nodes (walls at rest; " +
                  std::to_string(adiabatic) +
                  " of them adiabatic, the others at a fixed temperature)");
}

// The interpolated walls' link fractions: the geometry layer's links along
// +-x, +-y, +-z from every interior fluid node into an interior body node.
void Setup::place_cut_walls() {
  const int e[3] = {nodes.cells[0] + 2, nodes.cells[1] + 2, nodes.cells[2] + 2};
  const std::size_t n = std::size_t(e[0]) * e[1] * e[2];
  const long off[3] = {1, e[0], long(e[0]) * e[1]};
  const Kokkos::DefaultHostExecutionSpace host;
  const geometry::Directions dirs(
      {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}});
  geometry::LinkOptions own;
  for (int d = 0; d < 3; ++d) own.from[d] = 1, own.to[d] = e[d] - 1;
  const auto geo = body_geometry(host, bodies, cell_centres(nodes, true), dirs, own);
  const auto node = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.node);
  const auto dir = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.dir);
  const auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.q);
  for (int d = 0; d < 3; ++d) cut_lo[d].assign(n, 1.0f), cut_hi[d].assign(n, 1.0f);
  long cut = 0;
  double q_min = 1;
  for (std::int64_t l = 0; l < geo.links.count; ++l) {
    const long m = node(l);
    const int* c = dirs.c[dir(l)];
    const int ax = c[0] ? 0 : c[1] ? 1 : 2, sg = c[ax];
    const int at = int(m / (ax == 0 ? 1 : ax == 1 ? e[0] : long(e[0]) * e[1]) % e[ax]) + sg;
    const long nb = m + sg * off[ax];
    // into an interior node that split3d made a body's (not a side's node,
    // not a periodic ghost)
    if (at < 1 || at > e[ax] - 2 || solid[std::size_t(nb)] == not_solid ||
        solid[std::size_t(m)] != not_solid)
      continue;
    (sg > 0 ? cut_hi : cut_lo)[ax][std::size_t(m)] = float(q(l));
    ++cut, q_min = std::min(q_min, double(q(l)));
  }
  cut_smallest = q_min;
  notes.push_back("interpolated walls (numerics.body_walls): " + std::to_string(cut) +
                  " links from fluid nodes cut by the bodies' surface, the smallest at " +
                  number_text(q_min) + " of a node spacing");
}

}  // namespace kflow::split3d
