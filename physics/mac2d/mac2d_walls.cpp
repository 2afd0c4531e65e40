// physics/mac2d: the bodies' walls at their true position
// (numerics.body_walls = "interpolated", docs/models/mac2d.md).
//
// The staircase treatment puts a body's wall on the faces of the cells whose
// centres it covers: the wall moves by up to half a cell, and the drag and
// lift of a curved body stay first order.  Here each velocity face is
// classified by its own position (the geometry layer's flags at the u and v
// nodes, and its links along +-x and +-y with the wall's distance q):
//  - solid: the face's node lies in a body; its velocity stays 0;
//  - regular: the node and its four neighbours of the same component lie in
//    the fluid, and so do the two cells it separates: the momentum equation
//    and the pressure correction as everywhere;
//  - near the wall: the others in the fluid.  Their value is the quadratic
//    through the wall (velocity 0, at q face spacings along the grid line
//    that crosses it, the nearest such line) and the next two faces away
//    from it on that line, at 1 + q and 2 + q spacings:
//      u = 2q/(1 + q) u_1 - q/(2 + q) u_2
//    (direct forcing, Fadlun et al. 2000, with a quadratic reconstruction
//    along the line where theirs is linear), set from the last step's field
//    before each step and held through it.  Where the second face is not fluid, the linear
//    q/(1 + q) u_1.  (The linear form everywhere put DFG 2D-1's drag from
//    the momentum balance 3.2 / 0.57 % high at D = 10 / 20 cells, the
//    quadratic 0.20 / 0.04 % low: docs/models/mac2d.md.)  For the pressure
//    equation these faces are prescribed fluxes, as the staircase's walls
//    are (their cells' mask bits cleared): the operator stays the masked
//    5-point Laplacian of the fluid cells, which red-black SOR and the
//    multigrid solve unchanged, and every fluid cell's divergence vanishes
//    after the projection.  A fluid cell that the prescribed faces cut off
//    (every face next to the wall) leaves the equation: its fluxes stand, a
//    mass source or sink beside the wall (Kim, Kim & Choi 2001).  (Faces next
//    to the wall taken as unknowns with F = target + dt grad p, so that the
//    projection returns the target, over-constrain the cells whose every
//    free face is one: their pressure drifts without bound, measured
//    +-40 after t = 15 on DFG 2D-1.)
// The forces are integrated over the bodies' true surface (SurfacePiece):
// the pressure extrapolated to the wall and the wall shear from the
// velocity at 1.5 and 3 cells along the normal; the momentum balance of a
// box around the bodies (place_force_box) gives them too (mac2d_bodies.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kflow/geometry/surface.hpp"
#include "kflow/linalg/stencil.hpp"
#include "kflow/model/case_geometry.hpp"
#include "mac2d.hpp"

namespace kflow::mac2d {

namespace {

namespace mb = linalg::mask_bits;

// The bodies' surface cut by the plane z = z0: for each triangle that
// crosses it, the piece between its two crossing points (a vertex on the
// plane counts as above it, so that each piece is found once).  The normal
// is the triangle's, in the plane; the caller orients it out of the body.
std::vector<SurfacePiece> plane_cut(const geometry::TriangleMesh& m, double z0) {
  std::vector<SurfacePiece> out;
  for (std::size_t t = 0; t < m.triangles(); ++t) {
    const geometry::Vec3* v = &m.vertices[3 * t];
    double p[2][2];
    int found = 0;
    for (int e = 0; e < 3 && found < 2; ++e) {
      const geometry::Vec3 &a = v[e], &b = v[(e + 1) % 3];
      const bool above_a = a.z >= z0, above_b = b.z >= z0;
      if (above_a == above_b) continue;
      const double s = (z0 - a.z) / (b.z - a.z);
      p[found][0] = a.x + s * (b.x - a.x), p[found][1] = a.y + s * (b.y - a.y);
      ++found;
    }
    if (found < 2) continue;
    const double dx = p[1][0] - p[0][0], dy = p[1][1] - p[0][1], len = std::hypot(dx, dy);
    if (!(len > 0)) continue;
    const geometry::Vec3 e1 = v[1] - v[0], e2 = v[2] - v[0];
    double nx = e1.y * e2.z - e1.z * e2.y, ny = e1.z * e2.x - e1.x * e2.z;
    const double nn = std::hypot(nx, ny);
    if (nn > 0)
      nx /= nn, ny /= nn;
    else
      nx = dy / len, ny = -dx / len;
    out.push_back({(p[0][0] + p[1][0]) / 2, (p[0][1] + p[1][1]) / 2, nx, ny, len});
  }
  return out;
}

}  // namespace

void Setup::place_walls() {
  const auto& g = grid;
  const int nx = g.cells[0], ny = g.cells[1], ex = nx + 2, ey = ny + 2;
  const double hx = g.spacing(0), hy = g.spacing(1);
  auto cell = [&](int i, int j) -> std::uint8_t& {
    return flags[std::size_t(i) + std::size_t(ex) * j];
  };
  // The cells whose centres lie in the fluid (the staircase's).
  std::vector<char> centre(flags.size(), 0);
  for (std::size_t k = 0; k < flags.size(); ++k) centre[k] = (flags[k] & mb::self) != 0;
  auto fluid_centre = [&](int i, int j) {
    return centre[std::size_t(i) + std::size_t(ex) * j] != 0;
  };
  const Kokkos::DefaultHostExecutionSpace host;
  const geometry::Directions dirs({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}});
  using Flags = decltype(Kokkos::create_mirror_view(
      std::declval<geometry::SolidFlags<Kokkos::DefaultHostExecutionSpace::memory_space>>()));
  Flags solid_flags[2];
  // The nearest wall of each node along a grid line whose face on the other
  // side (the interpolation's partner) is an interior fluid face.
  std::vector<double> best_q[2];
  std::vector<int> best_partner[2], best_dir[2];
  // The faces between two interior cells; the others are the sides'.
  auto interior = [&](int c, int i, int j) {
    return i >= 1 && i <= nx - (c == 0) && j >= 1 && j <= ny - (c == 1);
  };
  for (int c = 0; c < 2; ++c) {
    // The nodes of component c: u(i, j) at (i hx, (j - 1/2) hy), v(i, j) at
    // ((i - 1/2) hx, j hy) from the origin, ghost faces included.
    geometry::NodeGrid nodes = cell_centres(g, true);
    nodes.origin[c] += 0.5 * g.spacing(c);
    const auto geo = body_geometry(host, bodies, nodes, dirs);
    solid_flags[c] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.flags);
    const auto link_node = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.node);
    const auto link_dir = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.dir);
    const auto link_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.q);
    best_q[c].assign(std::size_t(ex) * ey, std::numeric_limits<double>::infinity());
    best_partner[c].assign(std::size_t(ex) * ey, -1);
    best_dir[c].assign(std::size_t(ex) * ey, -1);
    for (std::int64_t l = 0; l < geo.links.count; ++l) {
      const int n = link_node(l), i = n % ex, j = n / ex;
      const int* d = dirs.c[link_dir(l)];
      const int pi = i - d[0], pj = j - d[1];
      if (!interior(c, pi, pj) || solid_flags[c](pi, pj, 0)) continue;
      if (link_q(l) < best_q[c][std::size_t(n)])
        best_q[c][std::size_t(n)] = link_q(l), best_partner[c][std::size_t(n)] = pi + ex * pj,
        best_dir[c][std::size_t(n)] = link_dir(l);
    }
  }
  auto solid = [&](int c, int i, int j) {
    return solid_flags[c](i, j, 0) != 0;
  };
  // The faces next to the wall: in the fluid, but a neighbour of the same
  // component in a body, or a cell beside it a body's.  Prescribed fluxes
  // of the pressure equation (their cells' mask bits cleared), as the
  // staircase's walls are.
  long fallback = 0;
  for (int c = 0; c < 2; ++c) {
    const int di = c == 0, dj = c == 1;
    const std::uint8_t lo = c == 0 ? mb::east : mb::north, hi = c == 0 ? mb::west : mb::south;
    WallFaces& w = wall_faces[c];
    w = {};
    for (int j = 1; j <= ny - dj; ++j)
      for (int i = 1; i <= nx - di; ++i) {
        bool regular = !solid(c, i, j) && fluid_centre(i, j) && fluid_centre(i + di, j + dj);
        const int nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
        for (const auto& b : nb)
          if (interior(c, b[0], b[1]) && solid(c, b[0], b[1])) regular = false;
        if (regular) continue;
        cell(i, j) &= std::uint8_t(~lo);
        cell(i + di, j + dj) &= std::uint8_t(~hi);
        if (solid(c, i, j)) continue;  // (its velocity stays 0)
        const std::size_t k = std::size_t(i) + std::size_t(ex) * j;
        w.face.push_back(int(k));
        if (best_partner[c][k] >= 0) {
          const double q = best_q[c][k];
          const int* d = dirs.c[best_dir[c][k]];
          const int ri = i - 2 * d[0], rj = j - 2 * d[1];
          w.partner.push_back(best_partner[c][k]);
          if (interior(c, ri, rj) && !solid(c, ri, rj)) {
            w.weight.push_back(2 * q / (1 + q));
            w.partner2.push_back(ri + ex * rj);
            w.weight2.push_back(-q / (2 + q));
          } else {
            w.weight.push_back(q / (1 + q));
            w.partner2.push_back(best_partner[c][k]);
            w.weight2.push_back(0);
          }
        } else {  // no fluid face beyond it: the staircase's value
          w.partner.push_back(int(k));
          w.weight.push_back(0);
          w.partner2.push_back(int(k));
          w.weight2.push_back(0);
          ++fallback;
        }
      }
  }
  // Fluid cells that the prescribed faces cut off from the rest of their
  // region (a cell with every face next to the wall, a pocket of a few)
  // leave the pressure equation: their faces' fluxes stand as they are, a
  // mass source or sink beside the wall as in Kim, Kim & Choi (2001).
  // Each region of the staircase's cells keeps its largest part.
  {
    std::vector<int> size;
    const std::vector<int> part = fluid_parts(size);
    // (place_cells has refused a staircase of more than one region)
    int keep = 0;
    for (std::size_t r = 1; r < size.size(); ++r)
      if (size[r] > size[std::size_t(keep)]) keep = int(r);
    long dropped = 0;
    for (std::size_t k = 0; k < flags.size(); ++k)
      if (part[k] >= 0 && part[k] != keep) flags[k] = 0, --fluid_cells, ++dropped;
    if (dropped > 0)
      notes.push_back(std::to_string(dropped) +
                      " fluid cell(s) beside a body have every face next to the wall (or only "
                      "such cells beside them): their fluxes stand as the walls set them, a "
                      "mass source or sink there (Kim, Kim & Choi 2001)");
  }
  if (fallback > 0)
    notes.push_back(std::to_string(fallback) +
                    " face(s) next to a body have no fluid face beyond them on a grid line that "
                    "crosses the wall (a gap narrower than two cells) and take the staircase "
                    "wall's value 0 (first order there)");

  // The surface in the plane, in pieces of about a hundredth of a cell from
  // the true curve, each normal turned out of the body: the side of the
  // piece whose cell 1.5 cells along the normal is fluid.
  const double h = std::min(hx, hy);
  geometry::Box3 domain;
  for (int d = 0; d < 3; ++d) {
    domain.lo[d] = g.origin[std::size_t(d)];
    domain.hi[d] = d < 2 ? g.origin[std::size_t(d)] + g.length[std::size_t(d)] : domain.lo[d];
  }
  surface = plane_cut(geometry::surface_mesh(bodies, domain, 2, 0.1 * h), domain.lo.z);
  auto fluid_at = [&](double x, double y) {
    const int i = int(std::floor((x - g.origin[0]) / hx)) + 1,
              j = int(std::floor((y - g.origin[1]) / hy)) + 1;
    return i >= 1 && i <= nx && j >= 1 && j <= ny && fluid_centre(i, j);
  };
  for (auto& s : surface)
    if (!fluid_at(s.x + 1.5 * h * s.nx, s.y + 1.5 * h * s.ny) &&
        fluid_at(s.x - 1.5 * h * s.nx, s.y - 1.5 * h * s.ny))
      s.nx = -s.nx, s.ny = -s.ny;
}

void Setup::place_probes() {
  const auto& g = grid;
  const int nx = g.cells[0], ny = g.cells[1], ex = nx + 2;
  const double hx = g.spacing(0), hy = g.spacing(1), ox = g.origin[0], oy = g.origin[1];
  auto fluid = [&](int i, int j) {
    return i >= 1 && i <= nx && j >= 1 && j <= ny &&
           (flags[std::size_t(i) + std::size_t(ex) * j] & mb::self);
  };
  for (std::size_t k = 0; k < probes.size() / 2; ++k) {
    const double x = probes[2 * k], y = probes[2 * k + 1];
    double* at = probe_at[k];
    at[0] = x, at[1] = y, at[2] = at[3] = 0;
    probe_wall[k] = 0;
    const int i = int(std::floor((x - ox) / hx + 0.5)), j = int(std::floor((y - oy) / hy + 0.5));
    double best = std::numeric_limits<double>::infinity();
    if (!surface.empty()) {  // on or next to a wall: extrapolated along its normal
      for (const auto& s : surface) {
        const double d = std::hypot(s.x - x, s.y - y);
        if (d < best) best = d, at[2] = s.nx, at[3] = s.ny;
      }
      probe_wall[k] = best < 2.5 * std::min(hx, hy);
      continue;
    }
    if (fluid(i, j) && fluid(i + 1, j) && fluid(i, j + 1) && fluid(i + 1, j + 1)) continue;
    for (int b = j - 2; b <= j + 3; ++b)  // staircase walls: the nearest fluid cell's
      for (int a = i - 2; a <= i + 3; ++a) {
        const double cx = ox + (a - 0.5) * hx, cy = oy + (b - 0.5) * hy;
        const double d = std::hypot(cx - x, cy - y);
        if (fluid(a, b) && d < best) best = d, at[0] = cx, at[1] = cy;
      }
  }
}

void Setup::place_force_box() {
  if (!(force_length > 0) || bodies.empty()) return;
  const auto& g = grid;
  const int nx = g.cells[0], ny = g.cells[1];
  geometry::Box3 all = geometry::bounds(bodies[0]);
  for (const auto& b : bodies) {
    const auto e = geometry::bounds(b);
    for (int d = 0; d < 2; ++d)
      all.lo[d] = std::min(all.lo[d], e.lo[d]), all.hi[d] = std::max(all.hi[d], e.hi[d]);
  }
  // Cell i's centre lies at origin + (i - 1/2) h: the lines two cells
  // outside the bodies' box.
  int b[4];
  for (int d = 0; d < 2; ++d) {
    const double h = g.spacing(d), o = g.origin[std::size_t(d)];
    b[2 * d] = int(std::floor((all.lo[d] - o) / h + 0.5)) - 2;
    b[2 * d + 1] = int(std::ceil((all.hi[d] - o) / h + 0.5)) + 2;
  }
  // Central differences on the box's sides read one cell beyond them, in
  // the domain (bodies keep 2 cells off the box: those cells are fluid).
  if (b[0] < 2 || b[1] > nx - 1 || b[2] < 2 || b[3] > ny - 1) {
    notes.push_back(
        "the bodies lie within 3 cells of a side: their forces are integrated over "
        "their walls (less accurate than the momentum balance around them)");
    return;
  }
  std::copy(b, b + 4, force_box);
}

}  // namespace kflow::mac2d
