#pragma once
// The tridiagonal methods kept to reproduce the paper's experiments
// (kflow bench tridiag, Tables 3 and 4 of Ezzatti & Nesmachnow): linalg's
// Tridiag offers what a model needs (thomas, register); these run only when a
// benchmark or a test names them.  Same shapes, contract and pivot checks as
// linalg/tridiag.hpp.
//   cr           cyclic reduction on global memory, one kernel per level and
//                one thread per equation (the paper's section 4.2), any n;
//                2 log2(n) + 1 launches.
//   pcr          parallel cyclic reduction, one team per system in team
//                scratch (double-buffered), ceil(log2 n) steps; 8 n values.
//   hybrid       the partition method in team scratch: chunks of
//                ~rows_per_chunk rows reduced by a modified Thomas pass to two
//                equations each, those by PCR, then the interiors.  O(n).
//   partitioned  for systems longer than team scratch: segments of up to
//                ~4096 rows reduced to two equations each, the reduced system
//                solved recursively, then every segment.  9 accesses per unknown.

#include <Kokkos_Core.hpp>

#include <array>
#include <climits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kflow/linalg/detail/tridiag_thomas.hpp"
#include "kflow/linalg/options.hpp"
#include "kflow/linalg/tridiag_shape.hpp"
#include "tridiag_variant_kernels.hpp"

namespace kflow::linsys {

namespace la = kflow::linalg;

// thomas is linalg's (the partitioned method's reduced systems on GPUs).
enum class TridiagVariant { thomas, cr, pcr, hybrid, partitioned };

}  // namespace kflow::linsys

template <>
struct kflow::linalg::EnumNames<kflow::linsys::TridiagVariant> {
  static constexpr const char* what = "tridiagonal method";
  static constexpr std::pair<kflow::linsys::TridiagVariant, const char*> table[] = {
      {kflow::linsys::TridiagVariant::thomas, "thomas"},
      {kflow::linsys::TridiagVariant::cr, "cr"},
      {kflow::linsys::TridiagVariant::pcr, "pcr"},
      {kflow::linsys::TridiagVariant::hybrid, "hybrid"},
      {kflow::linsys::TridiagVariant::partitioned, "partitioned"}};
};

namespace kflow::linsys {

struct TridiagVariantOptions {
  bool check_pivots = true;
  int rows_per_chunk = 8;  // hybrid and partitioned (>= 2)
  int team_size = 0;       // pcr and hybrid (0: chosen from n and the backend)
  int segment_rows = 0;    // partitioned: longest segment (0: what fits scratch level 0; else >= 8)
};

template <class ExecSpace, class Real>
class TridiagVariants {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using ConstArray = Kokkos::View<const Real*, memory_space>;
  using Array = Kokkos::View<Real*, memory_space>;
  using TridiagShape = la::TridiagShape;
  static constexpr bool gpu = la::on_gpu<ExecSpace>;

  explicit TridiagVariants(const ExecSpace& space, const TridiagVariantOptions& options = {})
      : space_(space), opt_(options), flag_(space) {
    if (opt_.rows_per_chunk < 2)
      throw std::invalid_argument("tridiag: rows_per_chunk must be >= 2");
    if (opt_.team_size < 0) throw std::invalid_argument("tridiag: team_size must be >= 0");
    if (opt_.segment_rows != 0 && opt_.segment_rows < 8)
      throw std::invalid_argument("tridiag: segment_rows must be >= 8 (or 0)");
  }

  // The team-scratch level a method uses for one system of this shape: 0
  // (on-chip on GPUs) when it fits, else 1 (global memory on GPUs, through
  // the caches), -1 when neither holds it; 0 for the other methods.
  int scratch_level(TridiagVariant m, const TridiagShape& sh) const {
    if (m != TridiagVariant::pcr && m != TridiagVariant::hybrid) return 0;
    if (sh.n > INT_MAX / 4) return -1;
    const std::size_t need =
        m == TridiagVariant::pcr
            ? tridiag_detail::pcr_scratch<ExecSpace, Real>(sh.n)
            : tridiag_detail::hybrid_scratch<ExecSpace, Real>(
                  sh.n, tridiag_detail::hybrid_chunks(sh.n, opt_.rows_per_chunk));
    for (int level = 0; level <= 1; ++level)
      if (need <= std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(level))) return level;
    return -1;
  }
  bool fits(TridiagVariant m, const TridiagShape& sh) const {
    if (m == TridiagVariant::partitioned) return segment_rows() > 0;
    return scratch_level(m, sh) >= 0;
  }

  // Longest segment of the partitioned method (its scratch fits level 0).
  int segment_rows() const {
    for (int L = opt_.segment_rows > 0 ? opt_.segment_rows : 4096; L >= 8; L /= 2)
      if (tridiag_detail::partition_scratch<ExecSpace, Real>(
              L, tridiag_detail::hybrid_chunks(L, opt_.rows_per_chunk)) <=
          std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)))
        return L;
    return 0;
  }

  // Solves every system of `sh` by `method`; x may be the same View as d.
  // Throws ZeroPivot (when checking) or std::invalid_argument.
  void solve(const TridiagShape& sh, const ConstArray& a, const ConstArray& b, const ConstArray& c,
             const ConstArray& d, const Array& x, TridiagVariant method) {
    la::detail::validate(sh, a, b, c, d, x);
    if (sh.systems() == 0) return;
    if (!fits(method, sh))
      throw std::invalid_argument(std::string("tridiag: method ") + la::name(method) +
                                  " needs n = " + std::to_string(sh.n) +
                                  " rows in team scratch, more than this backend offers (use "
                                  "thomas or cr)");
    if (opt_.check_pivots) flag_.reset();
    run(sh, a, b, c, d, x, method, 0);
    if (opt_.check_pivots) flag_.check(la::name(method), sh.n);
  }

 private:
  void run(const TridiagShape& sh, const ConstArray& a, const ConstArray& b, const ConstArray& c,
           const ConstArray& d, const Array& x, TridiagVariant method, int depth) {
    const long n = sh.n, ns = sh.systems();
    switch (method) {
      case TridiagVariant::thomas:
        la::detail::run_thomas<ExecSpace, Real>(space_, sh,
                                                la::detail::ArrayRows<Real, ConstArray>{a, b, c, d},
                                                x, ws_[0], flag_.view());
        break;
      case TridiagVariant::cr: {
        const long half = (n / 2) * ns;
        for (auto& w : ws_) la::detail::grow(space_, w, half);
        int q = 0;
        while ((2L << q) <= n) ++q;
        for (int l = 1; l <= q; ++l)
          tridiag_detail::cr_forward<ExecSpace, Real>(space_, sh, a, b, c, d, ws_[0], ws_[1],
                                                      ws_[2], ws_[3], l, flag_.view());
        for (int l = 0; l <= q; ++l)  // 0: the last row; then levels q .. 1
          tridiag_detail::cr_backward<ExecSpace, Real>(space_, sh, a, b, c, d, x, ws_[0], ws_[1],
                                                       ws_[2], ws_[3], l == 0 ? 0 : q + 1 - l,
                                                       flag_.view());
        break;
      }
      case TridiagVariant::pcr:
        tridiag_detail::pcr<ExecSpace, Real>(space_, sh, a, b, c, d, x, pick_team(n),
                                             scratch_level(method, sh), flag_.view());
        break;
      case TridiagVariant::hybrid: {
        const int chunks = tridiag_detail::hybrid_chunks(n, opt_.rows_per_chunk);
        tridiag_detail::hybrid<ExecSpace, Real>(space_, sh, a, b, c, d, x, pick_team(chunks),
                                                chunks, scratch_level(method, sh), flag_.view());
        break;
      }
      case TridiagVariant::partitioned: {
        const int Lmax = segment_rows();
        if (n <= Lmax) {  // one segment: that is the hybrid method
          const int chunks = tridiag_detail::hybrid_chunks(n, opt_.rows_per_chunk);
          tridiag_detail::hybrid<ExecSpace, Real>(space_, sh, a, b, c, d, x, pick_team(chunks),
                                                  chunks, 0, flag_.view());
          break;
        }
        const long C = (n + Lmax - 1) / Lmax;
        if (C > INT_MAX / 2 || ns * 2 * C > LONG_MAX / 2)
          throw std::invalid_argument("tridiag: system too large for the partitioned method");
        const int len = int((n + C - 1) / C);
        const int chunks = tridiag_detail::hybrid_chunks(len, opt_.rows_per_chunk);
        if (int(red_.size()) <= depth) red_.resize(depth + 1);
        const long rn = 2 * C * ns;
        for (auto& w : red_[depth]) la::detail::grow(space_, w, rn);
        // a copy of the handles: the recursion below may resize red_
        const std::array<Array, 5> r = red_[depth];
        tridiag_detail::partition_reduce<ExecSpace, Real>(space_, sh, a, b, c, d, int(C), len,
                                                          pick_team(chunks), chunks, r[0], r[1],
                                                          r[2], r[3], flag_.view());
        const auto rsh = la::contiguous_shape(2 * C, ns);
        // GPUs: hybrid when the reduced system fits on-chip scratch, else thomas
        // (many systems) or partitioned again; CPUs: hybrid or partitioned.
        TridiagVariant next = rsh.n > Lmax ? TridiagVariant::partitioned : TridiagVariant::hybrid;
        if (gpu)
          next = scratch_level(TridiagVariant::hybrid, rsh) == 0 ? TridiagVariant::hybrid
                 : ns >= 4096                                    ? TridiagVariant::thomas
                                                                 : TridiagVariant::partitioned;
        run(rsh, r[0], r[1], r[2], r[3], r[4], next, depth + 1);
        tridiag_detail::partition_solve<ExecSpace, Real>(
            space_, sh, a, b, c, d, x, int(C), len, pick_team(chunks), chunks, r[4], flag_.view());
        break;
      }
    }
  }

  int pick_team(long work_items) const {
    if (opt_.team_size > 0) return opt_.team_size;
    if constexpr (!gpu) {
      (void)work_items;
      return 1;
    } else {
      long t = 32;
      while (t < work_items && t < 256) t *= 2;
      return int(t);
    }
  }

  ExecSpace space_;
  TridiagVariantOptions opt_;
  la::detail::PivotFlag<ExecSpace> flag_;
  Array ws_[4];
  std::vector<std::array<Array, 5>> red_;  // reduced systems of `partitioned`, per depth
};

}  // namespace kflow::linsys
