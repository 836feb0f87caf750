#include "nn/feed_forward.h"

#include "backend/registry.h"

namespace tinylm::nn {

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, ops::Activation act, bool bias)
    : c_fc(d_model, d_ff, bias), c_proj(d_ff, d_model, bias), act_(act) {}

void FeedForward::init(Rng& rng, float std, float proj_std) {
  c_fc.init(rng, std);
  c_proj.init(rng, proj_std);
}

Tensor FeedForward::forward(const Tensor& x, const Context& ctx) {
  h_ = c_fc.forward(x, ctx);
  a_.ensure_shape(h_.shape(), h_.device());
  on(h_).activation_forward(act_, h_.data(), a_.data(), h_.numel());
  return c_proj.forward(a_, ctx);
}

Tensor FeedForward::backward(const Tensor& dy) {
  const Tensor da = c_proj.backward(dy);
  da_.ensure_shape(h_.shape(), h_.device());
  on(h_).activation_backward(act_, da.data(), h_.data(), da_.data(), h_.numel());
  return c_fc.backward(da_);
}

void FeedForward::plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& d_model,
                               const Width& d_ff, const StepShape& s) {
  Linear::plan_buffers(plan, prefix + ".c_fc", d_model, d_ff, s);  // y: the pre-activation
  plan.add_rows(BufferUse::kForward, prefix + ": activation", s, d_ff);
  Linear::plan_buffers(plan, prefix + ".c_proj", d_ff, d_model, s);
  plan.add_rows(BufferUse::kBackward, prefix + ": d(pre-activation)", s, d_ff);
}

void FeedForward::parameters(ParameterList& list, const std::string& prefix) {
  c_fc.parameters(list, prefix + "c_fc.");
  c_proj.parameters(list, prefix + "c_proj.");
}

}  // namespace tinylm::nn
