#pragma once
// Population storage of physics/lbm: the arithmetic type of a precision and
// how a population is stored.  "double" and "float" store f_i as computed.
// "float16s" (FluidX3D's FP16S: Lehmann et al. 2022, "On the accuracy and
// performance of the lattice Boltzmann method with 64-bit, 32-bit, and
// customized 16-bit number formats") computes in float and stores the
// deviation from the rest equilibrium, f_i - w_i, scaled by 2^15, as an IEEE
// binary16 rounded to nearest even: 2 bytes per population, half of float's
// traffic.  The shift keeps the 11 significant bits on the part of f_i that
// varies; the scale moves binary16's range (to 65504) onto |f_i - w_i| < 2.
// Weights are symmetric (w_i = w_opp(i)), so a slot's shift is its own
// weight whichever direction the streaming scheme keeps in it.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kflow/core/precision.hpp"

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace kflow::lbm {

// The CPU conversions are written without branches (selects only), so that
// the lbm line loop stays a SIMD loop with 16-bit storage too.

// binary16 bits -> float (exact).
KOKKOS_INLINE_FUNCTION float half_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  // normal: rebias the exponent; infinity and NaN: exponent 255
  const std::uint32_t normal = ((e + 112u) << 23) | (m << 13);
  const std::uint32_t special = 0x7f800000u | (m << 13);
  // zero or subnormal: m 2^-24, exact in float
  const std::uint32_t small = Kokkos::bit_cast<std::uint32_t>(float(m) * 5.9604644775390625e-8f);
  const std::uint32_t is_small = 0u - std::uint32_t(e == 0),
                      is_special = 0u - std::uint32_t(e == 31);
  return Kokkos::bit_cast<float>(sign | (small & is_small) | (special & is_special) |
                                 (normal & ~(is_small | is_special)));
#endif
}

// float -> binary16 bits, rounded to nearest, ties to even (the hardware
// conversion on GPUs; the same bits on CPUs).
KOKKOS_INLINE_FUNCTION std::uint16_t float_to_half(float f) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(f));
#else
  const std::uint32_t x = Kokkos::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  // Normal binary16 (|f| >= 2^-14): drop 13 mantissa bits, rounding half
  // to even by adding 0xfff plus the kept part's last bit; a carry moves
  // the exponent up, to infinity (0x7c00) from 65520 on.
  const std::uint32_t normal = (a + 0xfffu + ((a >> 13) & 1u) - (112u << 23)) >> 13;
  // Subnormal binary16 or zero: adding 2^-1 moves |f|'s bits below 2^-24
  // out of a float whose last place is 2^-24, rounding them to nearest
  // even in the addition itself; what remains above 2^-1 is the result.
  const std::uint32_t small =
      Kokkos::bit_cast<std::uint32_t>(Kokkos::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  const std::uint32_t is_nan = 0u - std::uint32_t(a > 0x7f800000u);
  const std::uint32_t is_inf = ~is_nan & (0u - std::uint32_t(a >= 0x477ff000u));  // 65520 and up
  const std::uint32_t is_normal = ~(is_nan | is_inf) & (0u - std::uint32_t(a >= 0x38800000u));
  const std::uint32_t is_small = ~(is_nan | is_inf | is_normal);
  const std::uint32_t r =
      (0x7e00u & is_nan) | (0x7c00u & is_inf) | (normal & is_normal) | (small & is_small);
  return std::uint16_t(sign | r);
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
    else
      return Real(L::w(slot)) + half_to_float(s) * Real(1.0 / 32768);
  }
  KOKKOS_FORCEINLINE_FUNCTION static Stored encode(int slot, Real f) {
    if constexpr (std::is_same_v<Stored, Real>)
      return f;
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
