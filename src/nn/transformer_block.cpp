#include "nn/transformer_block.h"

#include "backend/registry.h"

namespace tinylm::nn {

namespace {
NormKind norm_kind(const BlockConfig& c) {
  return c.rms_norm ? NormKind::kRmsNorm : NormKind::kLayerNorm;
}
}  // namespace

void add_into(const Tensor& a, const Tensor& b, Tensor& out) {
  out.ensure_shape(a.shape(), a.device());
  on(a).add(a.data(), b.data(), out.data(), a.numel());
}

TransformerBlock::TransformerBlock(const BlockConfig& c)
    : ln_1(c.d_model, c.ln_bias, c.norm_eps, norm_kind(c)),
      attn(c),
      ln_2(c.d_model, c.ln_bias, c.norm_eps, norm_kind(c)),
      mlp(c),
      naming_(c.naming),
      pre_ln_(c.pre_ln),
      residual_(c.residual),
      attn_drop_(c.dropout),
      mlp_drop_(c.dropout) {}

void TransformerBlock::add_residual(const Tensor& a, const Tensor& b, Tensor& out) const {
  if (residual_) {
    add_into(a, b, out);
  } else {
    out.ensure_shape(b.shape(), b.device());
    on(b).copy(b.data(), out.data(), b.numel());
  }
}

void TransformerBlock::init(Rng& rng, float std, float proj_std) {
  ln_1.init();
  attn.init(rng, std, proj_std);
  ln_2.init();
  mlp.init(rng, std, proj_std);
}

Tensor TransformerBlock::forward(const Tensor& x, const Context& ctx,
                                 const ops::AttentionMask& mask, const RotaryTables* rope) {
  if (pre_ln_) {
    add_residual(x, attn_drop_.forward(attn.forward(ln_1.forward(x), ctx, mask, rope), ctx), h_);
    add_residual(h_, mlp_drop_.forward(mlp.forward(ln_2.forward(h_), ctx), ctx), y_);
    return y_;
  }
  add_residual(x, attn_drop_.forward(attn.forward(x, ctx, mask, rope), ctx), sum1_);
  h_ = ln_1.forward(sum1_);
  add_residual(h_, mlp_drop_.forward(mlp.forward(h_, ctx), ctx), sum2_);
  return ln_2.forward(sum2_);
}

void TransformerBlock::plan_buffers(BufferPlan& plan, const std::string& prefix,
                                    const BlockConfig& c, const StepShape& s) {
  const Width C{"C", c.d_model};
  const bool drop = s.training && c.dropout > 0.0f;
  const bool gpt2 = c.naming == Naming::kGpt2;
  Norm::plan_buffers(plan, prefix + (gpt2 ? ".ln_1" : ".input_layernorm"), C, s);
  MultiHeadAttention::plan_buffers(plan, prefix + (gpt2 ? ".attn" : ".self_attn"), c, s);
  Dropout::plan_buffers(plan, prefix + ".attn_drop", C, s, drop);
  Norm::plan_buffers(plan, prefix + (gpt2 ? ".ln_2" : ".post_attention_layernorm"), C, s);
  FeedForward::plan_buffers(plan, prefix + ".mlp", c, s);
  Dropout::plan_buffers(plan, prefix + ".mlp_drop", C, s, drop);
  plan.add_rows(BufferUse::kForward, prefix + ": residual sums", s, C, 2);
  plan.add_rows(BufferUse::kBackward, prefix + ": dh, dx (residual stream)", s, C, 2);
}

Tensor TransformerBlock::backward(const Tensor& dy) {
  if (pre_ln_) {
    // y = h + mlp(ln_2(h)): dh = dy + ln_2'(mlp'(dy))
    add_residual(dy, ln_2.backward(mlp.backward(mlp_drop_.backward(dy))), dh_);
    // h = x + attn(ln_1(x)): dx = dh + ln_1'(attn'(dh))
    add_residual(dh_, ln_1.backward(attn.backward(attn_drop_.backward(dh_))), dx_);
    return dx_;
  }
  // y = ln_2(h + mlp(h)): d(sum2) = ln_2'(dy); dh = dsum2 + mlp'(dsum2)
  const Tensor dsum2 = ln_2.backward(dy);
  add_residual(dsum2, mlp.backward(mlp_drop_.backward(dsum2)), dh_);
  // h = ln_1(x + attn(x))
  const Tensor dsum1 = ln_1.backward(dh_);
  add_residual(dsum1, attn.backward(attn_drop_.backward(dsum1)), dx_);
  return dx_;
}

void TransformerBlock::parameters(ParameterList& list, const std::string& prefix) {
  const bool gpt2 = naming_ == Naming::kGpt2;
  ln_1.parameters(list, prefix + (gpt2 ? "ln_1." : "input_layernorm."));
  attn.parameters(list, prefix + (gpt2 ? "attn." : "self_attn."));
  ln_2.parameters(list, prefix + (gpt2 ? "ln_2." : "post_attention_layernorm."));
  mlp.parameters(list, prefix + "mlp.");
}

}  // namespace tinylm::nn
