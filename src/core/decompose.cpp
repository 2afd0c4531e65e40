// The blocks of a distributed run: the ranks' split of the grid (chosen, or
// the case's run.ranks), checked against the rank count and the model.

#include <array>
#include <string>

#include "kflow/core/driver.hpp"
#include "kflow/linalg/dist/decomposition.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/registry.hpp"

namespace kflow {

namespace {
std::string cells_text(const linalg::Grid& g) {
  std::string t;
  for (int d = 0; d < g.dim; ++d) t += (d ? "x" : "") + std::to_string(g.cells[d]);
  return t;
}
}  // namespace

void decompose(PreparedCase& pc) {
  const auto& g = pc.setup->grid;
  const int n = parallel::size();
  auto& dec = pc.setup->decomposition;
  dec = linalg::dist::Decomposition{};
  dec.dim = g.dim;
  dec.global_cells = g.cells;
  dec.rank = parallel::rank();
  std::string asked;
  int product = 1;
  for (std::size_t d = 0; d < pc.ranks.size(); ++d) {
    asked += (d ? ", " : "") + std::to_string(pc.ranks[d]);
    product *= pc.ranks[d];
  }
  if (n > 1 && !pc.model->distributed()) {
    std::string which;
    for (const auto& name : Registry::instance().names())
      if (Registry::instance().find(name)->distributed())
        which += (which.empty() ? "" : ", ") + name;
    throw Error("model " + pc.model->name + " runs on one rank only, and this run has " +
                std::to_string(n) + " ranks (mpirun -n " + std::to_string(n) +
                "); run it without mpirun (or -n 1).  Models that run on several ranks: " +
                (which.empty() ? "none" : which));
  }
  if (!pc.ranks.empty() && product != n)
    throw Error(pc.ranks_where + ": key 'run.ranks': [" + asked + "] is " +
                std::to_string(product) + " block" + (product == 1 ? "" : "s") +
                ", but this run has " + std::to_string(n) + " rank" + (n == 1 ? "" : "s") +
                "; expected blocks per axis whose product is the rank count (mpirun -n " +
                std::to_string(product) + ")");
  if (n == 1) return;
  std::array<int, 3> r{1, 1, 1};
  if (pc.ranks.empty()) {
    r = linalg::dist::choose_blocks(n, g.dim, g.cells);
    if (r[0] == 0)
      throw Error(std::to_string(n) + " ranks cannot split a grid of " + cells_text(g) +
                  " cells into blocks of at least one cell each; fewer ranks or a finer grid");
  } else {
    for (int d = 0; d < g.dim; ++d) r[std::size_t(d)] = pc.ranks[std::size_t(d)];
  }
  for (int d = 0; d < g.dim; ++d)
    if (r[std::size_t(d)] > g.cells[d])
      throw Error(std::to_string(n) + " ranks in blocks " + std::to_string(r[0]) + "x" +
                  std::to_string(r[1]) + (g.dim == 3 ? "x" + std::to_string(r[2]) : "") +
                  " put more blocks along axis " + std::to_string(d) + " than its " +
                  std::to_string(g.cells[d]) +
                  " cells; fewer ranks, a finer grid, or run.ranks = [...] to choose the blocks");
  dec.ranks = r;
}

}  // namespace kflow
