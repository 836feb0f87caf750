// Multi-head causal self-attention, in GPT-2's layout or the llama family's:
//   GPT-2:  qkv = x W_attn^T + b   W_attn [3C, C]: rows [0, C) make Q, [C, 2C) K, [2C, 3C) V
//   llama:  q = x Wq^T [B, T, H*D], k = x Wk^T, v = x Wv^T [B, T, KV*D] (biases: Qwen2's)
//           then (Qwen3) each q and k head RMS-normalised over its D values, then q and k
//           rotated by their positions (RoPE, the model's RotaryTables)
//   q [B, H, T, D], k, v [B, KV, T, D]; query head h reads key/value head h / (H / KV)
//   y_h = softmax(q k^T / sqrt(D) + mask) v, with dropout on the attention weights
//   out = merge_heads(y) W_proj^T + b     [B, T, C]   (W_proj [C, H*D]: llama's o_proj)
//   forward:  x [B, T, C] -> out [B, T, C]; attention() is A [B, H, T, T] after a forward
//             that is not training (training without attention dropout does not store A)
//   backward: dout [B, T, C] -> dx [B, T, C]
// Masks: causal (set by the model) and/or an additive [M, T, T] mask, M = 1 or B
// (a padding mask is shared by every head of a sequence).
#pragma once
#include <string>
#include <vector>

#include "nn/block_config.h"
#include "nn/context.h"
#include "nn/linear.h"
#include "nn/norm.h"
#include "nn/rotary.h"
#include "ops/attention.h"

namespace tinylm::nn {

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  // GPT-2's layout: C = H * D, fused c_attn.
  MultiHeadAttention(int64_t d_model, int64_t n_head, bool qkv_bias, bool proj_bias,
                     float attn_dropout);
  // c's attention: its naming says fused (GPT-2) or separate (llama) projections.
  explicit MultiHeadAttention(const BlockConfig& c);

  // rope: the model's tables when c.rotary (required then), else null.
  Tensor forward(const Tensor& x, const Context& ctx, const ops::AttentionMask& mask,
                 const RotaryTables* rope = nullptr);
  Tensor backward(const Tensor& dout);
  // Backward's work buffers are one set per thread, shared by every attention layer and
  // kept between steps; this frees the calling thread's set (the next backward sizes it
  // again). For measuring memory, or after training.
  static void release_backward_buffers();

  void init(Rng& rng, float std, float proj_std);
  void parameters(ParameterList& list, const std::string& prefix);
  // What a step keeps (x [B, T, C]): the projections', q, k, v, y by head (k, v also
  // repeated to H heads when KV < H), and a training step's row log-sum-exp [B, H, T]
  // (tiled kernels) or another forward's weights att [B, H, T, T].
  static void plan_buffers(BufferPlan& plan, const std::string& prefix, const BlockConfig& c,
                           const StepShape& s);
  // Backward's work buffers, one set for every attention layer: dy, dq, dk, dv by head
  // and the projections' input gradients.
  static void plan_backward_buffers(BufferPlan& plan, const BlockConfig& c, const StepShape& s);
  const Tensor& attention() const { return att_; }
  int64_t n_head() const { return n_head_; }
  int64_t n_kv_head() const { return n_kv_head_; }
  int64_t head_dim() const { return head_dim_; }
  int64_t d_model() const { return d_model_; }
  bool fused() const { return fused_; }
  bool qk_norm() const { return qk_norm_; }
  float scale() const;  // 1 / sqrt(D) of the scores

  Linear c_attn;                  // GPT-2: C -> 3C (fused Q, K, V)
  Linear q_proj, k_proj, v_proj;  // llama: C -> H*D, C -> KV*D, C -> KV*D
  Linear c_proj;                  // H*D -> C (llama's o_proj)
  Norm q_norm, k_norm;            // Qwen3: RMSNorm [D] of each q, k head

 private:
  int64_t d_model_ = 0, n_head_ = 0, n_kv_head_ = 0, head_dim_ = 0;
  bool fused_ = true, qk_norm_ = false, rotary_ = false;
  float attn_dropout_ = 0.0f;
  const RotaryTables* rope_ = nullptr;  // the last forward's
  // q_, k_, v_: what attention reads (k_, v_ [B, KV, T, D]); kx_, vx_: k, v repeated to H
  // heads (KV < H); q_raw_, k_raw_: the heads before q/k norm (Qwen3).
  Tensor q_, k_, v_, kx_, vx_, q_raw_, k_raw_, y_, merged_, att_;
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

  void project(const Tensor& x, const Context& ctx);  // x -> q_, k_, v_ (and kx_, vx_)
  // dq [B, H, T, D], dk, dv [B, KV, T, D] -> dx [B, T, C] through the projections
  Tensor project_back(const Tensor& dq, const Tensor& dk, const Tensor& dv);
  int64_t group() const { return n_head_ / n_kv_head_; }
};

}  // namespace tinylm::nn
