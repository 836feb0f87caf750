// Row softmax with the row maximum subtracted first (so exp never overflows).
//   x [N, D] -> y [N, D], each row of y sums to 1. Entries equal to -inf get weight 0;
//   a row that is entirely -inf gives all zeros (not NaN).
//   backward: dx = y * (dy - sum(dy * y)) row-wise.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/exp_simd.h"

namespace tinylm::ops {

// One row, x [D] -> y [D]; x and y may be the same array (in place). Shared by
// softmax_forward and attention's masked softmax.
inline void softmax_row(const float* x, float* y, int64_t D) {
  float mx = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : mx)
  for (int64_t j = 0; j < D; ++j) mx = std::fmax(mx, x[j]);
  if (mx == -std::numeric_limits<float>::infinity()) {  // nothing allowed in this row
    for (int64_t j = 0; j < D; ++j) y[j] = 0.0f;
    return;
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < D; ++j) {
    y[j] = exp_simd(x[j] - mx);
    sum += y[j];
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int64_t j = 0; j < D; ++j) y[j] *= inv;
}

void softmax_forward(const float* x, float* y, int64_t N, int64_t D);
void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D);

namespace ref {
void softmax_forward(const float* x, float* y, int64_t N, int64_t D);
void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D);
}  // namespace ref

}  // namespace tinylm::ops
