// RMS normalisation, reference version (double sums, one row at a time; see rmsnorm.h).
#include <cmath>

#include "ops/rmsnorm.h"

namespace tinylm::ops::ref {

void rmsnorm_forward(const float* x, const float* w, float* y, float* rstd, int64_t N, int64_t C,
                     float eps) {
  for (int64_t i = 0; i < N; ++i) {
    const float* xr = x + i * C;
    double sq = 0.0;
    for (int64_t c = 0; c < C; ++c) sq += static_cast<double>(xr[c]) * xr[c];
    const double rs = 1.0 / std::sqrt(sq / C + eps);
    for (int64_t c = 0; c < C; ++c) y[i * C + c] = static_cast<float>(xr[c] * rs * w[c]);
    rstd[i] = static_cast<float>(rs);
  }
}

void rmsnorm_backward(const float* dy, const float* x, const float* w, const float* rstd, float* dx,
                      float* dw, int64_t N, int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    const double rs = rstd[i];
    double sum_gx = 0.0;
    for (int64_t c = 0; c < C; ++c)
      sum_gx += static_cast<double>(dy[i * C + c]) * w[c] * (x[i * C + c] * rs);
    const double mean_gx = sum_gx / C;
    for (int64_t c = 0; c < C; ++c) {
      const double xhat = x[i * C + c] * rs, g = static_cast<double>(dy[i * C + c]) * w[c];
      dx[i * C + c] = static_cast<float>(rs * (g - xhat * mean_gx));
    }
  }
  if (!dw) return;
  for (int64_t c = 0; c < C; ++c) {
    double sum = 0.0;
    for (int64_t i = 0; i < N; ++i)
      sum += static_cast<double>(dy[i * C + c]) * (x[i * C + c] * static_cast<double>(rstd[i]));
    dw[c] = static_cast<float>(dw[c] + sum);
  }
}

}  // namespace tinylm::ops::ref
