// Row softmax, reference version: x [N, D] -> y [N, D]; backward dy, y [N, D] -> dx [N, D].
//   y_j = exp(x_j - max) / sum_k exp(x_k - max); an all -inf row gives zeros.
//   dx_j = y_j (dy_j - sum_k dy_k y_k).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/softmax.h"

namespace tinylm::ops::ref {

void softmax_forward(const float* x, float* y, int64_t N, int64_t D) {
  for (int64_t i = 0; i < N; ++i) {
    const float* xr = x + i * D;
    float* yr = y + i * D;
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < D; ++j) mx = std::max(mx, static_cast<double>(xr[j]));
    if (std::isinf(mx) && mx < 0) {
      for (int64_t j = 0; j < D; ++j) yr[j] = 0.0f;
      continue;
    }
    double sum = 0.0;
    for (int64_t j = 0; j < D; ++j) sum += std::exp(xr[j] - mx);
    for (int64_t j = 0; j < D; ++j) yr[j] = static_cast<float>(std::exp(xr[j] - mx) / sum);
  }
}

void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D) {
  for (int64_t i = 0; i < N; ++i) {
    double dot = 0.0;
    for (int64_t j = 0; j < D; ++j) dot += static_cast<double>(dy[i * D + j]) * y[i * D + j];
    for (int64_t j = 0; j < D; ++j)
      dx[i * D + j] = static_cast<float>(y[i * D + j] * (dy[i * D + j] - dot));
  }
}

}  // namespace tinylm::ops::ref
