#pragma once
// Population storage of physics/lbm: the arithmetic type of a precision and
// how a population is stored.  "double" and "float" store f_i as computed.
// The 16-bit formats compute in float and store the deviation from the rest
// equilibrium, f_i - w_i, scaled, rounded to nearest even: 2 bytes per
// population, half of float's traffic (Lehmann et al. 2022, "On the accuracy
// and performance of the lattice Boltzmann method with 64-bit, 32-bit, and
// customized 16-bit number formats": FluidX3D's FP16S and FP16C).  The shift
// keeps the significant bits on the part of f_i that varies.
//  "float16s": IEEE binary16 (5 exponent, 10 mantissa bits) of (f_i - w_i) 2^15:
//    11 significant bits for |f_i - w_i| from 2^-29 to 2; GPUs convert with
//    the hardware's instructions.
//  "float16c": 4 exponent bits (bias 14) and 11 mantissa bits of
//    (f_i - w_i) 2: 12 significant bits for |f_i - w_i| from 2^-14 to 1,
//    below that steps of 2^-25; the top exponent is infinity and NaN as in
//    IEEE formats, so that a diverging run is caught.  Converted in
//    software on every backend.
// Weights are symmetric (w_i = w_opp(i)), so a slot's shift is its own
// weight whichever direction the streaming scheme keeps in it.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kflow/model/precision.hpp"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace kflow::lbm {

// A 16-bit binary floating-point format: a sign, E exponent bits with bias
// B, 15 - E mantissa bits, subnormals, the top exponent for infinity and
// NaN.  Conversions exact one way and rounded to nearest, ties to even, the
// other, written without branches (selects only) so that the lbm line loop
// stays a SIMD loop with 16-bit storage too.
template <int E, int B>
struct Format16 {
  static constexpr int M = 15 - E;  // mantissa bits
  static constexpr int S = 23 - M;  // float mantissa bits dropped
  static constexpr std::uint32_t top = (1u << E) - 1, rebias = std::uint32_t(127 - B) << 23;

  // bits -> float (exact), by integer selects: no subnormal float operand,
  // which CPUs handle in microcode.
  KOKKOS_INLINE_FUNCTION static float to_float(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t e = (h >> M) & top, m = h & ((1u << M) - 1);
    const std::uint32_t normal = ((e << 23) + rebias) | (m << S);
    const std::uint32_t special = 0x7f800000u | (m << S);  // infinity, NaN
    // zero or subnormal: m 2^(1 - B - M), exact in float
    const std::uint32_t small =
        Kokkos::bit_cast<std::uint32_t>(float(m) * Kokkos::bit_cast<float>((128u - B - M) << 23));
    const std::uint32_t is_small = 0u - std::uint32_t(e == 0),
                        is_special = 0u - std::uint32_t(e == top);
    return Kokkos::bit_cast<float>(sign | (small & is_small) | (special & is_special) |
                                   (normal & ~(is_small | is_special)));
  }

  // bits -> float (exact), by one multiply: the pattern's exponent and
  // mantissa placed in a float's fields read as a float are the value times
  // 2^(B - 127) for normal and subnormal patterns alike (a subnormal pattern
  // becomes a subnormal float), so a multiply by 2^(127 - B) is the value,
  // exact.  One select for infinity and NaN.  For GPUs, whose multiplies
  // take subnormal operands at full speed (kflow compiles without
  // flush-to-zero); the same bits as to_float (tests/models/lbm/test_lbm_storage.cpp).
  KOKKOS_INLINE_FUNCTION static float to_float_by_scaling(std::uint16_t h) {
    const std::uint32_t fields = std::uint32_t(h & 0x7fffu) << S;
    const std::uint32_t scaled = Kokkos::bit_cast<std::uint32_t>(
        Kokkos::bit_cast<float>(fields) * Kokkos::bit_cast<float>((254u - B) << 23));
    const std::uint32_t r = fields >= (top << 23) ? (fields | 0x7f800000u) : scaled;
    return Kokkos::bit_cast<float>(r | (std::uint32_t(h & 0x8000u) << 16));
  }

  // float -> bits, rounded to nearest, ties to even, by masks (CPUs: the
  // form GCC's vectoriser turns into the fewest SIMD instructions).
  KOKKOS_INLINE_FUNCTION static std::uint16_t from_float(float f) {
    const std::uint32_t x = Kokkos::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    // Normal: drop S mantissa bits, rounding half to even by adding
    // 2^(S-1) - 1 plus the kept part's last bit; a carry moves the exponent
    // up, to infinity past the largest finite value.
    const std::uint32_t normal = (a + ((1u << (S - 1)) - 1) + ((a >> S) & 1u) - rebias) >> S;
    const std::uint32_t small = subnormal(a);
    // |f| at or above the largest finite value plus half its last place
    const std::uint32_t overflow =
        ((top - 1 + 127 - B) << 23) | (((1u << M) - 1) << S) | (1u << (S - 1));
    const std::uint32_t is_nan = 0u - std::uint32_t(a > 0x7f800000u);
    const std::uint32_t is_inf = ~is_nan & (0u - std::uint32_t(a >= overflow));
    const std::uint32_t is_normal =
        ~(is_nan | is_inf) & (0u - std::uint32_t(a >= (std::uint32_t(128 - B) << 23)));
    const std::uint32_t is_small = ~(is_nan | is_inf | is_normal);
    const std::uint32_t r = (((top << M) | (1u << (M - 1))) & is_nan) | ((top << M) & is_inf) |
                            (normal & is_normal) | (small & is_small);
    return std::uint16_t(sign | r);
  }

  // float -> bits, the same rounding with a clamp and two selects: fewer
  // instructions on GPUs (not vectorised as well by GCC).
  KOKKOS_INLINE_FUNCTION static std::uint16_t from_float_by_clamping(float f) {
    const std::uint32_t x = Kokkos::bit_cast<std::uint32_t>(f);
    const std::uint32_t a = x & 0x7fffffffu;
    // The normal rounding as above; anything past the largest finite value
    // (infinity included) comes out at or above the infinity pattern and is
    // clamped to it; below the normal range the subtraction wraps and the
    // small result is taken.
    const std::uint32_t normal =
        Kokkos::min((a + ((1u << (S - 1)) - 1) + ((a >> S) & 1u) - rebias) >> S, top << M);
    std::uint32_t r = a < (std::uint32_t(128 - B) << 23) ? subnormal(a) : normal;
    r = a > 0x7f800000u ? ((top << M) | (1u << (M - 1))) : r;  // NaN stays a quiet NaN
    return std::uint16_t(((x >> 16) & 0x8000u) | r);
  }

  // Subnormal or zero |f| (bits a): adding c, whose last place is the
  // format's smallest step 2^(1 - B - M), rounds |f| to that step in the
  // addition itself; what remains above c is the result.
  KOKKOS_INLINE_FUNCTION static std::uint32_t subnormal(std::uint32_t a) {
    constexpr std::uint32_t c = (127u + 24 - B - M) << 23;
    return Kokkos::bit_cast<std::uint32_t>(Kokkos::bit_cast<float>(a) +
                                           Kokkos::bit_cast<float>(c)) -
           c;
  }
};

using Binary16 = Format16<5, 15>;   // IEEE binary16 ("float16s")
using Binary16c = Format16<4, 14>;  // "float16c"

// binary16 bits -> float (exact).
KOKKOS_INLINE_FUNCTION float half_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  return Binary16::to_float(h);
#endif
}

// float -> binary16 bits, rounded to nearest, ties to even (the hardware
// conversion on GPUs; the same bits on CPUs).
KOKKOS_INLINE_FUNCTION std::uint16_t float_to_half(float f) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(f));
#else
  return Binary16::from_float(f);
#endif
}

// "float16c" conversions: on GPUs by scaling and clamping, on CPUs by
// selects and masks (each the faster there; the same bits).
KOKKOS_INLINE_FUNCTION float float16c_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return Binary16c::to_float_by_scaling(h);
#else
  return Binary16c::to_float(h);
#endif
}
KOKKOS_INLINE_FUNCTION std::uint16_t float16c_from_float(float f) {
#if defined(__CUDA_ARCH__)
  return Binary16c::from_float_by_clamping(f);
#else
  return Binary16c::from_float(f);
#endif
}

// Arithmetic and storage types of a precision (the template argument CMake
// instantiates the model with).
template <class P>
struct Precision {
  using real = P;
  using stored = P;
};
template <>
struct Precision<Float16s> {
  using real = float;
  using stored = std::uint16_t;
};
template <>
struct Precision<Float16c> {
  using real = float;
  using stored = Word16c;
};

// The populations f(cell, slot): one View<Stored**, LayoutLeft> (cells, Q),
// read and written as Real.
template <class L, class Real, class Stored, class Mem>
struct Populations {
  using stored_type = Stored;
  Kokkos::View<Stored**, Kokkos::LayoutLeft, Mem> v;

  // A stored value of `slot` as Real, and a Real as the stored value.
  KOKKOS_FORCEINLINE_FUNCTION static Real decode(int slot, Stored s) {
    if constexpr (std::is_same_v<Stored, Real>)
      return s;
    else if constexpr (std::is_same_v<Stored, Word16c>)
      return Real(L::w(slot)) + float16c_to_float(std::uint16_t(s)) * Real(0.5);
    else
      return Real(L::w(slot)) + half_to_float(s) * Real(1.0 / 32768);
  }
  KOKKOS_FORCEINLINE_FUNCTION static Stored encode(int slot, Real f) {
    if constexpr (std::is_same_v<Stored, Real>)
      return f;
    else if constexpr (std::is_same_v<Stored, Word16c>)
      return Word16c(float16c_from_float((f - Real(L::w(slot))) * Real(2)));
    else
      return float_to_half((f - Real(L::w(slot))) * Real(32768));
  }
  KOKKOS_INLINE_FUNCTION Real operator()(int idx, int slot) const {
    return decode(slot, v(idx, slot));
  }
  KOKKOS_INLINE_FUNCTION void set(int idx, int slot, Real f) const {
    v(idx, slot) = encode(slot, f);
  }
};

}  // namespace kflow::lbm
