// bfloat16 weights for inference. A bf16 value is the top 16 bits of a float32 (8
// exponent bits, 7 mantissa bits): same range, about 3 significant digits. Decoding one
// token reads every weight once, so it is bound by memory bandwidth; weights stored as
// bf16 halve the bytes read. The products are still computed in float32: each weight is
// widened (a 16-bit shift) and multiplied with the float32 input, so the only loss is
// the rounding of the weights (docs/performance.md measures it on GPT-2).
//   to_bf16:             w [n] float32 -> [n] bf16, rounded to nearest even (NaN kept NaN)
//   linear_forward_bf16: x [N, C], W [OC, C] bf16, b [OC] (may be null) -> y [N, OC] = x W^T + b
#pragma once
#include <cstdint>
#include <cstring>

namespace tinylm::ops {

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

// Fast: parallel over output rows, each a vectorised dot product streaming its row of W.
void to_bf16(const float* w, uint16_t* out, int64_t n);
void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC);

namespace ref {
void to_bf16(const float* w, uint16_t* out, int64_t n);
void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC);
}  // namespace ref

}  // namespace tinylm::ops
