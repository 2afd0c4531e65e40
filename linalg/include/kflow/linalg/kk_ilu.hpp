#pragma once
// ILU(k) from Kokkos Kernels as a preconditioner of the CRS solvers
// (kk_gmres.hpp): the incomplete factorization A ~ L U by
// KokkosSparse::spiluk (level-of-fill k), applied as two sparse triangular
// solves (KokkosSparse::sptrsv, level scheduled).  The general-sparse cousin
// of Stone's SIP (sip.hpp), which factors the 5-point operator with its
// own stencil.  Rows outside the system (empty in make_crs) get a unit
// diagonal for the factorization, so that L and U stay non-singular; the
// preconditioner passes those entries through.  Needs Kokkos Kernels.

#include <KokkosBlas1_axpby.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_Preconditioner.hpp>
#include <KokkosSparse_spiluk.hpp>
#include <KokkosSparse_sptrsv.hpp>
#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

#include "kflow/linalg/crs.hpp"

namespace kflow::linalg::detail {

template <class Crs>
class KkIlu : public KokkosSparse::Experimental::Preconditioner<Crs> {
  using Base = KokkosSparse::Experimental::Preconditioner<Crs>;
  using Real = typename Base::ScalarType;
  using Exec = typename Base::EXSP;
  using Mem = typename Base::MEMSP;
  using Device = Kokkos::Device<Exec, Mem>;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<int, int, Real, Exec, Mem, Mem>;
  using Offsets = Kokkos::View<int*, Device>;
  using Values = Kokkos::View<Real*, Device>;

 public:
  // Factors A (its empty rows taken as unit rows) with level of fill `level`.
  KkIlu(const Crs& A, int level) : level_(level) {
    if (level < 0)
      throw std::invalid_argument("ILU(k): level of fill " + std::to_string(level) +
                                  ": needs k >= 0");
    const int n = A.numRows();
    const Crs Au = crs_with_unit_rows(A);
    auto arm = Au.graph.row_map;
    auto ace = Au.graph.entries;
    auto ava = Au.values;
    const int nnz = int(Au.nnz());

    // spiluk: symbolic (sizes L and U for this level of fill), numeric.
    Handle kh;
    const int guess = (level + 2) * nnz;
    kh.create_spiluk_handle(KokkosSparse::Experimental::SPILUKAlgorithm::SEQLVLSCHD_TP1, n, guess,
                            guess);
    auto* ih = kh.get_spiluk_handle();
    lrm_ = Offsets("kflow::kk_ilu::L_row_map", n + 1);
    urm_ = Offsets("kflow::kk_ilu::U_row_map", n + 1);
    lce_ = Offsets("kflow::kk_ilu::L_entries", ih->get_nnzL());
    uce_ = Offsets("kflow::kk_ilu::U_entries", ih->get_nnzU());
    KokkosSparse::spiluk_symbolic(&kh, level, arm, ace, lrm_, lce_, urm_, uce_);
    Kokkos::resize(lce_, ih->get_nnzL());
    Kokkos::resize(uce_, ih->get_nnzU());
    lva_ = Values("kflow::kk_ilu::L_values", ih->get_nnzL());
    uva_ = Values("kflow::kk_ilu::U_values", ih->get_nnzU());
    KokkosSparse::spiluk_numeric(&kh, level, arm, ace, ava, lrm_, lce_, lva_, urm_, uce_, uva_);
    kh.destroy_spiluk_handle();
    nnz_lu_ = long(ih_nnz(lce_) + ih_nnz(uce_));
    // The triangular solves' level schedules, once.
    khl_.create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n, true);
    khu_.create_sptrsv_handle(KokkosSparse::Experimental::SPTRSVAlgorithm::SEQLVLSCHD_TP1, n,
                              false);
    KokkosSparse::sptrsv_symbolic(&khl_, lrm_, lce_);
    KokkosSparse::sptrsv_symbolic(&khu_, urm_, uce_);
    tmp_ = Values("kflow::kk_ilu::tmp", n);
    out_ = Values("kflow::kk_ilu::out", n);
  }
  ~KkIlu() override {
    khl_.destroy_sptrsv_handle();
    khu_.destroy_sptrsv_handle();
  }
  KkIlu(const KkIlu&) = delete;
  KkIlu& operator=(const KkIlu&) = delete;

  // y = beta y + alpha U^-1 L^-1 x.
  void apply(const Kokkos::View<const Real*, Device>& x, const Kokkos::View<Real*, Device>& y,
             const char* = "N", Real alpha = Real(1), Real beta = Real(0)) const override {
    KokkosSparse::sptrsv_solve(&khl_, lrm_, lce_, lva_, x, tmp_);
    KokkosSparse::sptrsv_solve(&khu_, urm_, uce_, uva_, tmp_, out_);
    KokkosBlas::axpby(alpha, out_, beta, y);
  }
  void setParameters() override {}
  void initialize() override {}
  bool isInitialized() const override { return true; }
  void compute() override {}
  bool isComputed() const override { return true; }

  int level() const { return level_; }
  // Entries of L and U together (the factors' size).
  long factor_entries() const { return nnz_lu_; }

 private:
  static std::size_t ih_nnz(const Offsets& e) { return e.extent(0); }
  int level_;
  long nnz_lu_ = 0;
  Offsets lrm_, lce_, urm_, uce_;
  Values lva_, uva_;
  mutable Handle khl_, khu_;
  Values tmp_, out_;
};

}  // namespace kflow::linalg::detail
