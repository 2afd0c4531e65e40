#pragma once
// SIP's options and factor fields (sip.hpp).

#include <type_traits>
#include <utility>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/options.hpp"

namespace kflow::linalg {

// Orderings of SIP's sequential sweeps (sip.hpp); automatic: tiles on GPUs in
// 2D, diagonals (hyperplanes) on GPUs in 3D, lexicographic on host backends.
// 2D takes lexicographic and tiles; 3D lexicographic and diagonals.  (Ezzatti
// & Nesmachnow's 2D GPU orderings, diagonals and pipelined, are in the
// application's benchmarks, bench/linalg.)
enum class SipOrdering { automatic, lexicographic, diagonals, tiles };

template <>
struct EnumNames<SipOrdering> {
  static constexpr const char* what = "SIP ordering";
  static constexpr std::pair<SipOrdering, const char*> table[] = {
      {SipOrdering::lexicographic, "lexicographic"},
      {SipOrdering::diagonals, "diagonals"},
      {SipOrdering::tiles, "tiles"},
      {SipOrdering::automatic, "auto"}};
};

// Shape of the tiles ordering (0 = default).
struct SipTiles {
  int rows = 0;     // rows per strip (0: SipOptions::strip_rows, else the default).
                    // Host kernel: any (default 32).  Team kernel: 1 or 2 rows per
                    // compute lane, i.e. 32 or 64 on CUDA, 1 or 2 on host backends
                    // (default: one per lane)
  int cols = 0;     // host kernel: columns per tile, the granularity at which a
                    // strip publishes its progress (default 128)
  int group = 0;    // team kernel: wavefront steps per group, 8 or 16 (default 8);
                    // a group's operands are loaded while the one before is
                    // computed, and progress is published once per group
  int threads = 0;  // team kernel: threads per team (0: the compute warp, enough
                    // loader warps for one round of 4 elements per group and one
                    // spare loader warp, at most 512; host backends: 2)
  // Run the team kernel on a host backend too: lets the tests check it
  // without a GPU.
  bool wavefront = false;
};

struct SipOptions {
  double alpha = 0.92;  // Stone's parameter, in [0, 1) (0: ILU(0))
  SipOrdering ordering = SipOrdering::automatic;
  int strip_rows = 0;   // 2D: rows per strip of the tiles ordering (0: default)
  SipTiles tiles = {};  // 2D: the rest of the tiles ordering's shape
};

template <class Real, class MemSpace>
struct SipFactors2 {
  Field<Real, 2, MemSpace> lw, ls, lpinv, un, ue;
};

template <class Real, class MemSpace>
struct SipFactors3 {
  Field<Real, 3, MemSpace> lb, lw, ls, lpinv, un, ue, ut;
};

template <class Real, class MemSpace, int Dim>
using SipFactors =
    std::conditional_t<Dim == 2, SipFactors2<Real, MemSpace>, SipFactors3<Real, MemSpace>>;

}  // namespace kflow::linalg
