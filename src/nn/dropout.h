// Dropout on a tensor of any shape: active only when ctx.training and p > 0.
//   forward:  x -> y = x * mask, mask entries 0 or 1/(1-p) drawn from ctx.dropout_key
//             (x [B, ...] with B = ctx.rows: masks keyed by sequence)
//   backward: dy -> dx = dy * mask (or dy itself when inactive)
#pragma once
#include <string>

#include "nn/buffer_plan.h"
#include "nn/context.h"
#include "tensor/tensor.h"

namespace tinylm::nn {

class Dropout {
 public:
  explicit Dropout(float p = 0.0f) : p_(p) {}

  Tensor forward(const Tensor& x, const Context& ctx);
  Tensor backward(const Tensor& dy);
  float p() const { return p_; }
  // What a step keeps when active (a training step with p > 0; else forward hands x back
  // and keeps nothing): the mask and y, and dx when backward reaches it.
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& w,
                           const StepShape& s, bool active, bool backward = true);

 private:
  float p_;
  bool active_ = false;
  Tensor mask_, y_, dx_;
};

}  // namespace tinylm::nn
