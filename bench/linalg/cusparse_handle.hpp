#pragma once
// A cuSPARSE handle on a stream and checked cuSPARSE and CUDA runtime calls, for the
// benches' cuSPARSE rows (tridiag: gtsv; spmv: SpMV on CRS).  Only in CUDA builds that
// link cuSPARSE (KFLOW_HAVE_CUSPARSE): a failure throws kflow::Error naming the call.

#if defined(KFLOW_HAVE_CUSPARSE) && defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

#include "kflow/model/error.hpp"

#define KFLOW_BENCH_CUSPARSE 1

namespace kflow::linsys::cusp {

inline void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw kflow::Error(std::string("cuSPARSE ") + what + " failed: " + cusparseGetErrorString(s));
}
inline void check(cudaError_t s, const char* what) {
  if (s != cudaSuccess)
    throw kflow::Error(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(s));
}

struct Handle {
  cusparseHandle_t h = nullptr;
  explicit Handle(cudaStream_t stream) {
    check(cusparseCreate(&h), "create");
    check(cusparseSetStream(h, stream), "set stream");
  }
  ~Handle() { cusparseDestroy(h); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

}  // namespace kflow::linsys::cusp
#endif
