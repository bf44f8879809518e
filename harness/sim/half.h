// Half precision (IEEE binary16) conversions for cvt: the simulator converts to and from .f16 but does
// no arithmetic in it. Pure bit manipulation and exact scaling, so the host's rounding mode (which the
// interpreter sets for float instructions) cannot change a result.
#pragma once

#include <cmath>
#include <cstdint>

#include "harness/ptx/opcodes.h"

namespace gpugrade::sim {

inline constexpr uint16_t kHalfCanonicalNan = 0x7FFF;  // assumed as for f32; not recorded on a GPU

// Exact: every half is a double.
inline double half_to_double(uint16_t h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// `x` rounded once to a half: .rn (also kNone), .rz, .rm or .rp. Overflow follows the mode: to infinity,
// or to the largest finite half (65504) when the mode rounds toward it. NaN gives the canonical NaN.
inline uint16_t double_to_half(double x, ptx::Rounding rounding) {
  if (std::isnan(x)) return kHalfCanonicalNan;
  const bool negative = std::signbit(x);
  const uint16_t sign = negative ? 0x8000 : 0;
  const double magnitude = std::fabs(x);
  if (magnitude == 0) return sign;
  const bool up_is_away = rounding == (negative ? ptx::Rounding::kRm : ptx::Rounding::kRp);
  const bool toward_zero =
      rounding == ptx::Rounding::kRz || rounding == (negative ? ptx::Rounding::kRp : ptx::Rounding::kRm);
  const uint16_t overflow = toward_zero ? 0x7BFF : 0x7C00;
  if (std::isinf(magnitude)) return sign | 0x7C00;
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
  const int e = exponent - 1;        // magnitude in [2^e, 2^(e+1))
  if (e > 15) return sign | overflow;
  // The quantum of halves near `magnitude`: 2^-24 below the normal range, else 2^(e-10).
  const int quantum = e < -14 ? -24 : e - 10;
  const double scaled = std::ldexp(magnitude, -quantum);  // exact: a power-of-two scaling within range
  double whole = std::floor(scaled);
  const double fraction = scaled - whole;  // exact
  bool round_up = false;
  if (fraction > 0) {
    if (toward_zero)
      round_up = false;
    else if (up_is_away)
      round_up = true;
    else
      round_up = fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2.0) != 0);  // .rn: ties to even
  }
  uint32_t m = static_cast<uint32_t>(whole) + (round_up ? 1 : 0);
  if (e < -14) return sign | static_cast<uint16_t>(m);  // m == 1024 is the smallest normal, encoded alike
  int biased = e + 15;
  if (m == 2048) {
    m = 1024;
    ++biased;
  }
  if (biased >= 31) return sign | overflow;
  return sign | static_cast<uint16_t>((biased << 10) | (m - 1024));
}

}  // namespace gpugrade::sim
