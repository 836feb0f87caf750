// Half-precision (IEEE binary16, "F16") weights for decoding, as a GGUF F16 file stores
// them: half the bytes of float32, and, unlike bf16, the very numbers of an F16 file
// (widening a half to float32 is exact). Products in float32.
//   to_f16:             w [n] float32 -> [n] halves, rounded to nearest even
//   linear_forward_f16: x [N, C], W [OC, C] halves, b [OC] (may be null)
//                       -> y [N, OC] = x W^T + b
// Each output is one dot product in a fixed order: 8 float lanes (a zero-padded last
// step), one fused multiply-add per lane and step, the lanes added in a fixed tree, so
// the result does not depend on the instruction set (F16C or the portable loop), the
// thread count or the other rows (row-invariant, as linear_forward_rows).
#pragma once
#include <cstdint>

namespace tinylm::ops {

void to_f16(const float* w, uint16_t* out, int64_t n);
void linear_forward_f16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                        int64_t C, int64_t OC);

namespace ref {
void to_f16(const float* w, uint16_t* out, int64_t n);
void linear_forward_f16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                        int64_t C, int64_t OC);
}  // namespace ref

}  // namespace tinylm::ops
