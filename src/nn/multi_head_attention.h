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
#include <span>
#include <string>
#include <vector>

#include "nn/context.h"
#include "nn/linear.h"
#include "ops/attention.h"

namespace tinylm {
struct Backend;  // backend/backend.h
}  // namespace tinylm

namespace tinylm::nn {

// One sequence's part of a cached forward: n consecutive rows of the input are its
// positions pos .. pos+n-1; their keys and values go into k_cache, v_cache
// [H, max_len, dh] at pos, and its queries attend to its own cache only.
struct CachedSpan {
  Tensor* k_cache;
  Tensor* v_cache;
  int64_t pos;
  int64_t n;
};

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

  // Inference with KV caches, one or several sequences at once (batched decoding):
  // x [1, R, C] holds the spans' rows one after another (R = sum of n). Each span's keys
  // and values are written into its cache, and each of its queries attends causally to
  // its cache positions 0 .. its own. Returns [1, R, C]. The linear layers read their
  // weights once for all rows. With one row per span (decoding; up to
  // ops::kRowInvariantMaxRows spans), a span's output does not depend on the others.
  Tensor forward_cached(const Tensor& x, std::span<const CachedSpan> spans);

  void init(Rng& rng, float std, float proj_std);
  void parameters(ParameterList& list, const std::string& prefix);
  const Tensor& attention() const { return att_; }
  int64_t n_head() const { return n_head_; }

  Linear c_attn;  // C -> 3C
  Linear c_proj;  // C -> C

 private:
  int64_t d_model_ = 0, n_head_ = 0;
  float attn_dropout_ = 0.0f;
  float scale() const;
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
  // Decoding's buffers (forward_cached), kept from step to step (the memory plan).
  // (Backward's work buffers are one set shared by all layers: the .cpp file.)
  Tensor cached_q_, cached_k_, cached_v_, cached_y_, cached_merged_;
  Tensor cached_att_;  // per span [H, n, Tk] (or more), one after another
  std::vector<int64_t> span_first_row_, span_att_at_;  // where each span's rows are
  void place_spans(std::span<const CachedSpan> spans, Device device);
  void attend_cached(std::span<const CachedSpan> spans, int64_t i, int64_t R,
                     const Backend& kernels);
};

}  // namespace tinylm::nn
