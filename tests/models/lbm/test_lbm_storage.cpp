// physics/lbm/lbm_storage.hpp: the 16-bit formats' conversions against the
// formats' definitions (every bit pattern one way, rounding the other).

#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <cstdint>
#include <random>

#include "lbm_storage.hpp"

// 16-bit storage (run.precision = "float16s" and "float16c",
// physics/lbm/lbm_storage.hpp).

namespace {

// A 16-bit format by its definition: E exponent bits with bias B, 15 - E
// fraction bits, subnormals, the top exponent for infinity (IEEE 754-2008's
// binary16: E = 5, B = 15).  value(b): the bit pattern b (sign bit clear) as
// a double, the first infinite pattern as the value rounding compares it at.
struct Format {
  int E, B;
  int M() const { return 15 - E; }
  int inf() const { return ((1 << E) - 1) << M(); }
  double value(int b) const {
    const int e = b >> M(), m = b & ((1 << M()) - 1);
    return e == 0 ? std::ldexp(m, 1 - B - M()) : std::ldexp(1 + std::ldexp(m, -M()), e - B);
  }
  // The pattern nearest to x >= 0, ties to the even pattern, by bisection
  // over every finite value: a reference independent of the conversions.
  int nearest(double x) const {
    int lo = 0, hi = inf();  // value(lo) <= x < value(hi) unless x >= value(inf)
    if (x >= value(inf())) return inf();
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      (value(mid) <= x ? lo : hi) = mid;
    }
    const double dl = x - value(lo), dh = value(hi) - x;
    return dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
  }
};

// Every pattern decodes to its value and encodes back to itself; every
// midpoint between neighbours rounds to the even one, the floats beside it
// to the nearer; 200 000 random floats over the range and below it.
template <class ToFloat, class FromFloat>
void check_format(const Format& fmt, ToFloat to_float, FromFloat from_float) {
  const int inf = fmt.inf();
  int checked = 0;
  for (int b = 0; b < inf; ++b)
    for (const int sign : {0, 0x8000}) {
      const auto h = static_cast<std::uint16_t>(b | sign);
      const double v = sign ? -fmt.value(b) : fmt.value(b);
      REQUIRE(double(to_float(h)) == v);
      REQUIRE(from_float(to_float(h)) == h);
      ++checked;
    }
  CHECK(checked == 2 * inf);
  CHECK(std::isinf(to_float(std::uint16_t(inf))));
  CHECK(std::isnan(to_float(from_float(std::nanf("")))));
  CHECK(from_float(1e30f) == inf);
  CHECK(from_float(-1e30f) == (inf | 0x8000));
  auto check = [&](float x) {
    const int ref = fmt.nearest(std::fabs(double(x))) | (std::signbit(x) ? 0x8000 : 0);
    INFO("x = " << x);
    REQUIRE(from_float(x) == ref);
  };
  for (int b = 0; b < inf; ++b) {
    const float mid = float(0.5 * (fmt.value(b) + fmt.value(b + 1)));  // exact
    REQUIRE(double(mid) == 0.5 * (fmt.value(b) + fmt.value(b + 1)));
    for (const float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      check(x);
      check(-x);
    }
  }
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> exponent(-2 * fmt.B, fmt.B + 2), mantissa(1, 2);
  for (int k = 0; k < 200000; ++k)
    check(float(std::ldexp(mantissa(gen), int(std::floor(exponent(gen)))) * (k % 2 ? -1 : 1)));
}

}  // namespace

TEST_CASE("lbm float16s storage: binary16 conversions are exact and round to nearest even",
          "[unit]") {
  check_format(Format{5, 15}, kflow::lbm::half_to_float, kflow::lbm::float_to_half);
}

TEST_CASE("lbm float16c storage: 4-bit-exponent conversions are exact and round to nearest even",
          "[unit]") {
  using C = kflow::lbm::Binary16c;
  check_format(Format{4, 14}, C::to_float, C::from_float);
}

// The GPUs' conversions, decoding by one multiply (subnormal patterns
// through subnormal floats) and encoding with a clamp, against the formats'
// definitions as the CPUs' are.
TEST_CASE("lbm 16-bit storage: the GPUs' conversions by scaling and clamping are exact", "[unit]") {
  using C = kflow::lbm::Binary16c;
  using S = kflow::lbm::Binary16;
  check_format(Format{4, 14}, C::to_float_by_scaling, C::from_float_by_clamping);
  check_format(Format{5, 15}, S::to_float_by_scaling, S::from_float_by_clamping);
}
