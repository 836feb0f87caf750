#include "nn/multi_head_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::nn {

namespace {

// Backward's work buffers, one set shared by every attention layer of the thread: each
// is used only inside one call of backward (blocks run backward one after another), so
// one set, sized on the first step, serves them all (the memory plan).
struct BackwardScratch {
  Tensor dy, dq, dk, dv, dqkv;  // [B, H, T, dh] x 4, [B, T, 3C]
  Tensor key_bias_grad;         // [C]
};
BackwardScratch& backward_scratch() {
  thread_local BackwardScratch scratch;
  return scratch;
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(int64_t d_model, int64_t n_head, bool qkv_bias,
                                       bool proj_bias, float attn_dropout)
    : c_attn(d_model, 3 * d_model, qkv_bias),
      c_proj(d_model, d_model, proj_bias),
      d_model_(d_model),
      n_head_(n_head),
      attn_dropout_(attn_dropout) {
  require(d_model % n_head == 0, "MultiHeadAttention: d_model " + std::to_string(d_model) +
                                     " is not divisible by n_head " + std::to_string(n_head));
}

void MultiHeadAttention::release_backward_buffers() {
  backward_scratch() = BackwardScratch();
}

float MultiHeadAttention::scale() const {
  return 1.0f / std::sqrt(static_cast<float>(d_model_ / n_head_));
}

void MultiHeadAttention::init(Rng& rng, float std, float proj_std) {
  c_attn.init(rng, std);
  c_proj.init(rng, proj_std);
}

Tensor MultiHeadAttention::forward(const Tensor& x, const Context& ctx,
                                   const ops::AttentionMask& mask) {
  require(x.ndim() == 3 && x.dim(2) == d_model_, [&] {
    return "MultiHeadAttention: input must be [B, T, " + std::to_string(d_model_) + "], got " +
           shape_str(x.shape());
  });
  const int64_t B = x.dim(0), T = x.dim(1), H = n_head_, dh = d_model_ / n_head_;
  const Tensor qkv = c_attn.forward(x, ctx);  // [B, T, 3C]
  const Device device = x.device();
  const Backend& kernels = on(x);
  for (Tensor* t : {&q_, &k_, &v_, &y_}) t->ensure_shape({B, H, T, dh}, device);
  kernels.split_heads(qkv.data(), q_.data(), k_.data(), v_.data(), B, T, H, dh);

  dropped_ = ctx.training && attn_dropout_ > 0.0f;
  tiled_ = ctx.training;
  const ops::AttentionShape s{B * H, T, T, dh, dh};
  if (dropped_) {
    require(ctx.rng != nullptr, "attention dropout needs a random generator");
    dropout_key_ = ctx.dropout_key(B * H * T * T);
  }
  if (tiled_) {
    mask_ = mask;
    if (mask.additive) {  // keep our own copy for backward (the mask is on x's device)
      additive_.ensure_shape({mask.additive_sets, T, T}, device);
      kernels.copy(mask.additive, additive_.data(), additive_.numel());
      mask_.additive = additive_.data();
    }
    lse_.ensure_shape({B, H, T}, device);
    kernels.attention_forward_tiled(q_.data(), k_.data(), v_.data(), y_.data(), lse_.data(), s,
                                    scale(), mask_, dropout_p(), dropout_key_);
    merged_.ensure_shape({B, T, d_model_}, device);
    kernels.heads_to_rows(y_.data(), merged_.data(), B, T, H, dh);
    return c_proj.forward(merged_, ctx);
  }
  att_.ensure_shape({B, H, T, T}, device);
  kernels.attention_forward(q_.data(), k_.data(), v_.data(), y_.data(), att_.data(), s, scale(),
                            mask, 0.0f, nullptr, 0);

  merged_.ensure_shape({B, T, d_model_}, device);
  kernels.heads_to_rows(y_.data(), merged_.data(), B, T, H, dh);
  return c_proj.forward(merged_, ctx);
}

Tensor MultiHeadAttention::backward(const Tensor& dout) {
  const int64_t B = q_.dim(0), H = n_head_, T = q_.dim(2), dh = q_.dim(3);
  BackwardScratch& w = backward_scratch();
  const Device device = q_.device();
  const Backend& kernels = on(q_);
  Tensor dmerged = c_proj.backward(dout);  // [B, T, C]
  w.dy.ensure_shape({B, H, T, dh}, device);
  kernels.rows_to_heads(dmerged.data(), w.dy.data(), B, T, H, dh);

  for (Tensor* t : {&w.dq, &w.dk, &w.dv}) t->ensure_shape(q_.shape(), device);
  const ops::AttentionShape s{B * H, T, T, dh, dh};
  if (tiled_) {
    kernels.attention_backward_tiled(w.dy.data(), q_.data(), k_.data(), v_.data(), y_.data(),
                                     lse_.data(), w.dq.data(), w.dk.data(), w.dv.data(), s, scale(),
                                     mask_, dropout_p(), dropout_key_);
  } else {
    kernels.attention_backward(w.dy.data(), q_.data(), k_.data(), v_.data(), att_.data(), nullptr,
                               w.dq.data(), w.dk.data(), w.dv.data(), s, scale());
  }
  w.dqkv.ensure_shape({B, T, 3 * d_model_}, device);
  kernels.join_heads(w.dq.data(), w.dk.data(), w.dv.data(), w.dqkv.data(), B, T, H, dh);
  // The key bias adds q_i . b_k to every score of row i alike, which softmax ignores: its
  // gradient is exactly zero. Summed in float32 it is rounding noise (~1e-11) that AdamW
  // divides by ~eps and turns into real updates, so keep it at exactly zero.
  const bool keep_key_bias = c_attn.bias.trainable();
  float* key_bias_grad = keep_key_bias ? c_attn.bias.grad.data() + d_model_ : nullptr;
  if (keep_key_bias) {
    w.key_bias_grad.ensure_shape({d_model_}, device);
    kernels.copy(key_bias_grad, w.key_bias_grad.data(), d_model_);
  }
  Tensor dx = c_attn.backward(w.dqkv);
  if (keep_key_bias) kernels.copy(w.key_bias_grad.data(), key_bias_grad, d_model_);
  return dx;
}

void MultiHeadAttention::plan_buffers(BufferPlan& plan, const std::string& prefix,
                                      const Width& d_model, int64_t n_head, const StepShape& s) {
  const int64_t C = d_model.n, H = n_head, B = s.B, T = s.T;
  Linear::plan_buffers(plan, prefix + ".c_attn", d_model, {"3C", 3 * C}, s);  // y: qkv
  plan.add(BufferUse::kForward, prefix + ": q, k, v, y by head", "4 x [B, H, T, dh]",
           4 * s.rows() * C);
  if (s.training)
    plan.add(BufferUse::kForward, prefix + ": row log-sum-exp (tiled)", "[B, H, T]", B * H * T);
  else
    plan.add(BufferUse::kForward, prefix + ": weights att", "[B, H, T, T]", B * H * T * T);
  plan.add_rows(BufferUse::kForward, prefix + ": merged heads", s, d_model);
  Linear::plan_buffers(plan, prefix + ".c_proj", d_model, d_model, s);
}

void MultiHeadAttention::plan_backward_buffers(BufferPlan& plan, const Width& d_model,
                                               const StepShape& s) {
  plan.add(BufferUse::kTransient, "attention backward: dy, dq, dk, dv, dqkv",
           "4 x [B, H, T, dh] + [B, T, 3C]", 7 * s.rows() * d_model.n);
}

void MultiHeadAttention::parameters(ParameterList& list, const std::string& prefix) {
  c_attn.parameters(list, prefix + "c_attn.");
  c_proj.parameters(list, prefix + "c_proj.");
}

}  // namespace tinylm::nn
