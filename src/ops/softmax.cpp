// Row softmax, fast version: x [N, D] -> y [N, D]; backward dy, y [N, D] -> dx [N, D].
// Parallel over rows; each row is max, exp-and-sum, scale (the max subtracted so exp
// never overflows; -inf entries get weight 0; an all -inf row gives zeros).
#include "ops/softmax.h"

#include <cmath>
#include <limits>

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
}

void softmax_forward(const float* x, float* y, int64_t N, int64_t D) {
#pragma omp parallel for schedule(static) if (N > 1 && N * D >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) softmax_row(x + i * D, y + i * D, D);
}

void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D) {
#pragma omp parallel for schedule(static) if (N > 1 && N * D >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) {
    const float* dyr = dy + i * D;
    const float* yr = y + i * D;
    float* dxr = dx + i * D;
    float dot = 0.0f;  // sum_j dy_j y_j
#pragma omp simd reduction(+ : dot)
    for (int64_t j = 0; j < D; ++j) dot += dyr[j] * yr[j];
#pragma omp simd
    for (int64_t j = 0; j < D; ++j) dxr[j] = yr[j] * (dyr[j] - dot);
  }
}

}  // namespace tinylm::ops
