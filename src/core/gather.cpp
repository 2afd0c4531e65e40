#include "kflow/core/gather.hpp"

#include <cstring>
#include <string>

#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"

namespace kflow {

namespace {

using linalg::dist::LocalGrid;

std::size_t value_bytes(const StateArray& a) {
  if (a.type == "float64") return 8;
  if (a.type == "float32") return 4;
  if (a.type == "float16s" || a.type == "float16c") return 2;
  throw Error("checkpoint: array '" + a.name + "' has unknown type " + a.type);
}

// Gathers each rank's bytes to rank 0, in rank order.
std::vector<std::vector<char>> gather_bytes(const std::vector<char>& mine) {
  std::vector<std::vector<char>> all;
#ifdef KFLOW_HAVE_MPI
  const int n = parallel::size();
  if (n > 1) {
    long count = long(mine.size());
    std::vector<long> counts(static_cast<std::size_t>(n));
    MPI_Gather(&count, 1, MPI_LONG, counts.data(), 1, MPI_LONG, 0, parallel::comm());
    // Messages of up to 2^31 - 1 bytes: rank by rank, not one MPI_Gatherv.
    if (parallel::root()) {
      all.resize(std::size_t(n));
      all[0] = mine;
      for (int r = 1; r < n; ++r) {
        all[std::size_t(r)].resize(std::size_t(counts[std::size_t(r)]));
        MPI_Recv(all[std::size_t(r)].data(), int(counts[std::size_t(r)]), MPI_BYTE, r, 77,
                 parallel::comm(), MPI_STATUS_IGNORE);
      }
    } else {
      MPI_Send(mine.data(), int(mine.size()), MPI_BYTE, 0, 77, parallel::comm());
    }
    return all;
  }
#endif
  all.push_back(mine);
  return all;
}

// The components of a grid-shaped array: extents e[0..dim) and, for a field
// of several components stored component-major (View(cell, component),
// LayoutLeft), one more: their count.  0: not an array on the grid of
// extents e.
std::size_t components_of(const StateArray& a, int dim, const std::array<int, 3>& e) {
  const auto n = a.extents.size();
  if (int(n) != dim && int(n) != dim + 1) return 0;
  for (int d = 0; d < dim; ++d)
    if (int(a.extents[std::size_t(d)]) != e[std::size_t(d)]) return 0;
  return int(n) == dim ? 1 : a.extents[std::size_t(dim)];
}

// Stored extents (ghosts included) of rank r's block, or of the global grid (r < 0).
std::array<int, 3> extents(const LocalGrid& g, int r) {
  std::array<int, 3> e{1, 1, 1};
  for (int d = 0; d < g.global.dim; ++d)
    e[d] = (r < 0 ? g.global.cells[d] : g.decomposition.cells(d, r)) + 2 * g.global.ghost;
  return e;
}

}  // namespace

HostField gather_field(const HostField& local, const LocalGrid& g) {
  if (parallel::size() == 1) return local;
  std::vector<char> mine(local.values.size() * sizeof(double));
  std::memcpy(mine.data(), local.values.data(), mine.size());
  const auto all = gather_bytes(mine);
  HostField f;
  f.name = local.name;
  f.components = local.components;
  if (!parallel::root()) return f;
  const auto& G = g.global;
  const std::size_t c = std::size_t(local.components);
  f.values.assign(G.interior_cells() * c, 0.0);
  for (int r = 0; r < parallel::size(); ++r) {
    const auto& dec = g.decomposition;
    const int nx = dec.cells(0, r), ny = G.dim > 1 ? dec.cells(1, r) : 1,
              nz = G.dim > 2 ? dec.cells(2, r) : 1;
    const int bx = dec.begin(0, r), by = dec.begin(1, r), bz = G.dim > 2 ? dec.begin(2, r) : 0;
    const double* v = reinterpret_cast<const double*>(all[std::size_t(r)].data());
    if (all[std::size_t(r)].size() != std::size_t(nx) * ny * nz * c * sizeof(double))
      throw Error("gather: rank " + std::to_string(r) + " sent field " + local.name +
                  " of the wrong size");
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const std::size_t from = (i + std::size_t(nx) * (j + std::size_t(ny) * k)) * c;
          const std::size_t to = (std::size_t(bx + i) +
                                  std::size_t(G.cells[0]) *
                                      (std::size_t(by + j) + std::size_t(G.cells[1]) * (bz + k))) *
                                 c;
          for (std::size_t m = 0; m < c; ++m) f.values[to + m] = v[from + m];
        }
  }
  return f;
}

std::vector<StateArray> gather_state(const std::vector<StateArray>& local, const LocalGrid& g) {
  if (parallel::size() == 1) return local;
  const int dim = g.global.dim, gh = g.global.ghost, me = g.decomposition.rank;
  std::vector<StateArray> out;
  for (const auto& a : local) {
    const std::size_t vb = value_bytes(a);
    const auto e = extents(g, me);
    const std::size_t nc = components_of(a, dim, e);
    const std::size_t plane = std::size_t(e[0]) * e[1] * e[2] * vb;  // one component
    if (nc == 0 || a.bytes.size() != plane * nc)
      throw Error("checkpoint: array '" + a.name +
                  "' is not a field on the grid, so a run of several ranks cannot save it");
    // The owned cells, i fastest, component by component.
    std::vector<char> mine;
    const int n0 = e[0] - 2 * gh, n1 = dim > 1 ? e[1] - 2 * gh : 1,
              n2 = dim > 2 ? e[2] - 2 * gh : 1;
    mine.resize(std::size_t(n0) * n1 * n2 * vb * nc);
    std::size_t at = 0;
    for (std::size_t c = 0; c < nc; ++c)
      for (int k = 0; k < n2; ++k)
        for (int j = 0; j < n1; ++j) {
          const std::size_t row =
              c * plane +
              (std::size_t(gh) + std::size_t(e[0]) * (std::size_t(j + gh) +
                                                      std::size_t(e[1]) * (dim > 2 ? k + gh : 0))) *
                  vb;
          std::memcpy(mine.data() + at, a.bytes.data() + row, std::size_t(n0) * vb);
          at += std::size_t(n0) * vb;
        }
    const auto all = gather_bytes(mine);
    if (!parallel::root()) continue;
    const auto E = extents(g, -1);
    const std::size_t Plane = std::size_t(E[0]) * E[1] * E[2] * vb;
    StateArray G;
    G.name = a.name;
    G.type = a.type;
    G.extents = a.extents;
    for (int d = 0; d < dim; ++d) G.extents[std::size_t(d)] = std::size_t(E[d]);
    G.bytes.assign(Plane * nc, 0);
    for (int r = 0; r < parallel::size(); ++r) {
      const auto& dec = g.decomposition;
      const int m0 = dec.cells(0, r), m1 = dim > 1 ? dec.cells(1, r) : 1,
                m2 = dim > 2 ? dec.cells(2, r) : 1;
      const int b0 = dec.begin(0, r), b1 = dec.begin(1, r), b2 = dim > 2 ? dec.begin(2, r) : 0;
      const auto& src = all[std::size_t(r)];
      if (src.size() != std::size_t(m0) * m1 * m2 * vb * nc)
        throw Error("checkpoint: rank " + std::to_string(r) + " sent array " + a.name +
                    " of the wrong size");
      std::size_t from = 0;
      for (std::size_t c = 0; c < nc; ++c)
        for (int k = 0; k < m2; ++k)
          for (int j = 0; j < m1; ++j) {
            const std::size_t to =
                c * Plane + (std::size_t(gh + b0) +
                             std::size_t(E[0]) *
                                 (std::size_t(gh + b1 + j) +
                                  std::size_t(E[1]) * (dim > 2 ? std::size_t(gh + b2 + k) : 0))) *
                                vb;
            std::memcpy(G.bytes.data() + to, src.data() + from, std::size_t(m0) * vb);
            from += std::size_t(m0) * vb;
          }
    }
    out.push_back(std::move(G));
  }
  return out;
}

std::vector<StateArray> block_of_state(const std::vector<StateArray>& global, const LocalGrid& g) {
  if (parallel::size() == 1) return global;
  const int dim = g.global.dim;
  const auto E = extents(g, -1), e = extents(g, g.decomposition.rank);
  std::vector<StateArray> out;
  for (const auto& a : global) {
    const std::size_t vb = value_bytes(a);
    const std::size_t nc = components_of(a, dim, E);
    const std::size_t Plane = std::size_t(E[0]) * E[1] * E[2] * vb,
                      plane = std::size_t(e[0]) * e[1] * e[2] * vb;
    if (nc == 0 || a.bytes.size() != Plane * nc) {
      out.push_back(a);  // the model's restore names what does not match
      continue;
    }
    StateArray b;
    b.name = a.name;
    b.type = a.type;
    b.extents = a.extents;
    for (int d = 0; d < dim; ++d) b.extents[std::size_t(d)] = std::size_t(e[d]);
    b.bytes.resize(plane * nc);
    // Stored index n in the block is stored index n + offset in the global array.
    const int o0 = g.offset[0], o1 = g.offset[1], o2 = g.offset[2];
    for (std::size_t c = 0; c < nc; ++c)
      for (int k = 0; k < e[2]; ++k)
        for (int j = 0; j < e[1]; ++j) {
          const std::size_t from =
              c * Plane +
              (std::size_t(o0) + std::size_t(E[0]) * (std::size_t(o1 + j) +
                                                      std::size_t(E[1]) * std::size_t(o2 + k))) *
                  vb;
          const std::size_t to =
              c * plane + (std::size_t(e[0]) * (std::size_t(j) + std::size_t(e[1]) * k)) * vb;
          std::memcpy(b.bytes.data() + to, a.bytes.data() + from, std::size_t(e[0]) * vb);
        }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace kflow
