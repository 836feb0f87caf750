// Global-norm gradient clipping, as torch.nn.utils.clip_grad_norm_:
//   norm = sqrt(sum over all tensors of sum(g^2)) (accumulated in double);
//   if norm > max_norm, every g *= max_norm / (norm + 1e-6). Returns norm (before clipping).
#pragma once
#include <cstdint>
#include <vector>

namespace tinylm::ops {

struct GradSpan {
  float* data;
  int64_t size;
};

double clip_grad_norm(const std::vector<GradSpan>& grads, double max_norm);

namespace ref {
double clip_grad_norm(const std::vector<GradSpan>& grads, double max_norm);
}  // namespace ref

}  // namespace tinylm::ops
