#pragma once
// `kflow bench lbm`: million lattice updates per second (MLUPS) of the 3D
// lid-driven cavity (D3Q19 by default) for a list of sizes and both streaming
// schemes, against the bandwidth ceiling measured in the same run.  The
// effective bandwidth counts 2 Q sizeof(Real) bytes per cell update (one read
// and one write of every population; the kernels read no flag field).

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/core/config.hpp"
#include "lbm_impl.hpp"

namespace kflow::lbm {

template <class Space, class Real>
std::vector<KernelBenchRow> bench(const KernelBenchOptions& o, std::ostream& log) {
  const auto sizes = o.params.get_ints("sizes", {128, 256}, 8);
  const auto schemes = o.params.get_choices("streaming", "all", {"in_place", "two_grid"});
  const auto stencil = o.params.get_choice("stencil", "D3Q19", {"D3Q19", "D3Q27"});
  const auto collision = o.params.get_choice("collision", "bgk", {"bgk", "trt"});
  const long steps = o.params.get_int("steps", 100);
  o.params.check_unknown("lbm");
  std::vector<KernelBenchRow> rows;
  for (const long n : sizes)
    for (const auto& scheme : schemes) {
      const std::string text = "[grid]\ncells = [" + std::to_string(n) + ", " + std::to_string(n) +
                               ", " + std::to_string(n) + "]\n[lattice]\nstencil = \"" + stencil +
                               "\"\ncollision = \"" + collision + "\"\nstreaming = \"" + scheme +
                               "\"\n[physics]\nreynolds = 100.0\n[boundary]\ntop = { type = "
                               "\"moving_wall\", velocity = [1.0, 0.0, 0.0] }\n";
      auto config = Config::parse(text, "<bench lbm>");
      const auto setup = parse_case(config);
      log << "kflow bench lbm: " << stencil << " cavity " << n << "^3, " << scheme << "\n";
      auto model = make_model<Space, Real>(*setup);
      for (int k = 0; k < 4; ++k) model->step(0, 0);  // warm-up (even: AA back in step)
      model->fence();
      double best = 1e300;
      for (int r = 0; r < o.repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (long k = 0; k < steps; ++k) model->step(0, 0);
        model->fence();
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      for (const auto& [k, v] : model->diagnostics(0))
        if (!std::isfinite(v)) throw Error("bench lbm: " + k + " is not finite after the run");
      const double cells = double(n) * n * n, updates = cells * steps;
      KernelBenchRow row;
      char label[160], note[96];
      std::snprintf(label, sizeof label, "%s cavity %ld^3 %-8s %ld steps", stencil.c_str(), n,
                    scheme.c_str(), steps);
      std::snprintf(note, sizeof note, "%.6g MLUPS", updates / best / 1e6);
      row.label = label;
      row.note = note;
      row.seconds = best;
      row.bytes = updates * model->bytes_per_cell_step();
      rows.push_back(row);
    }
  return rows;
}

}  // namespace kflow::lbm
