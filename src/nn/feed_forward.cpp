#include "nn/feed_forward.h"

#include "backend/registry.h"

namespace tinylm::nn {

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, ops::Activation act, bool bias)
    : c_fc(d_model, d_ff, bias), c_proj(d_ff, d_model, bias), act_(act) {}

FeedForward::FeedForward(const BlockConfig& c)
    : FeedForward(c.d_model, c.d_ff, c.activation, c.ffn_bias) {
  gated_ = c.gated;
  if (gated_) gate = Linear(c.d_model, c.d_ff, c.ffn_bias);
}

void FeedForward::init(Rng& rng, float std, float proj_std) {
  if (gated_) gate.init(rng, std);
  c_fc.init(rng, std);
  c_proj.init(rng, proj_std);
}

Tensor FeedForward::forward(const Tensor& x, const Context& ctx) {
  h_ = c_fc.forward(x, ctx);
  a_.ensure_shape(h_.shape(), h_.device());
  if (gated_) {
    g_ = gate.forward(x, ctx);
    on(h_).swiglu_forward(g_.data(), h_.data(), a_.data(), h_.numel());
  } else {
    on(h_).activation_forward(act_, h_.data(), a_.data(), h_.numel());
  }
  return c_proj.forward(a_, ctx);
}

Tensor FeedForward::backward(const Tensor& dy) {
  const Tensor da = c_proj.backward(dy);
  da_.ensure_shape(h_.shape(), h_.device());
  if (!gated_) {
    on(h_).activation_backward(act_, da.data(), h_.data(), da_.data(), h_.numel());
    return c_fc.backward(da_);
  }
  dgate_.ensure_shape(h_.shape(), h_.device());
  on(h_).swiglu_backward(da.data(), g_.data(), h_.data(), dgate_.data(), da_.data(), h_.numel());
  const Tensor dx_up = c_fc.backward(da_);
  dx_.ensure_shape(dx_up.shape(), dx_up.device());
  on(dx_up).add(dx_up.data(), gate.backward(dgate_).data(), dx_.data(), dx_.numel());
  return dx_;
}

void FeedForward::plan_buffers(BufferPlan& plan, const std::string& prefix, const BlockConfig& c,
                               const StepShape& s) {
  const Width C{"C", c.d_model}, F{"F", c.d_ff};
  if (!c.gated) {
    Linear::plan_buffers(plan, prefix + ".c_fc", C, F, s);  // y: the pre-activation
    plan.add_rows(BufferUse::kForward, prefix + ": activation", s, F);
    Linear::plan_buffers(plan, prefix + ".c_proj", F, C, s);
    plan.add_rows(BufferUse::kBackward, prefix + ": d(pre-activation)", s, F);
    return;
  }
  Linear::plan_buffers(plan, prefix + ".gate_proj", C, F, s);
  Linear::plan_buffers(plan, prefix + ".up_proj", C, F, s);
  plan.add_rows(BufferUse::kForward, prefix + ": silu(gate) * up", s, F);
  Linear::plan_buffers(plan, prefix + ".down_proj", F, C, s);
  plan.add_rows(BufferUse::kBackward, prefix + ": d(gate), d(up)", s, F, 2);
  plan.add_rows(BufferUse::kBackward, prefix + ": dx (gate + up)", s, C);
}

void FeedForward::parameters(ParameterList& list, const std::string& prefix) {
  if (!gated_) {
    c_fc.parameters(list, prefix + "c_fc.");
    c_proj.parameters(list, prefix + "c_proj.");
    return;
  }
  gate.parameters(list, prefix + "gate_proj.");
  c_fc.parameters(list, prefix + "up_proj.");
  c_proj.parameters(list, prefix + "down_proj.");
}

}  // namespace tinylm::nn
