// AdamW update for one parameter tensor, reference version: p, g, m, v [N], step t >= 1.
//   p -= lr wd p
//   m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g^2
//   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
// Each element is computed in double and stored as float.
#include <cmath>
#include <string>

#include "ops/adamw.h"
#include "util/error.h"

namespace tinylm::ops::ref {

void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const AdamWHyper& h,
                  int64_t step) {
  require(step >= 1, "adamw: step must start at 1, got " + std::to_string(step));
  const double lr = h.lr, b1 = h.beta1, b2 = h.beta2, eps = h.eps, wd = h.weight_decay;
  const double bc1 = 1.0 - std::pow(b1, static_cast<double>(step));
  const double bc2 = 1.0 - std::pow(b2, static_cast<double>(step));
  for (int64_t i = 0; i < N; ++i) {
    double param = p[i];
    param -= lr * wd * param;
    const double mi = b1 * m[i] + (1.0 - b1) * g[i];
    const double vi = b2 * v[i] + (1.0 - b2) * static_cast<double>(g[i]) * g[i];
    param -= lr / bc1 * mi / (std::sqrt(vi) / std::sqrt(bc2) + eps);
    p[i] = static_cast<float>(param);
    m[i] = static_cast<float>(mi);
    v[i] = static_cast<float>(vi);
  }
}

void adamw_update_spans(const std::vector<AdamWSpan>& spans, const AdamWHyper& h, int64_t step) {
  require(step >= 1, [&] { return "adamw: step must start at 1, got " + std::to_string(step); });
  for (const AdamWSpan& s : spans)
    ref::adamw_update(s.p, s.g, s.m, s.v, s.n, span_hyper(s, h), step);
}

}  // namespace tinylm::ops::ref
