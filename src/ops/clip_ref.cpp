// Global-norm gradient clipping, reference version: grads = list of spans g_k [size_k].
//   norm = sqrt(sum_k sum_i g_k[i]^2)  (double)
//   coef = max_norm / (norm + 1e-6); if coef < 1, every g *= coef. Returns norm.
#include <cmath>

#include "ops/clip.h"

namespace tinylm::ops::ref {

double clip_grad_norm(const std::vector<GradSpan>& grads, double max_norm) {
  double sum_sq = 0.0;
  for (const GradSpan& span : grads)
    for (int64_t i = 0; i < span.size; ++i)
      sum_sq += static_cast<double>(span.data[i]) * span.data[i];
  const double norm = std::sqrt(sum_sq);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    for (const GradSpan& span : grads)
      for (int64_t i = 0; i < span.size; ++i)
        span.data[i] = static_cast<float>(span.data[i] * coef);
  }
  return norm;
}

}  // namespace tinylm::ops::ref
