#include "nn/multi_head_attention.h"

#include <cmath>

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm::nn {

namespace {

// Backward's work buffers, one set shared by every attention layer of the thread: each
// is used only inside one call of backward (blocks run backward one after another), so
// one set, sized on the first step, serves them all (the memory plan).
struct BackwardScratch {
  Tensor dy, dq, dk, dv;  // [B, H, T, D] x 4
  Tensor dk_kv, dv_kv;    // [B, KV, T, D]: dk, dv summed over each group (KV < H)
  Tensor dqkv;            // GPT-2: [B, T, 3C]; llama: one projection's [B, T, H*D or KV*D]
  Tensor dx;              // llama: the three projections' dx summed [B, T, C]
  Tensor key_bias_grad;   // [C]
};
BackwardScratch& backward_scratch() {
  thread_local BackwardScratch scratch;
  return scratch;
}

BlockConfig gpt2_attention(int64_t d_model, int64_t n_head, bool qkv_bias, bool proj_bias,
                           float attn_dropout) {
  BlockConfig c;
  c.d_model = d_model, c.n_head = n_head, c.n_kv_head = n_head;
  c.head_dim = n_head > 0 ? d_model / n_head : 0;
  c.qkv_bias = qkv_bias, c.attn_proj_bias = proj_bias, c.attn_dropout = attn_dropout;
  return c;
}

// A block config's kv heads and head width, 0 meaning GPT-2's (H and C / H).
int64_t kv_heads_of(const BlockConfig& c) {
  return c.n_kv_head > 0 ? c.n_kv_head : c.n_head;
}
int64_t head_dim_of(const BlockConfig& c) {
  return c.head_dim > 0 ? c.head_dim : (c.n_head > 0 ? c.d_model / c.n_head : 0);
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(int64_t d_model, int64_t n_head, bool qkv_bias,
                                       bool proj_bias, float attn_dropout)
    : MultiHeadAttention(gpt2_attention(d_model, n_head, qkv_bias, proj_bias, attn_dropout)) {
  require(d_model % n_head == 0, "MultiHeadAttention: d_model " + std::to_string(d_model) +
                                     " is not divisible by n_head " + std::to_string(n_head));
}

MultiHeadAttention::MultiHeadAttention(const BlockConfig& c)
    : c_proj(c.n_head * head_dim_of(c), c.d_model, c.attn_proj_bias),
      d_model_(c.d_model),
      n_head_(c.n_head),
      n_kv_head_(kv_heads_of(c)),
      head_dim_(head_dim_of(c)),
      fused_(c.naming == Naming::kGpt2),
      qk_norm_(c.qk_norm),
      rotary_(c.rotary),
      attn_dropout_(c.attn_dropout) {
  require(n_kv_head_ > 0 && n_head_ % n_kv_head_ == 0,
          "MultiHeadAttention: n_head must be a multiple of n_kv_head");
  const int64_t C = d_model_, H = n_head_, KV = n_kv_head_, D = head_dim_;
  if (fused_) {
    require(H * D == C && KV == H, "MultiHeadAttention: GPT-2's layout has C = H * D, KV = H");
    c_attn = Linear(C, 3 * C, c.qkv_bias);
  } else {
    q_proj = Linear(C, H * D, c.qkv_bias);
    k_proj = Linear(C, KV * D, c.qkv_bias);
    v_proj = Linear(C, KV * D, c.qkv_bias);
  }
  if (qk_norm_) {
    q_norm = Norm(D, false, c.norm_eps, NormKind::kRmsNorm);
    k_norm = Norm(D, false, c.norm_eps, NormKind::kRmsNorm);
  }
}

void MultiHeadAttention::release_backward_buffers() {
  backward_scratch() = BackwardScratch();
}

float MultiHeadAttention::scale() const {
  return 1.0f / std::sqrt(static_cast<float>(head_dim_));
}

void MultiHeadAttention::init(Rng& rng, float std, float proj_std) {
  if (fused_) {
    c_attn.init(rng, std);
  } else {
    for (Linear* l : {&q_proj, &k_proj, &v_proj}) l->init(rng, std);
  }
  c_proj.init(rng, proj_std);
  if (qk_norm_) q_norm.init(), k_norm.init();
}

void MultiHeadAttention::project(const Tensor& x, const Context& ctx) {
  const int64_t B = x.dim(0), T = x.dim(1), H = n_head_, KV = n_kv_head_, D = head_dim_;
  const Device device = x.device();
  const Backend& kernels = on(x);
  // Qwen3 normalises the heads first: the projections write q_raw_, k_raw_.
  Tensor& q_heads = qk_norm_ ? q_raw_ : q_;
  Tensor& k_heads = qk_norm_ ? k_raw_ : k_;
  q_heads.ensure_shape({B, H, T, D}, device);
  k_heads.ensure_shape({B, KV, T, D}, device);
  v_.ensure_shape({B, KV, T, D}, device);
  if (fused_) {
    const Tensor qkv = c_attn.forward(x, ctx);  // [B, T, 3C]
    kernels.split_heads(qkv.data(), q_heads.data(), k_heads.data(), v_.data(), B, T, H, D);
  } else {
    kernels.rows_to_heads(q_proj.forward(x, ctx).data(), q_heads.data(), B, T, H, D);
    kernels.rows_to_heads(k_proj.forward(x, ctx).data(), k_heads.data(), B, T, KV, D);
    kernels.rows_to_heads(v_proj.forward(x, ctx).data(), v_.data(), B, T, KV, D);
  }
  if (qk_norm_) {
    // q_, k_ become the norms' outputs, rotated in place below: their backward reads
    // only their inputs and rstd.
    q_ = q_norm.forward(q_raw_);
    k_ = k_norm.forward(k_raw_);
  }
  if (rotary_) {
    rope_->rotate(q_, B * H, T, 0);
    rope_->rotate(k_, B * KV, T, 0);
  }
  if (KV < H) {
    for (Tensor* t : {&kx_, &vx_}) t->ensure_shape({B, H, T, D}, device);
    kernels.repeat_kv(k_.data(), kx_.data(), B, KV, group(), T * D);
    kernels.repeat_kv(v_.data(), vx_.data(), B, KV, group(), T * D);
  }
}

Tensor MultiHeadAttention::forward(const Tensor& x, const Context& ctx,
                                   const ops::AttentionMask& mask, const RotaryTables* rope) {
  require(x.ndim() == 3 && x.dim(2) == d_model_, [&] {
    return "MultiHeadAttention: input must be [B, T, " + std::to_string(d_model_) + "], got " +
           shape_str(x.shape());
  });
  require(!rotary_ || (rope != nullptr && rope->head_dim() == head_dim_),
          "MultiHeadAttention: rotary attention needs the model's tables for its head width");
  rope_ = rope;
  const int64_t B = x.dim(0), T = x.dim(1), H = n_head_, D = head_dim_;
  const Device device = x.device();
  const Backend& kernels = on(x);
  project(x, ctx);
  const Tensor& k = n_kv_head_ < H ? kx_ : k_;
  const Tensor& v = n_kv_head_ < H ? vx_ : v_;
  y_.ensure_shape({B, H, T, D}, device);

  dropped_ = ctx.training && attn_dropout_ > 0.0f;
  tiled_ = ctx.training;
  const ops::AttentionShape s{B * H, T, T, D, D};
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
    kernels.attention_forward_tiled(q_.data(), k.data(), v.data(), y_.data(), lse_.data(), s,
                                    scale(), mask_, dropout_p(), dropout_key_);
  } else {
    att_.ensure_shape({B, H, T, T}, device);
    kernels.attention_forward(q_.data(), k.data(), v.data(), y_.data(), att_.data(), s, scale(),
                              mask, 0.0f, nullptr, 0);
  }
  merged_.ensure_shape({B, T, H * D}, device);
  kernels.heads_to_rows(y_.data(), merged_.data(), B, T, H, D);
  return c_proj.forward(merged_, ctx);
}

Tensor MultiHeadAttention::backward(const Tensor& dout) {
  const int64_t B = q_.dim(0), H = n_head_, KV = n_kv_head_, T = q_.dim(2), D = head_dim_;
  BackwardScratch& w = backward_scratch();
  const Device device = q_.device();
  const Backend& kernels = on(q_);
  Tensor dmerged = c_proj.backward(dout);  // [B, T, H*D]
  for (Tensor* t : {&w.dy, &w.dq, &w.dk, &w.dv}) t->ensure_shape({B, H, T, D}, device);
  kernels.rows_to_heads(dmerged.data(), w.dy.data(), B, T, H, D);

  const Tensor& k = KV < H ? kx_ : k_;
  const Tensor& v = KV < H ? vx_ : v_;
  const ops::AttentionShape s{B * H, T, T, D, D};
  if (tiled_) {
    kernels.attention_backward_tiled(w.dy.data(), q_.data(), k.data(), v.data(), y_.data(),
                                     lse_.data(), w.dq.data(), w.dk.data(), w.dv.data(), s, scale(),
                                     mask_, dropout_p(), dropout_key_);
  } else {
    kernels.attention_backward(w.dy.data(), q_.data(), k.data(), v.data(), att_.data(), nullptr,
                               w.dq.data(), w.dk.data(), w.dv.data(), s, scale());
  }
  Tensor dk = w.dk, dv = w.dv;
  if (KV < H) {  // each kv head gathers the gradients of its group's query heads
    for (Tensor* t : {&w.dk_kv, &w.dv_kv}) t->ensure_shape({B, KV, T, D}, device);
    kernels.sum_kv_groups(w.dk.data(), w.dk_kv.data(), B, KV, group(), T * D);
    kernels.sum_kv_groups(w.dv.data(), w.dv_kv.data(), B, KV, group(), T * D);
    dk = w.dk_kv, dv = w.dv_kv;
  }
  Tensor dq = w.dq;
  if (rotary_) {
    rope_->rotate_back(dq, B * H, T, 0);
    rope_->rotate_back(dk, B * KV, T, 0);
  }
  if (qk_norm_) {
    dq = q_norm.backward(dq);
    dk = k_norm.backward(dk);
  }
  return project_back(dq, dk, dv);
}

Tensor MultiHeadAttention::project_back(const Tensor& dq, const Tensor& dk, const Tensor& dv) {
  const int64_t B = q_.dim(0), H = n_head_, KV = n_kv_head_, T = q_.dim(2), D = head_dim_;
  BackwardScratch& w = backward_scratch();
  const Device device = q_.device();
  const Backend& kernels = on(q_);
  if (!fused_) {  // dx = the three projections' input gradients summed
    w.dqkv.ensure_shape({B, T, H * D}, device);
    kernels.heads_to_rows(dq.data(), w.dqkv.data(), B, T, H, D);
    w.dx.ensure_shape({B, T, d_model_}, device);
    kernels.copy(q_proj.backward(w.dqkv).data(), w.dx.data(), w.dx.numel());
    for (auto [d, proj] : {std::pair{&dk, &k_proj}, std::pair{&dv, &v_proj}}) {
      w.dqkv.ensure_shape({B, T, KV * D}, device);
      kernels.heads_to_rows(d->data(), w.dqkv.data(), B, T, KV, D);
      kernels.add(w.dx.data(), proj->backward(w.dqkv).data(), w.dx.data(), w.dx.numel());
    }
    return w.dx;
  }
  w.dqkv.ensure_shape({B, T, 3 * d_model_}, device);
  kernels.join_heads(dq.data(), dk.data(), dv.data(), w.dqkv.data(), B, T, H, D);
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
                                      const BlockConfig& c, const StepShape& s) {
  const int64_t B = s.B, T = s.T, H = c.n_head, KV = kv_heads_of(c), D = head_dim_of(c);
  const Width C{"C", c.d_model}, HD{"H*D", H * D}, KVD{"KV*D", KV * D};
  if (c.naming == Naming::kGpt2) {
    Linear::plan_buffers(plan, prefix + ".c_attn", C, {"3C", 3 * C.n}, s);  // y: qkv
  } else {
    Linear::plan_buffers(plan, prefix + ".q_proj", C, HD, s);
    Linear::plan_buffers(plan, prefix + ".k_proj", C, KVD, s);
    Linear::plan_buffers(plan, prefix + ".v_proj", C, KVD, s);
  }
  if (KV == H)
    plan.add(BufferUse::kForward, prefix + ": q, k, v, y by head", "4 x [B, H, T, dh]",
             4 * s.rows() * H * D);
  else
    plan.add(BufferUse::kForward, prefix + ": q, y by head; k, v by kv head",
             "2 x [B, H, T, D] + 2 x [B, KV, T, D]", 2 * s.rows() * (H + KV) * D);
  if (KV < H)
    plan.add(BufferUse::kForward, prefix + ": k, v repeated to H heads", "2 x [B, H, T, D]",
             2 * s.rows() * H * D);
  if (c.qk_norm) {  // q, k above are the projections' heads; the norms' outputs are q, k
    Norm::plan_buffers(plan, prefix + ".q_norm", {"D", D}, {s.B * H, s.T, s.training});
    Norm::plan_buffers(plan, prefix + ".k_norm", {"D", D}, {s.B * KV, s.T, s.training});
  }
  if (s.training)
    plan.add(BufferUse::kForward, prefix + ": row log-sum-exp (tiled)", "[B, H, T]", B * H * T);
  else
    plan.add(BufferUse::kForward, prefix + ": weights att", "[B, H, T, T]", B * H * T * T);
  plan.add_rows(BufferUse::kForward, prefix + ": merged heads", s, HD);
  Linear::plan_buffers(plan, prefix + (c.naming == Naming::kGpt2 ? ".c_proj" : ".o_proj"), HD, C,
                       s);
}

void MultiHeadAttention::plan_backward_buffers(BufferPlan& plan, const BlockConfig& c,
                                               const StepShape& s) {
  const int64_t H = c.n_head, KV = kv_heads_of(c), D = head_dim_of(c), C = c.d_model;
  if (c.naming == Naming::kGpt2) {
    plan.add(BufferUse::kTransient, "attention backward: dy, dq, dk, dv, dqkv",
             "4 x [B, H, T, dh] + [B, T, 3C]", 7 * s.rows() * C);
    return;
  }
  const int64_t grouped = KV < H ? 2 * KV * D : 0;
  plan.add(BufferUse::kTransient, "attention backward: dy, dq, dk, dv (+ by kv head), d(proj), dx",
           "4 x [B, H, T, D] (+ 2 x [B, KV, T, D]) + [B, T, H*D] + [B, T, C]",
           s.rows() * (4 * H * D + grouped + H * D + C));
}

void MultiHeadAttention::parameters(ParameterList& list, const std::string& prefix) {
  if (fused_) {
    c_attn.parameters(list, prefix + "c_attn.");
    c_proj.parameters(list, prefix + "c_proj.");
    return;
  }
  q_proj.parameters(list, prefix + "q_proj.");
  k_proj.parameters(list, prefix + "k_proj.");
  v_proj.parameters(list, prefix + "v_proj.");
  c_proj.parameters(list, prefix + "o_proj.");
  if (qk_norm_) {
    q_norm.parameters(list, prefix + "q_norm.");
    k_norm.parameters(list, prefix + "k_norm.");
  }
}

}  // namespace tinylm::nn
