// AdamW (Loshchilov & Hutter; PyTorch's torch.optim.AdamW): for one parameter tensor,
//   m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g^2
//   p -= lr * wd * p                                   (decoupled weight decay)
//   p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// step t starts at 1. p, g, m, v: [N].
#pragma once
#include <cstdint>

namespace tinylm::ops {

struct AdamWHyper {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.0f;
};

void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const AdamWHyper& h,
                  int64_t step);

namespace ref {
void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const AdamWHyper& h,
                  int64_t step);
}  // namespace ref

}  // namespace tinylm::ops
