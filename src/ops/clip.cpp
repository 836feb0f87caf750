// Global-norm gradient clipping, fast version: grads = list of spans g_k [size_k].
//   norm = sqrt(sum_k sum_i g_k[i]^2)  (double)
//   coef = max_norm / (norm + 1e-6); if coef < 1, every g *= coef. Returns norm.
// The sum of squares is taken over fixed chunks of each span (in parallel) whose double
// partial sums are then added in order: the same norm for any thread count.
#include "ops/clip.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tinylm::ops {
namespace {
constexpr int64_t kChunk = 1 << 14;
}

double clip_grad_norm(const std::vector<GradSpan>& grads, double max_norm) {
  double total = 0.0;
  // Kept from call to call (the memory plan); the region's threads write through the
  // pointer, since each thread has its own thread_local.
  thread_local std::vector<double> partial_pool;
  for (const GradSpan& span : grads) {
    const int64_t chunks = (span.size + kChunk - 1) / kChunk;
    partial_pool.assign(chunks, 0.0);
    double* partial = partial_pool.data();
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
      const float* g = span.data + c * kChunk;
      const int64_t n = std::min(kChunk, span.size - c * kChunk);
      double sum = 0.0;
#pragma omp simd reduction(+ : sum)
      for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(g[i]) * g[i];
      partial[c] = sum;
    }
    for (int64_t c = 0; c < chunks; ++c) total += partial[c];
  }
  const double norm = std::sqrt(total);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    const float c = static_cast<float>(coef);
    for (const GradSpan& span : grads) {
      float* g = span.data;
#pragma omp parallel for simd schedule(static) if (span.size >= kChunk)
      for (int64_t i = 0; i < span.size; ++i) g[i] *= c;
    }
  }
  return norm;
}

}  // namespace tinylm::ops
