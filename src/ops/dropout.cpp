// Inverted dropout, fast version: x [N] -> y [N] = x * mask, mask [N] in {0, 1/(1-p)};
// backward dy [N] -> dx [N] = dy * mask.
// The mask is drawn by position (dropout_draw_mask: keep iff counter_uniform(key, i) >= p,
// the caller's key), so a key fixes it whatever the thread count or device.
#include "ops/dropout.h"

#include <string>

#include "ops/dropout_keep.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial
}

void dropout_draw_mask(float* mask, int64_t N, float p, uint64_t key) {
  require(p >= 0.0f && p <= 1.0f,
          [&] { return "dropout: probability " + std::to_string(p) + " is outside [0, 1]"; });
  if (p == 0.0f) {
    for (int64_t i = 0; i < N; ++i) mask[i] = 1.0f;
    return;
  }
  const float scale = 1.0f / (1.0f - p);  // inf for p == 1, but then nothing is kept
#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) mask[i] = dropout_keep(key, i, p, scale);
}

void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, uint64_t key) {
  dropout_draw_mask(mask, N, p, key);
#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) y[i] = x[i] * mask[i];
}

void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N) {
#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) dx[i] = dy[i] * mask[i];
}

}  // namespace tinylm::ops
