// AdamW update for one parameter tensor, fast version: p, g, m, v [N], step t >= 1.
// The same operations, in the same order and precision, as PyTorch's single-tensor
// torch.optim.AdamW on float32 tensors (scalars computed in double, then used as float):
//   p *= (1 - lr wd)
//   m = m + (1 - b1) (g - m)                 (torch: exp_avg.lerp_(grad, 1 - b1); its
//                                             other form when b1 <= 0.5)
//   v = v b2 + (1 - b2) g g                  (torch: mul_(b2).addcmul_(g, g, 1 - b2))
//   bc1 = 1 - b1^t, bc2 = 1 - b2^t           (double)
//   denom = sqrt(v) / sqrt(bc2) + eps
//   p = p + (-lr / bc1) m / denom            (torch: addcdiv_(m, denom, -lr / bc1))
// Element-wise and independent, so parallel over N with an identical result per element.
#include "ops/adamw.h"

#include <cmath>
#include <string>

#include "util/error.h"

namespace tinylm::ops {
namespace {
constexpr int64_t kMinParallel = 1 << 15;  // below this many elements, stay serial
}

void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const AdamWHyper& h,
                  int64_t step) {
  require(step >= 1, [&] { return "adamw: step must start at 1, got " + std::to_string(step); });
  const double lr = h.lr, b1 = h.beta1, b2 = h.beta2, t = static_cast<double>(step);
  const float decay = static_cast<float>(1.0 - lr * h.weight_decay);
  const float one_minus_b1 = static_cast<float>(1.0 - b1);
  const float one_minus_b2 = static_cast<float>(1.0 - b2);
  const float beta2 = h.beta2, eps = h.eps;
  const double bc1 = 1.0 - std::pow(b1, t), bc2 = 1.0 - std::pow(b2, t);
  const float neg_step_size = static_cast<float>(-(lr / bc1));
  const float bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  const bool decays = h.weight_decay != 0.0f;
  const bool lerp_low = std::fabs(one_minus_b1) < 0.5f;

#pragma omp parallel for simd schedule(static) if (N >= kMinParallel)
  for (int64_t i = 0; i < N; ++i) {
    float pi = decays ? p[i] * decay : p[i];
    const float gi = g[i];
    // torch's lerp: start + w (end - start) for |w| < 0.5, else end - (end - start)(1 - w)
    const float mi =
        lerp_low ? m[i] + one_minus_b1 * (gi - m[i]) : gi - (gi - m[i]) * (1.0f - one_minus_b1);
    const float vi = v[i] * beta2 + one_minus_b2 * gi * gi;
    const float denom = std::sqrt(vi) / bc2_sqrt + eps;
    pi = pi + neg_step_size * mi / denom;
    p[i] = pi;
    m[i] = mi;
    v[i] = vi;
  }
}

void adamw_update_spans(const std::vector<AdamWSpan>& spans, const AdamWHyper& h, int64_t step) {
  require(step >= 1, [&] { return "adamw: step must start at 1, got " + std::to_string(step); });
  for (const AdamWSpan& s : spans)
    ops::adamw_update(s.p, s.g, s.m, s.v, s.n, span_hyper(s, h), step);
}

}  // namespace tinylm::ops
