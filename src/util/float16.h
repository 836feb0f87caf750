// 16-bit floats, as files and kernels store them, to and from float32:
//   half (IEEE 754 binary16, "F16"): 5 exponent bits, 10 mantissa bits, largest 65504
//   bf16 (bfloat16, "BF16"): the top 16 bits of a float32 (8 exponent bits, 7 mantissa)
// Widening is exact. Narrowing rounds to nearest, ties to even; NaN stays NaN (quiet), and
// a half too large for 65504 becomes infinity, as numpy and torch convert.
#pragma once
#include <cstdint>
#include <cstring>

namespace tinylm {

float half_to_float(uint16_t bits);
uint16_t float_to_half(float f);

inline uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);                 // round to nearest, ties to even
  return static_cast<uint16_t>(bits >> 16);
}

inline float bf16_to_float(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace tinylm
