#pragma once
// `kflow bench lbm`: million lattice updates per second (MLUPS) of the 3D
// lid-driven cavity (D3Q19 by default) for a list of sizes and both streaming
// schemes, against the bandwidth ceiling measured in the same run.  The
// effective bandwidth counts 2 Q sizeof(Real) bytes per cell update (one read
// and one write of every population; the kernels read no flag field).  With
// --set body=sphere a sphere fills 10 % of the box (interpolated walls, the
// forces every log_every steps) and MLUPS count its fluid cells.
// Under mpirun (N ranks) the cube is split into blocks, one per rank
// (dist::choose_blocks, or --set blocks; --set scaling=weak makes each block
// the size): the time of a repetition is the slowest rank's, the note gives
// the aggregate MLUPS, each rank's MLUPS, the halo exchange's time per step
// and how the halo travelled.  Every row ends with the state's memory per
// cell of the box (Model::state_bytes: populations, bodies' flags and links).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/core/driver.hpp"
#include "kflow/model/config.hpp"
#include "kflow/model/error.hpp"
#include "kflow/model/parallel.hpp"
#include "kflow/model/precision.hpp"
#include "kflow/model/registry.hpp"
#include "lbm.hpp"

namespace kflow::lbm {

inline std::string list_text(const std::vector<long>& v) {
  std::string t;
  for (const long x : v) t += (t.empty() ? "" : ",") + std::to_string(x);
  return t;
}

template <class Space, class Real>
std::vector<KernelBenchRow> bench(const KernelBenchOptions& o, std::ostream& log) {
  const auto sizes = o.params.get_ints("sizes", {128, 256}, 8);
  const auto schemes = o.params.get_choices("streaming", "all", {"in_place", "two_grid"});
  const auto stencil = o.params.get_choice("stencil", "D3Q19", {"D3Q19", "D3Q27"});
  const auto collision = o.params.get_choice("collision", "bgk", {"bgk", "trt"});
  const long steps = o.params.get_int("steps", 100);
  const auto blocks = o.params.get_ints("blocks", {}, 1);  // px,py,pz (default: balanced)
  // weak: each rank's block is the size (the cube grows with the ranks).
  const auto scaling = o.params.get_choice("scaling", "strong", {"strong", "weak"});
  // body=sphere: a sphere of 10 % of the box's volume at its centre, with
  // interpolated walls (lattice.body_walls), forces every `log_every` steps;
  // MLUPS count the fluid cells.
  const auto body = o.params.get_choice("body", "none", {"none", "sphere"});
  const auto walls =
      o.params.get_choice("body_walls", "interpolated", {"interpolated", "bounce_back"});
  const long log_every = o.params.get_int("log_every", 100);
  o.params.check_unknown("lbm");
  const int ranks = parallel::size();
  std::array<int, 3> split{1, 1, 1};
  if (ranks > 1) {
    // The cube's blocks (weak scaling: the same split of the grown box).
    split = linalg::dist::choose_blocks(ranks, 3, {int(sizes[0]), int(sizes[0]), int(sizes[0])});
    if (split[0] == 0)
      throw parallel::AgreedError("bench lbm: " + std::to_string(ranks) + " ranks cannot split a " +
                                  std::to_string(sizes[0]) +
                                  "^3 cube into blocks of a cell or more; larger sizes");
    if (!blocks.empty()) {
      if (blocks.size() != 3 || blocks[0] * blocks[1] * blocks[2] != ranks)
        throw parallel::AgreedError("bench lbm: --set blocks=" + list_text(blocks) +
                                    ": expected three block counts px,py,pz whose product is the " +
                                    std::to_string(ranks) + " ranks");
      for (int d = 0; d < 3; ++d) split[std::size_t(d)] = int(blocks[std::size_t(d)]);
    }
  }
  std::vector<KernelBenchRow> rows;
  for (const long n : sizes)
    for (const auto& scheme : schemes) {
      std::array<long, 3> cells{n, n, n};
      if (scaling == "weak")
        for (int d = 0; d < 3; ++d) cells[std::size_t(d)] = n * split[std::size_t(d)];
      std::string text = "[grid]\ncells = [" + std::to_string(cells[0]) + ", " +
                         std::to_string(cells[1]) + ", " + std::to_string(cells[2]) +
                         "]\nlength = [" + std::to_string(cells[0] / n) + ".0, " +
                         std::to_string(cells[1] / n) + ".0, " + std::to_string(cells[2] / n) +
                         ".0]\n[lattice]\nstencil = \"" + stencil + "\"\ncollision = \"" +
                         collision + "\"\nbody_walls = \"" + walls + "\"\nstreaming = \"" + scheme +
                         "\"\n[physics]\nreynolds = 100.0\n[boundary]\ntop = { type = "
                         "\"moving_wall\", velocity = [1.0, 0.0, 0.0] }\n";
      const double radius = std::cbrt(0.1 * 3 / (4 * 3.14159265358979323846));  // 10 % of 1
      double fluid = double(cells[0]) * cells[1] * cells[2];
      if (body == "sphere") {
        if (ranks > 1) throw parallel::AgreedError("bench lbm: --set body=sphere runs on one rank");
        char b[256];
        std::snprintf(b, sizeof b,
                      "[[body]]\nshape = \"sphere\"\ncenter = [0.5, 0.5, 0.5]\nradius = %.17g\n",
                      radius);
        text += b;
        // The fluid cells: centres outside the sphere (a closed set).
        fluid = 0;
        for (long k = 0; k < n; ++k)
          for (long j = 0; j < n; ++j)
            for (long i = 0; i < n; ++i) {
              const double x = (i + 0.5) / n - 0.5, y = (j + 0.5) / n - 0.5,
                           z = (k + 0.5) / n - 0.5;
              fluid += x * x + y * y + z * z > radius * radius;
            }
      }
      auto config = Config::parse(text, "<bench lbm>");
      const auto setup = parse_case(config);
      auto& dec = setup->decomposition;
      if (ranks > 1) {
        dec.dim = 3;
        dec.global_cells = setup->grid.cells;
        dec.rank = parallel::rank();
        dec.ranks = split;
        for (int d = 0; d < 3; ++d)
          if (dec.ranks[d] > cells[std::size_t(d)])
            throw parallel::AgreedError("bench lbm: " + std::to_string(ranks) + " ranks put " +
                                        std::to_string(dec.ranks[d]) + " blocks along axis " +
                                        std::to_string(d) + " of a " + std::to_string(n) +
                                        "^3 cube; larger sizes or fewer ranks");
      }
      const std::string shape = cells[0] == cells[1] && cells[1] == cells[2]
                                    ? std::to_string(n) + "^3"
                                    : std::to_string(cells[0]) + "x" + std::to_string(cells[1]) +
                                          "x" + std::to_string(cells[2]);
      log << "kflow bench lbm: " << stencil << " cavity " << shape << ", " << scheme << "\n";
      try {  // (every rank judges alike: the ranks on a host share its memory)
        check_memory(setup->values_per_cell * double(cells[0]) * double(cells[1]) *
                         double(cells[2]) * bytes_per_value(o.precision),
                     0, o.backend, "bench lbm", stencil + " cavity " + shape + ", " + scheme,
                     "smaller --set sizes=...");
      } catch (const Error& e) {
        throw parallel::AgreedError(e.what());
      }
      // The model as `kflow run` makes it (the registered instantiation).
      const auto factory = Registry::instance().factory("lbm", o.backend, o.precision);
      if (!factory) throw Error("bench lbm: no lbm model for " + o.backend + " in " + o.precision);
      auto model = factory(*setup);
      for (int k = 0; k < 4; ++k) model->step(0, 0);  // warm-up (even: AA back in step)
      model->fence();
      double best = std::numeric_limits<double>::infinity(), mine_best = 0,
             exchange_best = 0;  // the slowest rank's; this rank's
      for (int r = 0; r < o.repeat; ++r) {
        parallel::barrier();
        const double x0 = model->exchange_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        for (long k = 0; k < steps; ++k) {
          model->step(0, 0);
          if (body != "none" && (k + 1) % log_every == 0) model->diagnostics(0);  // forces
        }
        model->fence();
        const double mine =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double slowest = parallel::max(mine);
        if (slowest < best)
          best = slowest, mine_best = mine, exchange_best = model->exchange_seconds() - x0;
      }
      for (const auto& [k, v] : model->diagnostics(0))
        if (!std::isfinite(v)) throw Error("bench lbm: " + k + " is not finite after the run");
      const double updates = fluid * steps;
      KernelBenchRow row;
      char label[160], note[64];
      std::snprintf(label, sizeof label, "%s cavity %s %-8s %ld steps%s", stencil.c_str(),
                    shape.c_str(), scheme.c_str(), steps,
                    body == "none" ? "" : (", sphere 10 % " + walls).c_str());
      std::snprintf(note, sizeof note, "%.6g MLUPS", updates / best / 1e6);
      std::string text_note = note;
      if (ranks > 1) {  // per rank: its block's updates over its own time
        const double own = double(dec.cells(0)) * dec.cells(1) * dec.cells(2) * steps;
        const auto rates = parallel::gather(own / mine_best / 1e6);
        const double ex = parallel::max(exchange_best) / double(steps);
        char more[256];
        std::snprintf(more, sizeof more,
                      " on %d ranks (blocks %dx%dx%d), per rank %.4g to %.4g MLUPS, halo "
                      "exchange up to %.3g ms per step (%s)",
                      ranks, dec.ranks[0], dec.ranks[1], dec.ranks[2],
                      rates.empty() ? 0.0 : *std::min_element(rates.begin(), rates.end()),
                      rates.empty() ? 0.0 : *std::max_element(rates.begin(), rates.end()), ex * 1e3,
                      parallel::transport_name().c_str());
        text_note += more;
      }
      // (the state's memory per cell of the box, solid cells included)
      std::snprintf(note, sizeof note, ", %.4g B/cell",
                    parallel::sum(model->state_bytes()) /
                        (double(cells[0]) * double(cells[1]) * double(cells[2])));
      text_note += note;
      row.label = label;
      row.note = text_note;
      row.seconds = best;
      row.bytes = updates * model->bytes_per_cell_step();
      rows.push_back(row);
    }
  return rows;
}

}  // namespace kflow::lbm
