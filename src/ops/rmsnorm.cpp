// RMS normalisation, fast version (see rmsnorm.h). Forward and dx run parallel over rows
// (one row pass each, the row staying in cache); dw runs parallel over blocks of columns,
// each summed over rows in order, so results are independent of the thread count.
#include "ops/rmsnorm.h"

#include <algorithm>
#include <cmath>

#include "ops/parallel_for.h"

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
}

void rmsnorm_forward(const float* x, const float* w, float* y, float* rstd, int64_t N, int64_t C,
                     float eps) {
  parallel_for(N, N > 1 && N * C >= kMinParallel, [&](int64_t i) {
    const float* xr = x + i * C;
    float* yr = y + i * C;
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (int64_t c = 0; c < C; ++c) sq += xr[c] * xr[c];
    const float rs = 1.0f / std::sqrt(sq / static_cast<float>(C) + eps);
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * rs * w[c];
    rstd[i] = rs;
  });
}

void rmsnorm_backward(const float* dy, const float* x, const float* w, const float* rstd, float* dx,
                      float* dw, int64_t N, int64_t C) {
  const bool parallel = N * C >= kMinParallel;
  parallel_for(N, parallel && N > 1, [&](int64_t i) {
    const float* dyr = dy + i * C;
    const float* xr = x + i * C;
    float* dxr = dx + i * C;
    const float rs = rstd[i];
    float sum_gx = 0.0f;
#pragma omp simd reduction(+ : sum_gx)
    for (int64_t c = 0; c < C; ++c) sum_gx += dyr[c] * w[c] * (xr[c] * rs);
    const float mean_gx = sum_gx / static_cast<float>(C);
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) dxr[c] = rs * (dyr[c] * w[c] - xr[c] * rs * mean_gx);
  });
  if (!dw) return;
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
  parallel_for(blocks, parallel && blocks > 1, [&](int64_t blk) {
    const int64_t c0 = blk * kBlock, c1 = std::min(C, c0 + kBlock);
    float acc[kBlock] = {};
    for (int64_t i = 0; i < N; ++i) {
      const float* dyr = dy + i * C;
      const float* xr = x + i * C;
      const float rs = rstd[i];
#pragma omp simd
      for (int64_t c = c0; c < c1; ++c) acc[c - c0] += dyr[c] * (xr[c] * rs);
    }
    for (int64_t c = c0; c < c1; ++c) dw[c] += acc[c - c0];
  });
}

}  // namespace tinylm::ops
