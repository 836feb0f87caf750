// Multi-head causal self-attention (GPT-2's layout):
//   qkv = x W_attn^T + b        W_attn [3C, C]: rows [0, C) make Q, [C, 2C) K, [2C, 3C) V;
//                               head h uses columns h*dh .. h*dh+dh-1 of each (dh = C / H)
//   q, k, v: [B, H, T, dh]      (heads split out of qkv)
//   y_h = softmax(q k^T / sqrt(dh) + mask) v, with dropout on the attention weights
//   out = merge_heads(y) W_proj^T + b     [B, T, C]
//   forward:  x [B, T, C] -> out [B, T, C]; attention() is A [B, H, T, T] after a forward
//             that is not training (training without attention dropout does not store A)
//   backward: dout [B, T, C] -> dx [B, T, C]
// Masks: causal (set by the model) and/or an additive [M, T, T] mask, M = 1 or B
// (a padding mask is shared by every head of a sequence).
#pragma once
#include <string>
#include <vector>

#include "nn/context.h"
#include "nn/linear.h"
#include "ops/attention.h"

namespace tinylm::nn {

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  MultiHeadAttention(int64_t d_model, int64_t n_head, bool qkv_bias, bool proj_bias,
                     float attn_dropout);

  Tensor forward(const Tensor& x, const Context& ctx, const ops::AttentionMask& mask);
  Tensor backward(const Tensor& dout);
  // Backward's work buffers are one set per thread, shared by every attention layer and
  // kept between steps; this frees the calling thread's set (the next backward sizes it
  // again). For measuring memory, or after training.
  static void release_backward_buffers();

  void init(Rng& rng, float std, float proj_std);
  void parameters(ParameterList& list, const std::string& prefix);
  // What a step keeps (x [B, T, C]): c_attn's and c_proj's, q, k, v, y by head, the
  // merged heads, and a training step's row log-sum-exp [B, H, T] (tiled kernels) or
  // another forward's weights att [B, H, T, T].
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const Width& d_model,
                           int64_t n_head, const StepShape& s);
  // Backward's work buffers, one set for every attention layer: dy, dq, dk, dv by head
  // and dqkv [B, T, 3C].
  static void plan_backward_buffers(BufferPlan& plan, const Width& d_model, const StepShape& s);
  const Tensor& attention() const { return att_; }
  int64_t n_head() const { return n_head_; }
  int64_t d_model() const { return d_model_; }
  float scale() const;  // 1 / sqrt(dh) of the scores

  Linear c_attn;  // C -> 3C
  Linear c_proj;  // C -> C

 private:
  int64_t d_model_ = 0, n_head_ = 0;
  float attn_dropout_ = 0.0f;
  Tensor q_, k_, v_, y_, merged_, att_;
  // Training takes the tiled kernel: no [B, H, T, T] weights or dropout mask, only the
  // row log-sum-exp lse_ [B, H, T], the dropout's key (backward draws the mask again),
  // and the mask kept for backward (a copy of the additive part, since the caller's
  // buffer may not outlive the step). Other forwards keep the weights in att_.
  bool dropped_ = false;
  uint64_t dropout_key_ = 0;
  float dropout_p() const { return dropped_ ? attn_dropout_ : 0.0f; }
  bool tiled_ = false;
  Tensor lse_, additive_;
  ops::AttentionMask mask_;
};

}  // namespace tinylm::nn
