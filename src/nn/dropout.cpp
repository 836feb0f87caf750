#include "nn/dropout.h"

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::nn {

void Dropout::plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& w,
                           const StepShape& s, bool active, bool backward) {
  if (!active) return;
  plan.add_rows(BufferUse::kForward, prefix + ": mask, y", s, w, 2);
  if (backward) plan.add_rows(BufferUse::kBackward, prefix + ": dx", s, w);
}

Tensor Dropout::forward(const Tensor& x, const Context& ctx) {
  active_ = ctx.training && p_ > 0.0f;
  if (!active_) return x;
  require(ctx.rng != nullptr, "Dropout: training with dropout needs a random generator");
  mask_.ensure_shape(x.shape(), x.device());
  y_.ensure_shape(x.shape(), x.device());
  on(x).dropout_forward(x.data(), y_.data(), mask_.data(), x.numel(), p_,
                        ctx.dropout_key(x.numel()));
  return y_;
}

Tensor Dropout::backward(const Tensor& dy) {
  if (!active_) return dy;
  dx_.ensure_shape(dy.shape(), dy.device());
  on(dy).dropout_backward(dy.data(), mask_.data(), dx_.data(), dy.numel());
  return dx_;
}

}  // namespace tinylm::nn
