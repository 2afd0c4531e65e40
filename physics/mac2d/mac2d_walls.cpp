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
//  - near the wall: the others in the fluid.  Their target is the linear
//    interpolation between the wall (velocity 0, at q face spacings along
//    the grid line that crosses it, the nearest such line) and the next face
//    away from it on that line: q / (1 + q) u_partner (Fadlun et al. 2000's
//    direct forcing, second order in the wall's position), set from the last
//    step's field before each step.  Where the face separates two fluid
//    cells it stays an unknown of the pressure equation, and F is the
//    target plus dt times the last pressure gradient across it (flag bits
//    wall_east, wall_north), so that the correction returns the target
//    wherever the pressure has settled (the steady state exactly; Fadlun's
//    F = target leaves a slip of dt times the gradient).  Beside a body's
//    cell it is a prescribed flux, as at the staircase's walls.
// So the pressure operator is the staircase's masked 5-point Laplacian
// (fluid cells by their centres), which red-black SOR and the multigrid
// solve unchanged, and every fluid cell's divergence vanishes after the
// projection.
// The forces are integrated over the bodies' true surface (SurfacePiece):
// the pressure extrapolated to the wall and the wall shear from the
// velocity at 1.5 and 3 cells along the normal (mac2d_kernels.hpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kflow/core/case_geometry.hpp"
#include "kflow/geometry/surface.hpp"
#include "kflow/linalg/stencil.hpp"
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
  const Kokkos::DefaultHostExecutionSpace host;
  const geometry::Directions dirs({{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}});
  long fallback = 0;
  for (int c = 0; c < 2; ++c) {
    // The nodes of component c: u(i, j) at (i hx, (j - 1/2) hy), v(i, j) at
    // ((i - 1/2) hx, j hy) from the origin, ghost faces included.
    geometry::NodeGrid nodes = cell_centres(g, true);
    nodes.origin[c] += 0.5 * g.spacing(c);
    const auto geo = body_geometry(host, bodies, nodes, dirs);
    const auto solid_flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.flags);
    const auto link_node = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.node);
    const auto link_dir = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.dir);
    const auto link_q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geo.links.q);
    auto solid = [&](int i, int j) {
      return solid_flags(i, j, 0) != 0;
    };
    // The faces between two interior cells; the others are the sides'.
    const int di = c == 0, dj = c == 1, ihi = nx - di, jhi = ny - dj;
    auto interior = [&](int i, int j) {
      return i >= 1 && i <= ihi && j >= 1 && j <= jhi;
    };
    // The nearest wall of each node along a grid line whose face on the
    // other side (the interpolation's partner) is an interior fluid face.
    const double none = std::numeric_limits<double>::infinity();
    std::vector<double> best_q(std::size_t(ex) * ey, none);
    std::vector<int> best_partner(std::size_t(ex) * ey, -1);
    for (std::int64_t l = 0; l < geo.links.count; ++l) {
      const int n = link_node(l), i = n % ex, j = n / ex;
      const int* d = dirs.c[link_dir(l)];
      const int pi = i - d[0], pj = j - d[1];
      if (!interior(pi, pj) || solid(pi, pj)) continue;
      if (link_q(l) < best_q[std::size_t(n)])
        best_q[std::size_t(n)] = link_q(l), best_partner[std::size_t(n)] = pi + ex * pj;
    }
    WallFaces& w = wall_faces[c];
    w = {};
    for (int j = 1; j <= jhi; ++j)
      for (int i = 1; i <= ihi; ++i) {
        bool regular = !solid(i, j) && (cell(i, j) & mb::self) && (cell(i + di, j + dj) & mb::self);
        const int nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
        for (const auto& b : nb)
          if (interior(b[0], b[1]) && solid(b[0], b[1])) regular = false;
        if (regular) continue;
        if (solid(i, j)) {  // a prescribed flux (0) for the pressure equation
          if (c == 0)
            cell(i, j) &= std::uint8_t(~mb::east), cell(i + 1, j) &= std::uint8_t(~mb::west);
          else
            cell(i, j) &= std::uint8_t(~mb::north), cell(i, j + 1) &= std::uint8_t(~mb::south);
          continue;
        }
        if (cell(i, j) & (c == 0 ? mb::east : mb::north))  // between two fluid cells
          cell(i, j) |= c == 0 ? wall_east : wall_north;
        const std::size_t k = std::size_t(i) + std::size_t(ex) * j;
        w.face.push_back(int(k));
        if (best_partner[k] >= 0) {
          w.partner.push_back(best_partner[k]);
          w.weight.push_back(best_q[k] / (1 + best_q[k]));
        } else {  // no fluid face beyond it: the staircase's value
          w.partner.push_back(int(k));
          w.weight.push_back(0);
          ++fallback;
        }
      }
  }
  // A fluid cell left with no unknown neighbour has no pressure equation of
  // its own: it leaves the system (its faces keep their prescribed values).
  long isolated = 0;
  for (int j = 1; j <= ny; ++j)
    for (int i = 1; i <= nx; ++i)
      if (cell(i, j) == mb::self) cell(i, j) = 0, --fluid_cells, ++isolated;
  if (fallback > 0)
    notes.push_back(std::to_string(fallback) +
                    " face(s) next to a body have no fluid face beyond them on a grid line that "
                    "crosses the wall (a gap narrower than two cells) and take the staircase "
                    "wall's value 0 (first order there)");
  if (isolated > 0)
    notes.push_back(std::to_string(isolated) +
                    " fluid cell(s) between a body and its neighbours have every face next to "
                    "the wall and leave the pressure equation");

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
    return i >= 1 && i <= nx && j >= 1 && j <= ny && (cell(i, j) & mb::self);
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
    if (fluid(i, j) && fluid(i + 1, j) && fluid(i, j + 1) && fluid(i + 1, j + 1)) continue;
    double best = std::numeric_limits<double>::infinity();
    if (!surface.empty()) {  // on or next to a wall: extrapolated along its normal
      for (const auto& s : surface) {
        const double d = std::hypot(s.x - x, s.y - y);
        if (d < best) best = d, at[2] = s.nx, at[3] = s.ny;
      }
      probe_wall[k] = 1;
      continue;
    }
    for (int b = j - 2; b <= j + 3; ++b)  // staircase walls: the nearest fluid cell's
      for (int a = i - 2; a <= i + 3; ++a) {
        const double cx = ox + (a - 0.5) * hx, cy = oy + (b - 0.5) * hy;
        const double d = std::hypot(cx - x, cy - y);
        if (fluid(a, b) && d < best) best = d, at[0] = cx, at[1] = cy;
      }
  }
}

}  // namespace kflow::mac2d
