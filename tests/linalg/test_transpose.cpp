// linalg::transpose_xy on every execution space compiled in: every element
// lands where its indices say (sizes that are and are not multiples of the
// GPU's 64-wide tiles, even extents (moved in pairs on GPUs) and odd), in
// double, float and bytes; several fields in one call, each to its own
// destination; wrong extents are refused; a map applied on the way
// (transpose_map_xy: two inputs and two outputs a field).

#include <catch2/catch_template_test_macros.hpp>
#include <catch2/catch_test_macros.hpp>

#include <array>
#include <stdexcept>

#include "kflow/linalg/field.hpp"
#include "kflow/linalg/transpose.hpp"
#include "linalg/backends.hpp"

namespace la = kflow::linalg;

namespace {

// out = (a + b, (f + 1) a - b + i)
struct SumAndDifference {
  KOKKOS_INLINE_FUNCTION void operator()(int f, int i, int, int, const float (&in)[2],
                                         float (&out)[2]) const {
    out[0] = in[0] + in[1];
    out[1] = float(f + 1) * in[0] - in[1] + float(i);
  }
};

// A field of extents (e0, e1, e2) holding value(i, j, k).
template <class Field, class Value>
Field filled(const char* label, int e0, int e1, int e2, const Value& value) {
  Field a(label, e0, e1, e2);
  auto h = Kokkos::create_mirror_view(a);
  for (int k = 0; k < e2; ++k)
    for (int j = 0; j < e1; ++j)
      for (int i = 0; i < e0; ++i) h(i, j, k) = value(i, j, k);
  Kokkos::deep_copy(a, h);
  return a;
}

template <class Space, class Real>
void check_transpose(int e0, int e1, int e2) {
  Space space;
  using Mem = typename Space::memory_space;
  using F = la::Field3<Real, Mem>;
  // distinct values (exact in every type used: below 2^24, and mod 251 for bytes)
  auto value = [&](int i, int j, int k) {
    return Real((i + 37 * j + 1009 * k) % 251 + 1);
  };
  const F a = filled<F>("a", e0, e1, e2, value);
  F t("t", e1, e0, e2), back("back", e0, e1, e2);
  la::transpose_xy(space, a, t);
  la::transpose_xy(space, t, back);
  space.fence();
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  long wrong = 0, wrong_back = 0;
  for (int k = 0; k < e2; ++k)
    for (int j = 0; j < e1; ++j)
      for (int i = 0; i < e0; ++i) {
        wrong += ht(j, i, k) != value(i, j, k);
        wrong_back += hb(i, j, k) != value(i, j, k);
      }
  INFO("extents " << e0 << " x " << e1 << " x " << e2);
  CHECK(wrong == 0);
  CHECK(wrong_back == 0);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("transpose_xy exchanges a field's first two axes", "[unit][linalg]",
                        kflow::test::ExecutionSpaces) {
  for (auto e :
       {std::array<int, 3>{1, 1, 1}, std::array<int, 3>{32, 64, 2}, std::array<int, 3>{33, 17, 3},
        std::array<int, 3>{70, 45, 5}, std::array<int, 3>{70, 46, 3}}) {
    check_transpose<TestType, double>(e[0], e[1], e[2]);
    check_transpose<TestType, float>(e[0], e[1], e[2]);
    check_transpose<TestType, unsigned char>(e[0], e[1], e[2]);
  }
  using Mem = typename TestType::memory_space;
  la::Field3<double, Mem> a("a", 4, 5, 2), same("same", 4, 5, 2);
  CHECK_THROWS_AS(la::transpose_xy(TestType(), a, same), std::invalid_argument);
}

TEMPLATE_LIST_TEST_CASE("transpose_xy moves several fields in one call", "[unit][linalg]",
                        kflow::test::ExecutionSpaces) {
  using Mem = typename TestType::memory_space;
  using F = la::Field3<float, Mem>;
  auto value = [](int f, int i, int j, int k) {
    return float(f * 100000 + i + 100 * j + 5000 * k);
  };
  // even extents (pairs on GPUs) and odd
  for (const int e1 : {34, 33}) {
    const int e0 = 70, e2 = 3;
    Kokkos::Array<F, 3> src, dst, also;
    for (int f = 0; f < 3; ++f) {
      src[f] = filled<F>("src", e0, e1, e2, [&](int i, int j, int k) { return value(f, i, j, k); });
      dst[f] = F("dst", e1, e0, e2);
      also[f] = F("also", e1, e0, e2);
    }
    // dst alone, then dst and also from one read
    for (const bool two : {false, true}) {
      if (two)
        la::transpose_xy(TestType(), src, dst, also);
      else
        la::transpose_xy(TestType(), src, dst);
      TestType().fence();
      long wrong = 0, wrong_also = 0;
      for (int f = 0; f < 3; ++f) {
        auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst[f]);
        auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), also[f]);
        for (int k = 0; k < e2; ++k)
          for (int j = 0; j < e1; ++j)
            for (int i = 0; i < e0; ++i) {
              wrong += h(j, i, k) != value(f, i, j, k);
              wrong_also += two && ha(j, i, k) != value(f, i, j, k);
            }
      }
      INFO("extents " << e0 << " x " << e1 << ", also: " << two);
      CHECK(wrong == 0);
      CHECK(wrong_also == 0);
      for (int f = 0; f < 3; ++f)
        Kokkos::deep_copy(dst[f], 0.0f);  // the second call writes it again
    }
    also[2] = F("wrong", e0, e1, e2);  // the third field's extents not exchanged
    CHECK_THROWS_AS(la::transpose_xy(TestType(), src, dst, also), std::invalid_argument);
    dst[2] = F("wrong", e0, e1, e2);
    CHECK_THROWS_AS(la::transpose_xy(TestType(), src, dst), std::invalid_argument);
  }
}

TEMPLATE_LIST_TEST_CASE("transpose_map_xy applies a map on the way", "[unit][linalg]",
                        kflow::test::ExecutionSpaces) {
  using Mem = typename TestType::memory_space;
  using F = la::Field3<float, Mem>;
  // exact in float: below 2^24
  auto a = [](int f, int i, int j, int k) {
    return float(f * 100000 + i + 100 * j + 5000 * k);
  };
  auto b = [](int f, int i, int j, int k) {
    return float((7 * i + 13 * j + 29 * k + f) % 97);
  };
  for (const int e1 : {34, 33}) {  // even extents (pairs on GPUs) and odd
    const int e0 = 70, e2 = 3, n = 3;
    Kokkos::Array<F, 2 * n> src, dst;
    for (int f = 0; f < n; ++f)
      for (int r = 0; r < 2; ++r) {
        src[f + n * r] = filled<F>("src", e0, e1, e2, [&](int i, int j, int k) {
          return r == 0 ? a(f, i, j, k) : b(f, i, j, k);
        });
        dst[f + n * r] = F("dst", e1, e0, e2);
      }
    la::transpose_map_xy<2, 2>(TestType(), "test::sum_and_difference", src, dst,
                               SumAndDifference{});
    long wrong = 0;
    for (int f = 0; f < n; ++f) {
      auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst[f]);
      auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst[f + n]);
      for (int k = 0; k < e2; ++k)
        for (int j = 0; j < e1; ++j)
          for (int i = 0; i < e0; ++i) {
            wrong += s(j, i, k) != a(f, i, j, k) + b(f, i, j, k);
            wrong += d(j, i, k) != float(f + 1) * a(f, i, j, k) - b(f, i, j, k) + float(i);
          }
    }
    INFO("extents " << e0 << " x " << e1);
    CHECK(wrong == 0);
    dst[n] = F("wrong", e0, e1, e2);  // a second output's extents not exchanged
    const auto mapped = [&] {
      la::transpose_map_xy<2, 2>(TestType(), "test::sum_and_difference", src, dst,
                                 SumAndDifference{});
    };
    CHECK_THROWS_AS(mapped(), std::invalid_argument);
  }
}
