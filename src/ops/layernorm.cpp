// Layer normalisation over the last dimension, fast version.
//   forward:  x [N, C], w [C], b [C] or null -> y [N, C], mean [N], rstd [N]
//   backward: dy [N, C] -> dx [N, C] (overwritten), dw [C] +=, db [C] += (if not null)
// With xhat = (x - mean) * rstd and g = dy * w, the row gradient is
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)).
// Forward and dx run parallel over rows (one row pass each, the row staying in cache);
// dw/db run parallel over blocks of columns, each summed over rows in order, so results
// are independent of the thread count.
#include "ops/layernorm.h"

#include <algorithm>
#include <cmath>

#include "ops/parallel_for.h"

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
}

void layernorm_forward(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t N, int64_t C, float eps) {
  parallel_for(N, N > 1 && N * C >= kMinParallel, [&](int64_t i) {
    const float* xr = x + i * C;
    float* yr = y + i * C;
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < C; ++c) sum += xr[c];
    const float mu = sum / static_cast<float>(C);
    float sq = 0.0f;  // two-pass variance: no cancellation for large means
#pragma omp simd reduction(+ : sq)
    for (int64_t c = 0; c < C; ++c) sq += (xr[c] - mu) * (xr[c] - mu);
    const float rs = 1.0f / std::sqrt(sq / static_cast<float>(C) + eps);
    if (b) {
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) yr[c] = (xr[c] - mu) * rs * w[c] + b[c];
    } else {
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) yr[c] = (xr[c] - mu) * rs * w[c];
    }
    mean[i] = mu;
    rstd[i] = rs;
  });
}

void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C) {
  const bool parallel = N * C >= kMinParallel;
#pragma omp parallel for schedule(static) if (parallel && N > 1)
  for (int64_t i = 0; i < N; ++i) {
    const float* dyr = dy + i * C;
    const float* xr = x + i * C;
    float* dxr = dx + i * C;
    const float mu = mean[i], rs = rstd[i];
    float sum_g = 0.0f, sum_gx = 0.0f;
#pragma omp simd reduction(+ : sum_g, sum_gx)
    for (int64_t c = 0; c < C; ++c) {
      const float g = dyr[c] * w[c];
      sum_g += g;
      sum_gx += g * (xr[c] - mu) * rs;
    }
    const float mean_g = sum_g / static_cast<float>(C), mean_gx = sum_gx / static_cast<float>(C);
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) {
      const float xhat = (xr[c] - mu) * rs;
      dxr[c] = rs * (dyr[c] * w[c] - mean_g - xhat * mean_gx);
    }
  }

  if (!dw && !db) return;
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (parallel && blocks > 1)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kBlock, c1 = std::min(C, c0 + kBlock);
    float acc_w[kBlock] = {}, acc_b[kBlock] = {};
    for (int64_t i = 0; i < N; ++i) {
      const float* dyr = dy + i * C;
      const float* xr = x + i * C;
      const float mu = mean[i], rs = rstd[i];
#pragma omp simd
      for (int64_t c = c0; c < c1; ++c) {
        acc_w[c - c0] += dyr[c] * ((xr[c] - mu) * rs);
        acc_b[c - c0] += dyr[c];
      }
    }
    for (int64_t c = c0; c < c1; ++c) {
      if (dw) dw[c] += acc_w[c - c0];
      if (db) db[c] += acc_b[c - c0];
    }
  }
}

}  // namespace tinylm::ops
