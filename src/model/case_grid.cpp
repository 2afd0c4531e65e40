#include "kflow/model/case_grid.hpp"

#include <string>

#include "kflow/model/number_text.hpp"

namespace kflow {

linalg::Grid parse_grid(const Config::Section& gs, int min_dim, int max_dim,
                        const std::string& expected) {
  linalg::Grid g;
  if (!gs.has("cells")) gs.fail("cells", "missing; expected " + expected);
  // (a bad value is reported with the case's other problems; the reader goes
  // on with the smallest grid)
  const auto cells = gs.get_ints("cells", std::size_t(min_dim), std::size_t(max_dim), 2, 1 << 20,
                                 std::vector<std::int64_t>(std::size_t(min_dim), 2));
  g.dim = static_cast<int>(cells.size());
  const auto length = gs.get_numbers("length", g.dim, g.dim, std::vector<double>(g.dim, 1.0));
  const auto origin = gs.get_numbers("origin", g.dim, g.dim, std::vector<double>(g.dim, 0.0));
  for (int d = 0; d < g.dim; ++d) {
    g.cells[d] = static_cast<int>(cells[d]);
    if (!(length[d] > 0)) gs.fail("length", "expected positive lengths");
    // 1 / h^2 and h^2 must stay normal doubles (time-step limits, operators)
    const double h = length[d] / double(cells[d]);
    if (!(h > 1e-100 && h < 1e100))
      gs.fail("length", "a cell size of " + number_text(h) + " in direction " + std::to_string(d) +
                            " is outside what the solvers' arithmetic handles (1e-100 to 1e100)");
    g.length[d] = length[d];
    g.origin[d] = origin[d];
  }
  if (double(g.interior_cells()) > kMaxCells)
    gs.fail("cells", "more than 2e9 cells (kernels index the stored cells with 32-bit integers)");
  return g;
}

}  // namespace kflow
