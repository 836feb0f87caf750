// bfloat16 weights for inference. A bf16 value is the top 16 bits of a float32 (8
// exponent bits, 7 mantissa bits): same range, about 3 significant digits. Decoding one
// token reads every weight once, so it is bound by memory bandwidth; weights stored as
// bf16 halve the bytes read. The products are still computed in float32: each weight is
// widened (a 16-bit shift) and multiplied with the float32 input, so the only loss is
// the rounding of the weights (docs/performance.md measures it on GPT-2).
//   to_bf16:             w [n] float32 -> [n] bf16, rounded to nearest even (NaN kept NaN)
//   linear_forward_bf16: x [N, C], W [OC, C] bf16, b [OC] (may be null) -> y [N, OC] = x W^T + b
// Each output is one dot product in the fixed order of ops/linear_16bit.h (as f16.h's), so
// the result does not depend on the instruction set, the thread count or the other rows.
#pragma once
#include <cstdint>

#include "util/float16.h"

namespace tinylm::ops {

using tinylm::bf16_to_float;
using tinylm::float_to_bf16;

void to_bf16(const float* w, uint16_t* out, int64_t n);
void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC);

namespace ref {
void to_bf16(const float* w, uint16_t* out, int64_t n);
void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC);
}  // namespace ref

}  // namespace tinylm::ops
