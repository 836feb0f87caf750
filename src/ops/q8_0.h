// 8-bit weights for decoding: ggml's Q8_0 (util/q8_0.h: blocks of 32 int8 values with a
// half scale each), multiplied with integer dot products, as llama.cpp runs a Q8_0 file.
// A decoding step reads every weight once; at 34 bytes per 32 weights that is 27 % of
// float32's bytes.
//
// The blocks of a matrix W [OC, C] are kept repacked for the kernel (as llama.cpp repacks
// Q8_0 for its CPU kernels): the values of each row contiguous, q [OC, C] int8, and the
// half scales apart, d [OC, C / 32]. The numbers are ggml's, byte for byte.
//   quantize_q8_0:        w [OC, C] float32 (C a multiple of 32) -> q [OC, C], d [OC, C/32]
//   linear_forward_q8_0:  x [N, C], W as (q, d), b [OC] (may be null)
//                         -> y [N, OC] = x W^T + b
// Each row of x is quantised too, per block of 32 (scale max|x| / 127 kept in float32,
// values rounded to int8: llama.cpp's scheme, with a float32 scale where it keeps a half).
// A block's product is then exact in integers: 8 lanes of 4 products each, each lane
// scaled by d_w * d_x and summed into its float lane with a fused multiply-add, block
// after block; the 8 lanes added in a fixed tree at the end. Every build (AVX512-VNNI,
// AVX2 or the portable loop) does this same arithmetic, so the result does not depend on
// the instruction set, the thread count or the other rows (row-invariant, as
// linear_forward_rows: a sequence decoded in a batch gets what it gets alone).
#pragma once
#include <cstdint>

#include "util/q8_0.h"

namespace tinylm::ops {

void quantize_q8_0(const float* w, int8_t* q, uint16_t* d, int64_t OC, int64_t C);
void linear_forward_q8_0(const float* x, const int8_t* q, const uint16_t* d, const float* b,
                         float* y, int64_t N, int64_t C, int64_t OC);

namespace ref {
// The readable version: the blocks widened to float32 (d * q), x quantised the same way,
// sums in double.
void quantize_q8_0(const float* w, int8_t* q, uint16_t* d, int64_t OC, int64_t C);
void linear_forward_q8_0(const float* x, const int8_t* q, const uint16_t* d, const float* b,
                         float* y, int64_t N, int64_t C, int64_t OC);
}  // namespace ref

}  // namespace tinylm::ops
