#pragma once
// `kflow bench tridiag`: the batched and single-system tridiagonal solvers of
// linalg/tridiag.hpp and tridiag_variants.hpp (kept to reproduce Ezzatti &
// Nesmachnow), and cuSPARSE's on the same data in CUDA builds.
//
// Cases (--set case=...):
//   batched  `systems` (default n^2) systems of n unknowns (default n = 512,
//            256) in the contiguous and the interleaved layout;
//   adi      the three directions of one ADI step on an n^3 field
//            (LayoutLeft, lines in x contiguous, in y and z strided), solved in
//            place in the field's own layout; on GPUs also "transpose to
//            interleaved + thomas + transpose back" for the x lines;
//   single   one system of n = 2^16, 2^22, 2^24, 2^25 (the paper's Table 3).
// Bytes per solve: four coefficient arrays read and the solution written, once
// each (5 n systems values): the bytes the effective bandwidth counts.
// register: one row per combination of --set register_rows=8,16 (0: chosen)
// register_team=LIST (0: 256, single systems 128, GPUs' streamed kernel 512)
// register_systems=LIST (0: fill the team) register_stage=auto,on,off
// register_groups=LIST (GPUs' streamed kernel, groups of systems per team; 0:
// chosen); the label shows how each level ran.
// Every timed solve is checked afterwards: the row's note gives
// max |A x - d| / max |d| over all systems.
// kk_pttr (builds with Kokkos Kernels): KokkosBatched's SerialPttrf +
// SerialPttrs (L D L^T, one system per thread; symmetric positive definite
// only), on a symmetric copy of the shape's systems, beside kflow's auto
// solver on the same copy; it runs after the shape's other methods.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/linalg/tridiag.hpp"
#include "kflow/model/error.hpp"
#include "tridiag_variants.hpp"

#if defined(KFLOW_HAVE_KOKKOSKERNELS)
#include <KokkosBatched_Pttrf.hpp>
#include <KokkosBatched_Pttrs.hpp>
#endif

#include "cusparse_handle.hpp"
#ifdef KFLOW_BENCH_CUSPARSE
#define KFLOW_TRIDIAG_CUSPARSE 1
#endif

namespace kflow::linsys {

namespace la = kflow::linalg;

namespace kernels {

// A reproducible value in [-1, 1) from an index (no RNG state on the device).
KOKKOS_INLINE_FUNCTION double hash_unit(unsigned long i, unsigned salt) {
  unsigned long z = i * 0x9E3779B97F4A7C15ul + salt * 0xBF58476D1CE4E5B9ul;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ul;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBul;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// Diagonally dominant rows (|b| >= 1.1 (|a| + |c|) + 0.1), a_0 = c_{n-1} = 0
// (cuSPARSE wants them zero), every slot of the span filled.
template <class ExecSpace, class V>
void fill_systems(const ExecSpace& space, const la::TridiagShape& sh, const V& a, const V& b,
                  const V& c, const V& d) {
  using Real = typename V::value_type;
  const long n = sh.n;
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::fill", Kokkos::RangePolicy<ExecSpace>(space, 0, sh.systems() * n),
      KOKKOS_LAMBDA(long idx) {
        const long m = idx / n, k = idx % n, i = sh.first(m) + k * sh.stride;
        const double av = k > 0 ? hash_unit(i, 1) : 0.0, cv = k + 1 < n ? hash_unit(i, 2) : 0.0;
        const double bv =
            1.1 * (Kokkos::fabs(av) + Kokkos::fabs(cv)) + 0.1 + 0.5 * Kokkos::fabs(hash_unit(i, 3));
        a(i) = Real(av);
        b(i) = Real(hash_unit(i, 4) < 0 ? -bv : bv);
        c(i) = Real(cv);
        d(i) = Real(10 * hash_unit(i, 5));
      });
}

// The symmetric positive definite systems for the kk_pttr rows, in place:
// a_k = c_{k-1}, b_k = |b_k| + |c_{k-1}| + |c_k| (strictly dominant, positive),
// c kept (c_{n-1} = 0).
template <class ExecSpace, class V>
void symmetrize(const ExecSpace& space, const la::TridiagShape& sh, const V& a, const V& b,
                const V& c) {
  const long n = sh.n;
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::symmetrize", Kokkos::RangePolicy<ExecSpace>(space, 0, sh.systems()),
      KOKKOS_LAMBDA(long m) {
        const long f = sh.first(m);
        for (long k = 0; k < n; ++k) {
          const long i = f + k * sh.stride;
          const typename V::value_type left = k > 0 ? c(i - sh.stride) : 0;
          a(i) = left;
          b(i) = Kokkos::fabs(b(i)) + Kokkos::fabs(left) + Kokkos::fabs(c(i));
        }
      });
}

#if defined(KFLOW_HAVE_KOKKOSKERNELS)
// One system a thread: pttrf (d, e overwritten by D and L's subdiagonal),
// then pttrs on x (holding the right-hand side).  Strided unmanaged views of
// the system's rows, so both layouts work.
template <class V>
struct KkPttr {
  using Real = typename V::value_type;
  using S = Kokkos::View<Real*, Kokkos::LayoutStride, typename V::memory_space,
                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  la::TridiagShape sh;
  V d, e, x;
  KOKKOS_INLINE_FUNCTION void operator()(long m) const {
    const long f = sh.first(m), n = sh.n, st = sh.stride;
    const S dv(d.data() + f, Kokkos::LayoutStride(n, st));
    const S ev(e.data() + f, Kokkos::LayoutStride(n - 1, st));
    const S xv(x.data() + f, Kokkos::LayoutStride(n, st));
    KokkosBatched::SerialPttrf<KokkosBatched::Algo::Pttrf::Unblocked>::invoke(dv, ev);
    KokkosBatched::SerialPttrs<KokkosBatched::Uplo::Lower,
                               KokkosBatched::Algo::Pttrs::Unblocked>::invoke(dv, ev, xv);
  }
};
#endif

// max |A x - d| / max |d| over every system.
template <class ExecSpace, class V>
double relative_residual(const ExecSpace& space, const la::TridiagShape& sh, const V& a, const V& b,
                         const V& c, const V& d, const V& x) {
  const long n = sh.n;
  double r = 0, dm = 0;
  Kokkos::parallel_reduce(
      "kflow::linsys::tridiag::residual",
      Kokkos::RangePolicy<ExecSpace>(space, 0, sh.systems() * n),
      KOKKOS_LAMBDA(long idx, double& acc, double& dacc) {
        const long m = idx / n, k = idx % n, f = sh.first(m), i = f + k * sh.stride;
        double v = double(b(i)) * double(x(i)) - double(d(i));
        if (k > 0) v += double(a(i)) * double(x(i - sh.stride));
        if (k + 1 < n) v += double(c(i)) * double(x(i + sh.stride));
        acc = Kokkos::fmax(acc, Kokkos::fabs(v));
        dacc = Kokkos::fmax(dacc, Kokkos::fabs(double(d(i))));
      },
      Kokkos::Max<double>(r), Kokkos::Max<double>(dm));
  space.fence();
  return dm > 0 ? r / dm : r;
}

// dst (interleaved, k * ns + m) = src (contiguous, m * n + k), or back.
template <class ExecSpace, class V>
void transpose(const ExecSpace& space, long n, long ns, const V& src, const V& dst,
               bool to_interleaved) {
  using P = Kokkos::MDRangePolicy<ExecSpace,
                                  Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
  Kokkos::parallel_for(
      "kflow::linsys::tridiag::transpose", P(space, {0, 0}, {n, ns}),
      KOKKOS_LAMBDA(long k, long m) {
        if (to_interleaved)
          dst(k * ns + m) = src(m * n + k);
        else
          src(m * n + k) = dst(k * ns + m);
      });
}

}  // namespace kernels

#ifdef KFLOW_TRIDIAG_CUSPARSE
namespace cusp {
// kind: 0 gtsv2StridedBatch (contiguous), 1 gtsvInterleavedBatch algorithm 0
// (interleaved), 2 gtsv2_nopivot (one system).  B is the right-hand side in,
// the solution out.
inline std::size_t buffer_size(const Handle& H, int kind, int n, int ns, const double* dl,
                               const double* d, const double* du, const double* B) {
  std::size_t s = 0;
  if (kind == 0)
    check(cusparseDgtsv2StridedBatch_bufferSizeExt(H.h, n, dl, d, du, B, ns, n, &s), "buffer");
  else if (kind == 1)
    check(cusparseDgtsvInterleavedBatch_bufferSizeExt(H.h, 0, n, dl, d, du, B, ns, &s), "buffer");
  else
    check(cusparseDgtsv2_nopivot_bufferSizeExt(H.h, n, 1, dl, d, du, B, n, &s), "buffer");
  return s;
}
inline std::size_t buffer_size(const Handle& H, int kind, int n, int ns, const float* dl,
                               const float* d, const float* du, const float* B) {
  std::size_t s = 0;
  if (kind == 0)
    check(cusparseSgtsv2StridedBatch_bufferSizeExt(H.h, n, dl, d, du, B, ns, n, &s), "buffer");
  else if (kind == 1)
    check(cusparseSgtsvInterleavedBatch_bufferSizeExt(H.h, 0, n, dl, d, du, B, ns, &s), "buffer");
  else
    check(cusparseSgtsv2_nopivot_bufferSizeExt(H.h, n, 1, dl, d, du, B, n, &s), "buffer");
  return s;
}
inline void solve(const Handle& H, int kind, int n, int ns, double* dl, double* d, double* du,
                  double* B, void* buf) {
  if (kind == 0)
    check(cusparseDgtsv2StridedBatch(H.h, n, dl, d, du, B, ns, n, buf), "gtsv2StridedBatch");
  else if (kind == 1)
    check(cusparseDgtsvInterleavedBatch(H.h, 0, n, dl, d, du, B, ns, buf), "gtsvInterleavedBatch");
  else
    check(cusparseDgtsv2_nopivot(H.h, n, 1, dl, d, du, B, n, buf), "gtsv2_nopivot");
}
inline void solve(const Handle& H, int kind, int n, int ns, float* dl, float* d, float* du,
                  float* B, void* buf) {
  if (kind == 0)
    check(cusparseSgtsv2StridedBatch(H.h, n, dl, d, du, B, ns, n, buf), "gtsv2StridedBatch");
  else if (kind == 1)
    check(cusparseSgtsvInterleavedBatch(H.h, 0, n, dl, d, du, B, ns, buf), "gtsvInterleavedBatch");
  else
    check(cusparseSgtsv2_nopivot(H.h, n, 1, dl, d, du, B, n, buf), "gtsv2_nopivot");
}
}  // namespace cusp
#endif

template <class Space, class Real>
std::vector<KernelBenchRow> run_tridiag(const KernelBenchOptions& o, std::ostream& log) {
  using Mem = typename Space::memory_space;
  using V = Kokkos::View<Real*, Mem>;
  constexpr bool gpu = la::Tridiag<Space, Real>::gpu;
  const auto& P = o.params;
  const std::string which = P.get_choice("case", "batched", {"batched", "adi", "single"});
  const std::vector<long> default_n =
      which == "single" ? std::vector<long>{1L << 16, 1L << 22, 1L << 24, 1L << 25}
      : which == "adi"  ? std::vector<long>{gpu ? 512L : 256L}
                        : std::vector<long>{512, 256};
  const auto sizes = P.get_ints("n", default_n, 1);
  const long systems_set = P.get_int("systems", 0, 0);
  std::vector<std::string> method_names = {"thomas",      "cr",       "pcr", "hybrid",
                                           "partitioned", "register", "auto"};
#ifdef KFLOW_TRIDIAG_CUSPARSE
  if (gpu) method_names.push_back("cusparse");
#endif
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
  method_names.push_back("kk_pttr");
#endif
  const auto methods = P.get_choices(
      "method",
      which == "single"
          ? (gpu ? "cr,partitioned,register,auto,cusparse" : "thomas,cr,partitioned,register")
          : "all",
      method_names);
  const auto layouts =
      P.get_choices("layout", "contiguous,interleaved", {"contiguous", "interleaved"});
  const int rows = int(P.get_int("rows_per_chunk", 8, 2));
  const int team = int(P.get_int("team_size", 0, 0));
  const int segment = int(P.get_int("segment_rows", 0, 0));
  if (segment != 0 && segment < 8)
    throw Error("bench tridiag: --set segment_rows=" + std::to_string(segment) +
                ": expected 0 (automatic) or >= 8");
  // register: every combination of these lists is timed (one row each)
  const auto reg_rows = P.get_ints("register_rows", {0}, 0);
  const auto reg_team = P.get_ints("register_team", {0}, 0);
  const auto reg_systems = P.get_ints("register_systems", {0}, 0);
  const auto reg_stage = P.get_choices("register_stage", "auto", {"auto", "on", "off"});
  const auto reg_groups = P.get_ints("register_groups", {0}, 0);
  for (long r : reg_rows)
    if (r != 0 && r != 8 && r != 16)
      throw Error("bench tridiag: --set register_rows=" + std::to_string(r) +
                  ": expected 8 or 16 (0: chosen by shape)");
  P.check_unknown("tridiag");
  const int repeat = std::max(1, o.repeat);

  Space space;
  std::vector<KernelBenchRow> rows_out;
  // Pivots are checked once per row below, outside the timing.
  auto register_options = [&](long rr, long rt, long rs, const std::string& st, long rg) {
    la::TridiagOptions opt;
    opt.check_pivots = false;
    opt.register_groups = int(rg);
    opt.register_rows = int(rr);
    opt.register_team = int(rt);
    opt.register_systems = int(rs);
    opt.register_stage = st == "auto" ? -1 : st == "on" ? 1 : 0;
    return opt;
  };
  // the first of each list for auto (the register rows set their own)
  la::Tridiag<Space, Real> solver(space, register_options(reg_rows[0], reg_team[0], reg_systems[0],
                                                          reg_stage[0], reg_groups[0]));
  TridiagVariantOptions vopt;
  vopt.check_pivots = false;
  vopt.rows_per_chunk = rows;
  vopt.team_size = team;
  vopt.segment_rows = segment;
  TridiagVariants<Space, Real> variants(space, vopt);

  auto timed = [&](auto&& fn) {
    return best_time(space, repeat, fn, 1);  // (the first run warms up)
  };
  auto fmt = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1e", v);
    return std::string(buf);
  };

  // Times every requested method on one shape; x separate from d.
  auto run_shape = [&](const la::TridiagShape& sh, const std::string& what, const V& a, const V& b,
                       const V& c, const V& d, const V& x) {
    const double bytes = 5.0 * double(sh.n) * double(sh.systems()) * sizeof(Real);
    bool kk_pttr = false;
    for (const auto& mname : methods) {
      KernelBenchRow row;
      row.bytes = bytes;
      if (mname == "kk_pttr") {
        kk_pttr = true;  // last: it makes a, b, c symmetric
        continue;
      }
      if (mname == "cusparse") {
#ifdef KFLOW_TRIDIAG_CUSPARSE
        if constexpr (gpu) {
          const bool single = sh.systems() == 1;
          const int kind = single ? 2 : sh.interleaved() ? 1 : 0;
          const bool contiguous = sh.stride == 1 && sh.system_stride[0] == sh.n && sh.offset == 0;
          if ((kind == 0 && !contiguous) || (kind == 1 && sh.stride != sh.systems()) ||
              (kind == 0 && sh.n < 3) || sh.n > 2147483647L || sh.systems() > 2147483647L)
            continue;
          const long len = sh.n * sh.systems();
          V ca("ca", len), cb("cb", len), cc("cc", len);
          cusp::Handle H(space.cuda_stream());
          const std::size_t bs = cusp::buffer_size(H, kind, int(sh.n), int(sh.systems()), ca.data(),
                                                   cb.data(), cc.data(), x.data());
          Kokkos::View<char*, Mem> buf("cusparse buffer", bs + 1);
          double best = std::numeric_limits<double>::infinity();
          for (int r = 0; r < repeat + 1; ++r) {
            // cuSPARSE may overwrite its inputs: fresh copies each time, untimed.
            Kokkos::deep_copy(space, ca, a);
            Kokkos::deep_copy(space, cb, b);
            Kokkos::deep_copy(space, cc, c);
            Kokkos::deep_copy(space, x, d);
            space.fence();
            Kokkos::Timer t;
            cusp::solve(H, kind, int(sh.n), int(sh.systems()), ca.data(), cb.data(), cc.data(),
                        x.data(), buf.data());
            cusp::check(cudaStreamSynchronize(space.cuda_stream()), "synchronize");
            if (r > 0) best = std::min(best, t.seconds());
          }
          row.seconds = best;
          row.label = what + ", cusparse " +
                      (kind == 0   ? "gtsv2StridedBatch"
                       : kind == 1 ? "gtsvInterleavedBatch(0)"
                                   : "gtsv2_nopivot");
        }
#endif
      } else if (mname == "register") {
        // one row per combination of the register settings
        for (long rr : reg_rows)
          for (long rt : reg_team)
            for (long rs : reg_systems)
              for (const auto& st : reg_stage)
                for (long rg : reg_groups) {
                  la::Tridiag<Space, Real> reg(space, register_options(rr, rt, rs, st, rg));
                  KernelBenchRow rrow;
                  rrow.bytes = bytes;
                  rrow.seconds =
                      timed([&] { reg.solve(sh, a, b, c, d, x, la::TridiagMethod::register_); });
                  rrow.label = what + ", register (" + reg.register_plan() + ")";
                  rrow.note =
                      "residual " + fmt(kernels::relative_residual(space, sh, a, b, c, d, x));
                  rows_out.push_back(rrow);
                }
        continue;
      } else if (mname != "thomas" && mname != "auto") {  // tridiag_variants.hpp's
        const auto m = la::parse<TridiagVariant>(mname);
        if (!variants.fits(m, sh)) {
          log << "tridiag: " << mname << " skipped for " << what
              << " (does not fit team scratch)\n";
          continue;
        }
        row.seconds = timed([&] { variants.solve(sh, a, b, c, d, x, m); });
        row.label = what + ", " + mname;
        if (variants.scratch_level(m, sh) == 1) row.label += " [scratch in global memory]";
      } else {
        const auto m = la::parse<la::TridiagMethod>(mname);
        if (gpu && m == la::TridiagMethod::thomas && sh.systems() < 1024 && sh.n > (1 << 20)) {
          log << "tridiag: thomas skipped for " << what << " on the GPU (one thread)\n";
          continue;
        }
        la::TridiagMethod used = m;
        row.seconds = timed([&] { used = solver.solve(sh, a, b, c, d, x, m); });
        row.label = what + ", " + mname +
                    (m == la::TridiagMethod::automatic ? std::string(" (") + la::name(used) + ")"
                                                       : std::string());
        if (m == la::TridiagMethod::automatic && used == la::TridiagMethod::register_)
          row.label += " [" + solver.register_plan() + "]";
      }
      row.note = "residual " + fmt(kernels::relative_residual(space, sh, a, b, c, d, x));
      rows_out.push_back(row);
    }
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
    if (kk_pttr && sh.n >= 2) {
      if (gpu && sh.systems() < 1024) {
        log << "tridiag: kk_pttr skipped for " << what << " on the GPU (one thread a system)\n";
        return;
      }
      kernels::symmetrize(space, sh, a, b, c);
      // kflow's solver on the symmetric copy (the rows' reference)
      KernelBenchRow own;
      own.bytes = bytes;
      la::TridiagMethod used = la::TridiagMethod::automatic;
      own.seconds = timed([&] { used = solver.solve(sh, a, b, c, d, x); });
      own.label = what + ", symmetric copy, auto (" + std::string(la::name(used)) + ")";
      own.note = "residual " + fmt(kernels::relative_residual(space, sh, a, b, c, d, x));
      rows_out.push_back(own);
      // pttrf + pttrs: d, e and x overwritten, so fresh copies (untimed) each run
      V dw("kk_pttr d", b.extent(0)), ew("kk_pttr e", c.extent(0));
      double best = std::numeric_limits<double>::infinity();
      for (int r = 0; r < repeat + 1; ++r) {
        Kokkos::deep_copy(space, dw, b);
        Kokkos::deep_copy(space, ew, c);
        Kokkos::deep_copy(space, x, d);
        space.fence();
        Kokkos::Timer t;
        Kokkos::parallel_for("kflow::linsys::tridiag::kk_pttr",
                             Kokkos::RangePolicy<Space>(space, 0, sh.systems()),
                             kernels::KkPttr<V>{sh, dw, ew, x});
        space.fence();
        if (r > 0) best = std::min(best, t.seconds());
      }
      KernelBenchRow kk;
      kk.bytes = bytes;
      kk.seconds = best;
      kk.label = what + ", symmetric copy, Kokkos Kernels SerialPttrf + SerialPttrs";
      kk.note = "residual " + fmt(kernels::relative_residual(space, sh, a, b, c, d, x));
      rows_out.push_back(kk);
    }
#else
    (void)kk_pttr;
#endif
  };

  for (long n : sizes) {
    if (which == "single") {
      const auto sh = la::contiguous_shape(n, 1);
      V a("a", n), b("b", n), c("c", n), d("d", n), x("x", n);
      kernels::fill_systems(space, sh, a, b, c, d);
      run_shape(sh, "1 system, n = " + std::to_string(n), a, b, c, d, x);
    } else if (which == "batched") {
      const long ns = systems_set > 0 ? systems_set : n * n;
      V a("a", n * ns), b("b", n * ns), c("c", n * ns), d("d", n * ns), x("x", n * ns);
      for (const auto& lay : layouts) {
        const auto sh =
            lay == "contiguous" ? la::contiguous_shape(n, ns) : la::interleaved_shape(n, ns);
        kernels::fill_systems(space, sh, a, b, c, d);
        run_shape(sh, std::to_string(ns) + " systems x n = " + std::to_string(n) + ", " + lay, a, b,
                  c, d, x);
      }
    } else {  // adi: lines of an n^3 field in x, y, z (no ghost layers)
      const long total = n * n * n;
      V a("a", total), b("b", total), c("c", total), d("d", total), x("x", total);
      const long e[3] = {n, n, n};
      for (int dir = 0; dir < 3; ++dir) {
        const auto sh = la::line_shape(e, 3, 0, dir);
        kernels::fill_systems(space, sh, a, b, c, d);
        const std::string what =
            std::to_string(n) + "^3 field, lines in " + std::string(1, "xyz"[dir]);
        run_shape(sh, what, a, b, c, d, x);
        if (dir == 0 && gpu) {
          // x lines through an interleaved copy: transpose a, b, c, d, solve
          // with one thread per system, transpose x back.
          V ta("ta", total), tb("tb", total), tc("tc", total), td("td", total), tx("tx", total);
          const long ns = n * n;
          const auto ish = la::interleaved_shape(n, ns);
          KernelBenchRow row;
          row.bytes = 5.0 * double(total) * sizeof(Real);
          row.seconds = timed([&] {
            kernels::transpose(space, n, ns, a, ta, true);
            kernels::transpose(space, n, ns, b, tb, true);
            kernels::transpose(space, n, ns, c, tc, true);
            kernels::transpose(space, n, ns, d, td, true);
            solver.solve(ish, ta, tb, tc, td, tx, la::TridiagMethod::thomas);
            kernels::transpose(space, n, ns, x, tx, false);
          });
          row.label = what + ", transpose + thomas interleaved + transpose back";
          row.note = "residual " + fmt(kernels::relative_residual(space, sh, a, b, c, d, x));
          rows_out.push_back(row);
          KernelBenchRow tr;
          tr.bytes = 2.0 * double(total) * sizeof(Real);
          tr.seconds = timed([&] { kernels::transpose(space, n, ns, a, ta, true); });
          tr.label = what + ", one array transposed (part of the row above)";
          rows_out.push_back(tr);
        }
      }
    }
  }
  return rows_out;
}

}  // namespace kflow::linsys
