// AdamW (Loshchilov & Hutter; PyTorch's torch.optim.AdamW): for one parameter tensor,
//   m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g^2
//   p -= lr * wd * p                                   (decoupled weight decay)
//   p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// step t starts at 1. p, g, m, v: [N].
// adamw_update_spans: one step of every parameter tensor of a model in one call (the
// trainer's; the GPU's is one launch for all of them, not one per tensor).
#pragma once
#include <cstdint>
#include <vector>

namespace tinylm::ops {

struct AdamWHyper {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.0f;
};

// One parameter tensor of a multi-tensor step: p, g, m, v [n]; decay: whether
// AdamWHyper::weight_decay applies to it (0 otherwise).
struct AdamWSpan {
  float* p;
  const float* g;
  float* m;
  float* v;
  int64_t n;
  bool decay;
};

void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const AdamWHyper& h,
                  int64_t step);
// adamw_update of each span, with h.weight_decay where span.decay, else 0.
void adamw_update_spans(const std::vector<AdamWSpan>& spans, const AdamWHyper& h, int64_t step);

namespace ref {
void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const AdamWHyper& h,
                  int64_t step);
void adamw_update_spans(const std::vector<AdamWSpan>& spans, const AdamWHyper& h, int64_t step);
}  // namespace ref

// The hyperparameters of one span of a multi-tensor step.
inline AdamWHyper span_hyper(const AdamWSpan& span, AdamWHyper h) {
  if (!span.decay) h.weight_decay = 0.0f;
  return h;
}

}  // namespace tinylm::ops
