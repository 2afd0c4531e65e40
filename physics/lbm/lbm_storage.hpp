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

// binary16 bits -> float (exact).
KOKKOS_INLINE_FUNCTION float half_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {  // zero or subnormal: m 2^-24
    const float v = float(m) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (e == 31) return Kokkos::bit_cast<float>(sign | 0x7f800000u | (m << 13));
  return Kokkos::bit_cast<float>(sign | ((e + 112u) << 23) | (m << 13));
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
  if (a >= 0x7f800000u) return std::uint16_t(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // >= 65520: infinity
  std::uint32_t r, rem, half;
  if (a >= 0x38800000u) {  // normal binary16: drop 13 mantissa bits
    r = (a >> 13) - (112u << 10);
    rem = a & 0x1fffu;
    half = 0x1000u;
  } else {  // subnormal binary16 (or zero): m 2^(e - 150) in units of 2^-24
    const std::uint32_t e = a >> 23;
    if (e < 102) return std::uint16_t(sign);  // below 2^-25: rounds to zero
    const std::uint32_t m = (a & 0x7fffffu) | 0x800000u, s = 126 - e;  // 14 <= s <= 24
    r = m >> s;
    rem = m & ((1u << s) - 1);
    half = 1u << (s - 1);
  }
  if (rem > half || (rem == half && (r & 1u))) ++r;  // a carry moves the exponent up
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
  Kokkos::View<Stored**, Kokkos::LayoutLeft, Mem> v;

  KOKKOS_INLINE_FUNCTION Real operator()(int idx, int slot) const {
    if constexpr (std::is_same_v<Stored, Real>)
      return v(idx, slot);
    else
      return Real(L::w(slot)) + half_to_float(v(idx, slot)) * Real(1.0 / 32768);
  }
  KOKKOS_INLINE_FUNCTION void set(int idx, int slot, Real f) const {
    if constexpr (std::is_same_v<Stored, Real>)
      v(idx, slot) = f;
    else
      v(idx, slot) = float_to_half((f - Real(L::w(slot))) * Real(32768));
  }
};

}  // namespace kflow::lbm
