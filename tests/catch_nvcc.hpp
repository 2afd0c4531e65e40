#pragma once
// Included before every test source where nvcc compiles the tests
// (tests/CMakeLists.txt, KFLOW_NVCC).  Under nvcc, Catch2 3 wraps each
// TEST_CASE and assertion in _Pragma("nv_diagnostic push/pop") and
// _Pragma("nv_diag_suppress 177"); nvcc's front end (cudafe++) then took
// more than 17 minutes over test_gpu.cpp and test_gpu_linalg.cpp, and 13
// and 66 seconds without the pragmas (nvcc 13.0, 2 cores).  The pragmas only
// silence warnings in Catch2's own expansions, so they are defined empty.

#include <catch2/catch_test_macros.hpp>

#if defined(__CUDACC__) && !defined(__clang__)
#undef CATCH_INTERNAL_START_WARNINGS_SUPPRESSION
#undef CATCH_INTERNAL_STOP_WARNINGS_SUPPRESSION
#undef CATCH_INTERNAL_SUPPRESS_UNUSED_VARIABLE_WARNINGS
#define CATCH_INTERNAL_START_WARNINGS_SUPPRESSION
#define CATCH_INTERNAL_STOP_WARNINGS_SUPPRESSION
#define CATCH_INTERNAL_SUPPRESS_UNUSED_VARIABLE_WARNINGS
#endif
