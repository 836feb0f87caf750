#include "util/float16.h"

#include <bit>
#include <cmath>

namespace tinylm {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {  // inf / NaN (payload kept)
    bits = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {  // normal: rebias the exponent 15 -> 127
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  } else if (mant == 0) {  // +-0
    bits = sign;
  } else {  // subnormal: mant * 2^-24, exactly representable as a normal float
    const float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs > 0x7F800000u)  // NaN: quiet, the top of the payload kept
    return sign | 0x7E00u | static_cast<uint16_t>((abs >> 13) & 0x3FFu);
  if (abs >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 (and inf): infinity
  if (abs < 0x38800000u) {  // below 2^-14: a subnormal half (or 0), in steps of 2^-24
    const float steps = std::bit_cast<float>(abs) * 0x1p24f;     // exact: a power-of-2 scale
    return sign | static_cast<uint16_t>(std::nearbyint(steps));  // ties to even
  }
  // Normal: exponent rebiased 127 -> 15, mantissa 23 -> 10 bits, ties to even (a carry
  // into the exponent is the right result).
  auto h = static_cast<uint16_t>((abs - 0x38000000u) >> 13);
  const uint32_t rest = abs & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return sign | h;
}

}  // namespace tinylm
