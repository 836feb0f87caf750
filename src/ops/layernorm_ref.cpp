// Layer normalisation over the last dimension, reference version.
//   forward:  x [N, C], w [C], b [C] or null -> y [N, C], mean [N], rstd [N]
//             mean = sum(x) / C, var = sum((x - mean)^2) / C (biased),
//             rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * w + b
//   backward: dy [N, C] -> dx [N, C] (overwritten), dw [C] +=, db [C] += (if not null)
//             xhat = (x - mean) * rstd, g = dy * w,
//             dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//             dw += sum over rows of dy * xhat, db += sum over rows of dy.
#include <cmath>

#include "ops/layernorm.h"

namespace tinylm::ops::ref {

void layernorm_forward(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t N, int64_t C, float eps) {
  for (int64_t i = 0; i < N; ++i) {
    const float* xr = x + i * C;
    double sum = 0.0;
    for (int64_t c = 0; c < C; ++c) sum += xr[c];
    const double mu = sum / C;
    double sq = 0.0;
    for (int64_t c = 0; c < C; ++c) sq += (xr[c] - mu) * (xr[c] - mu);
    const double rs = 1.0 / std::sqrt(sq / C + eps);
    for (int64_t c = 0; c < C; ++c) {
      const double bias = b ? b[c] : 0.0;
      y[i * C + c] = static_cast<float>((xr[c] - mu) * rs * w[c] + bias);
    }
    mean[i] = static_cast<float>(mu);
    rstd[i] = static_cast<float>(rs);
  }
}

void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    const double mu = mean[i], rs = rstd[i];
    double sum_g = 0.0, sum_gx = 0.0;
    for (int64_t c = 0; c < C; ++c) {
      const double xhat = (x[i * C + c] - mu) * rs;
      const double g = static_cast<double>(dy[i * C + c]) * w[c];
      sum_g += g;
      sum_gx += g * xhat;
    }
    const double mean_g = sum_g / C, mean_gx = sum_gx / C;
    for (int64_t c = 0; c < C; ++c) {
      const double xhat = (x[i * C + c] - mu) * rs;
      const double g = static_cast<double>(dy[i * C + c]) * w[c];
      dx[i * C + c] = static_cast<float>(rs * (g - mean_g - xhat * mean_gx));
    }
  }
  for (int64_t c = 0; c < C; ++c) {
    double sum_w = 0.0, sum_b = 0.0;
    for (int64_t i = 0; i < N; ++i) {
      const double xhat = (x[i * C + c] - mean[i]) * static_cast<double>(rstd[i]);
      sum_w += dy[i * C + c] * xhat;
      sum_b += dy[i * C + c];
    }
    if (dw) dw[c] = static_cast<float>(dw[c] + sum_w);
    if (db) db[c] = static_cast<float>(db[c] + sum_b);
  }
}

}  // namespace tinylm::ops::ref
