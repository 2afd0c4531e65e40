#pragma once
// `kflow bench spmv`: y = A x for the 5-point Laplacian on n x n cells
// (Dirichlet sides, linalg::Uniform5), three ways:
//   matrix-free  linalg::apply on the Uniform5 operator (coefficients in
//                registers): ideal traffic x read once + y written,
//                2 values per cell;
//   DIA          linalg::spmv on the same operator assembled by make_dia5,
//                the storage of Baumann & Buran: + the 5 diagonals, 7 values per
//                cell;
//   CRS          KokkosSparse::spmv (Kokkos Kernels) on the same operator
//                assembled by linalg::make_crs, on 1-D vectors of the rows
//                (x gathered from the field outside the timing): + the
//                values, column indices (int) and row offsets (int): in
//                double 8 + 8 + 5 (8 + 4) + 4 = 80 bytes per interior cell,
//                10 values' worth (the edges a little less).  Only where Kokkos
//                Kernels is in the build (KFLOW_HAVE_KOKKOSKERNELS); elsewhere
//                the row says so and is not timed.
//   cuSPARSE     cusparseSpMV (CSR, 32-bit indices, its default algorithm) on
//                the same CRS arrays, in CUDA builds with Kokkos Kernels, on
//                the cuda backend: NVIDIA's library beside Kokkos Kernels' own
//                kernel (whether Kokkos Kernels dispatches to cuSPARSE itself
//                depends on its build).
// Each timed row carries those ideal bytes, so the bench prints the effective
// bandwidth against the ceiling measured in the same run, and GFlop/s
// at 9 flops per row (5 multiplies, 4 adds; the thesis counts 5 x 2 = 10).
// The DIA and CRS rows' notes also give max |y - y_matrix-free| / max |y|.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "kflow/core/bench.hpp"
#include "kflow/linalg/dia.hpp"
#include "kflow/linalg/operator.hpp"
#include "kflow/linalg/reduce.hpp"
#include "kflow/model/error.hpp"
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
#include <KokkosSparse_spmv.hpp>

#include "kflow/linalg/crs.hpp"
#endif
#include "cusparse_handle.hpp"

namespace kflow::linsys {

namespace spmv_detail {
namespace la = kflow::linalg;

// x uniform in [-1, 1) on the interior from a hash of (i, j), ghosts 0.
template <class Space, class F>
void fill_x(const Space& space, const la::Grid& g, const F& x) {
  using Real = typename F::value_type;
  Kokkos::parallel_for(
      "kflow::linsys::spmv::x", la::interior_policy<2>(space, g), KOKKOS_LAMBDA(int i, int j) {
        std::uint64_t z = std::uint64_t(i) * 0x9E3779B97F4A7C15ull + std::uint64_t(j);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x(i, j) = Real(double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
      });
}

// max |a - b| over the interior.
template <class Space, class F>
double max_diff(const Space& space, const la::Grid& g, const F& a, const F& b) {
  double r = 0;
  Kokkos::parallel_reduce(
      "kflow::linsys::spmv::compare", la::interior_policy<2>(space, g),
      KOKKOS_LAMBDA(int i, int j, double& acc) {
        const double d = la::nan_as_inf(Kokkos::fabs(double(a(i, j)) - double(b(i, j))));
        acc = d > acc ? d : acc;
      },
      Kokkos::Max<double>(r));
  space.fence("kflow::linsys::spmv::compare");
  return r;
}

// max |y(r) - m(r)| and max |m(r)| over the rows (a named functor: nvcc
// cannot take an extended lambda in a function templated on a local lambda).
template <class V>
struct RowsCompare {
  V y, m;
  KOKKOS_INLINE_FUNCTION void operator()(int r, double& d, double& mm) const {
    const double e = la::nan_as_inf(Kokkos::fabs(double(y(r)) - double(m(r))));
    const double a = Kokkos::fabs(double(m(r)));
    d = e > d ? e : d;
    mm = a > mm ? a : mm;
  }
};

// The Kokkos Kernels row: KokkosSparse::spmv(space, "N", 1, A, x, 0, y) on the
// CRS form of `op`, timed by `best_of`; `ym` is the matrix-free product.
template <class Space, class Real, class Op, class F, class BestOf>
KernelBenchRow kokkos_kernels_row(const Space& space, const Op& op, const F& x, const F& ym,
                                  const std::string& size, BestOf&& best_of) {
  KernelBenchRow row;
  row.label = size + ", Kokkos Kernels CRS (KokkosSparse::spmv)";
#if defined(KFLOW_HAVE_KOKKOSKERNELS)
  const la::Grid& g = op.grid;
  const auto A = la::make_crs(space, op);
  using V = Kokkos::View<Real*, Kokkos::Device<Space, typename Space::memory_space>>;
  const int n = int(la::crs_rows(g));
  V xv(Kokkos::view_alloc(space, "kflow::linsys::spmv::x_rows"), n);
  V yv(Kokkos::view_alloc(space, "kflow::linsys::spmv::y_crs"), n);
  V mv(Kokkos::view_alloc(space, "kflow::linsys::spmv::y_matrix_free_rows"), n);
  la::gather_rows(space, g, x, xv);
  la::gather_rows(space, g, ym, mv);
  row.seconds = best_of([&] { KokkosSparse::spmv(space, "N", Real(1), A, xv, Real(0), yv); });
  const double cells = double(n), nnz = double(A.nnz());
  row.bytes =
      2 * cells * sizeof(Real) + nnz * (sizeof(Real) + sizeof(int)) + (cells + 1) * sizeof(int);
  double diff = 0, ymax = 0;
  Kokkos::parallel_reduce("kflow::linsys::spmv::compare_crs",
                          Kokkos::RangePolicy<Space>(space, 0, n), RowsCompare<V>{yv, mv},
                          Kokkos::Max<double>(diff), Kokkos::Max<double>(ymax));
  space.fence("kflow::linsys::spmv::compare_crs");
  char buf[160];
  std::snprintf(
      buf, sizeof buf,
      "%.3g GFlop/s at 9 flop/row, %.0f entries, max|y_CRS - y_matrix-free| = %.2g max|y|",
      9 * cells / row.seconds / 1e9, nnz, ymax > 0 ? diff / ymax : diff);
  row.note = buf;
#else
  (void)space, (void)op, (void)x, (void)ym, (void)best_of;
  row.note = "Kokkos Kernels not in this build";
#endif
  return row;
}

#if defined(KFLOW_HAVE_KOKKOSKERNELS) && defined(KFLOW_BENCH_CUSPARSE)
// CRS row offsets as int, for cuSPARSE's 32-bit index type (a named functor, as above).
template <class From, class To>
struct OffsetsToInt {
  From from;
  To to;
  KOKKOS_INLINE_FUNCTION void operator()(int r) const { to(r) = int(from(r)); }
};

// The cuSPARSE row: cusparseSpMV on the CRS form of `op` (row offsets copied to
// int), compared with the matrix-free product `ym` like the CRS row.
template <class Real, class Op, class F, class BestOf>
KernelBenchRow cusparse_row(const Kokkos::Cuda& space, const Op& op, const F& x, const F& ym,
                            const std::string& size, BestOf&& best_of) {
  KernelBenchRow row;
  row.label = size + ", cuSPARSE CRS (cusparseSpMV)";
  const la::Grid& g = op.grid;
  const auto A = la::make_crs(space, op);
  using Mem = Kokkos::CudaSpace;
  using V = Kokkos::View<Real*, Kokkos::Device<Kokkos::Cuda, Mem>>;
  const int n = int(la::crs_rows(g));
  const auto nnz = std::int64_t(A.nnz());
  Kokkos::View<int*, Mem> offsets(Kokkos::view_alloc(space, "kflow::linsys::spmv::offsets"), n + 1);
  Kokkos::parallel_for(
      "kflow::linsys::spmv::offsets", Kokkos::RangePolicy<Kokkos::Cuda>(space, 0, n + 1),
      OffsetsToInt<decltype(A.graph.row_map), decltype(offsets)>{A.graph.row_map, offsets});
  V xv(Kokkos::view_alloc(space, "kflow::linsys::spmv::x_rows"), n);
  V yv(Kokkos::view_alloc(space, "kflow::linsys::spmv::y_cusparse"), n);
  V mv(Kokkos::view_alloc(space, "kflow::linsys::spmv::y_matrix_free_rows"), n);
  la::gather_rows(space, g, x, xv);
  la::gather_rows(space, g, ym, mv);
  space.fence("kflow::linsys::spmv::cusparse_setup");
  constexpr cudaDataType type = sizeof(Real) == 8 ? CUDA_R_64F : CUDA_R_32F;
  cusp::Handle H(space.cuda_stream());
  cusparseSpMatDescr_t mat = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  cusp::check(
      cusparseCreateCsr(&mat, n, n, nnz, offsets.data(), A.graph.entries.data(), A.values.data(),
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type),
      "createCsr");
  cusp::check(cusparseCreateDnVec(&vx, n, xv.data(), type), "createDnVec");
  cusp::check(cusparseCreateDnVec(&vy, n, yv.data(), type), "createDnVec");
  const Real one = 1, zero = 0;
  std::size_t bytes = 0;
  cusp::check(cusparseSpMV_bufferSize(H.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero,
                                      vy, type, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
              "SpMV_bufferSize");
  Kokkos::View<char*, Mem> buffer(Kokkos::view_alloc(space, "kflow::linsys::spmv::cusparse_buffer"),
                                  std::max<std::size_t>(bytes, 1));
  space.fence("kflow::linsys::spmv::cusparse_buffer");
  try {
    row.seconds = best_of([&] {
      cusp::check(cusparseSpMV(H.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                               type, CUSPARSE_SPMV_ALG_DEFAULT, buffer.data()),
                  "SpMV");
    });
    cusp::check(cudaGetLastError(), "SpMV launch");
  } catch (...) {
    cusparseDestroyDnVec(vy);
    cusparseDestroyDnVec(vx);
    cusparseDestroySpMat(mat);
    throw;
  }
  cusp::check(cusparseDestroyDnVec(vy), "destroyDnVec");
  cusp::check(cusparseDestroyDnVec(vx), "destroyDnVec");
  cusp::check(cusparseDestroySpMat(mat), "destroySpMat");
  const double cells = double(n);
  row.bytes = 2 * cells * sizeof(Real) + double(nnz) * (sizeof(Real) + sizeof(int)) +
              (cells + 1) * sizeof(int);
  double diff = 0, ymax = 0;
  Kokkos::parallel_reduce("kflow::linsys::spmv::compare_cusparse",
                          Kokkos::RangePolicy<Kokkos::Cuda>(space, 0, n), RowsCompare<V>{yv, mv},
                          Kokkos::Max<double>(diff), Kokkos::Max<double>(ymax));
  space.fence("kflow::linsys::spmv::compare_cusparse");
  char buf[160];
  std::snprintf(
      buf, sizeof buf,
      "%.3g GFlop/s at 9 flop/row, %.0f entries, max|y_cuSPARSE - y_matrix-free| = %.2g max|y|",
      9 * cells / row.seconds / 1e9, double(nnz), ymax > 0 ? diff / ymax : diff);
  row.note = buf;
  return row;
}
#endif
}  // namespace spmv_detail

template <class Space, class Real>
std::vector<KernelBenchRow> run_spmv(const KernelBenchOptions& o, std::ostream& log) {
  namespace la = kflow::linalg;
  using Mem = typename Space::memory_space;
  using F = la::Field<Real, 2, Mem>;
  const auto& P = o.params;
  const auto ns = P.get_ints("n", {1024, 4096}, 1);
  P.check_unknown("spmv");
  for (long n : ns)
    if (n > 46340)
      throw Error("bench spmv: --set n=" + std::to_string(n) +
                  ": expected n <= 46340 (n^2 rows in an int)");
  const int repeat = std::max(1, o.repeat);
  Space space;
  std::vector<KernelBenchRow> rows;
  auto fmt = [](const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  // Best of `repeat` after one untimed call (first touch, caches).
  auto best_of = [&](auto&& fn) {
    return best_time(space, repeat, fn, 1);
  };
  auto gflops = [&](double cells, double seconds) {
    return fmt("%.3g GFlop/s at 9 flop/row", 9 * cells / seconds / 1e9);
  };

  for (long nl : ns) {
    const int n = int(nl);
    la::Grid g;
    g.dim = 2;
    g.cells = {n, n, 1};
    la::Uniform5<Real> op;
    const double a = double(n) * n;  // 1 / h^2 on the unit square
    op.c = {Real(-4 * a), Real(a), Real(a), Real(a), Real(a)};
    op.grid = g;
    la::set_neighbours(op, g, false, false);
    const F x = la::make_field<Real, 2>(space, "kflow::linsys::spmv::x", g);
    const F ym = la::make_field<Real, 2>(space, "kflow::linsys::spmv::y_matrix_free", g);
    const F yd = la::make_field<Real, 2>(space, "kflow::linsys::spmv::y_dia", g);
    spmv_detail::fill_x(space, g, x);
    const std::string size = std::to_string(n) + "^2 cells";
    const double cells = double(n) * n;

    KernelBenchRow mf;
    mf.label = size + ", matrix-free Uniform5 (linalg::apply)";
    mf.seconds = best_of([&] { la::apply(space, op, x, ym); });
    mf.bytes = 2 * cells * sizeof(Real);  // x read once, y written
    mf.note = gflops(cells, mf.seconds);
    rows.push_back(mf);

    const auto dia = la::make_dia5(space, op);
    KernelBenchRow dr;
    dr.label = size + ", DIA (linalg::spmv)";
    dr.seconds = best_of([&] { la::spmv(space, dia, x, yd); });
    dr.bytes = 7 * cells * sizeof(Real);  // + 5 diagonals
    const double diff = spmv_detail::max_diff(space, g, yd, ym);
    const double ymax = la::max_norm(space, g, ym);
    dr.note = gflops(cells, dr.seconds) +
              ", max|y_DIA - y_matrix-free| = " + fmt("%.2g", ymax > 0 ? diff / ymax : diff) +
              " max|y|";
    rows.push_back(dr);
    log << "spmv: " << size << ": matrix-free " << fmt("%.4g", mf.seconds * 1e3) << " ms, DIA "
        << fmt("%.4g", dr.seconds * 1e3) << " ms\n";

    rows.push_back(spmv_detail::kokkos_kernels_row<Space, Real>(space, op, x, ym, size, best_of));
#if defined(KFLOW_HAVE_KOKKOSKERNELS) && defined(KFLOW_BENCH_CUSPARSE)
    if constexpr (std::is_same_v<Space, Kokkos::Cuda>)
      rows.push_back(spmv_detail::cusparse_row<Real>(space, op, x, ym, size, best_of));
#endif
  }
  return rows;
}

}  // namespace kflow::linsys
