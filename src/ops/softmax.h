// Row softmax with the row maximum subtracted first (so exp never overflows).
//   x [N, D] -> y [N, D], each row of y sums to 1. Entries equal to -inf get weight 0;
//   a row that is entirely -inf gives all zeros (not NaN).
//   backward: dx = y * (dy - sum(dy * y)) row-wise.
#pragma once
#include <cstdint>

namespace tinylm::ops {

void softmax_forward(const float* x, float* y, int64_t N, int64_t D);
void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D);

namespace ref {
void softmax_forward(const float* x, float* y, int64_t N, int64_t D);
void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D);
}  // namespace ref

}  // namespace tinylm::ops
