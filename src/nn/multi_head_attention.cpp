#include "nn/multi_head_attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/registry.h"
#include "util/error.h"
#include "util/parallel_errors.h"

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

namespace {

// The rows the spans hold (sum of n); InputError when a span overflows its cache or x is
// not [1, rows, C].
int64_t cached_rows(const Tensor& x, std::span<const CachedSpan> spans, int64_t C) {
  int64_t rows = 0;
  for (const CachedSpan& s : spans) {
    require(s.n > 0 && s.pos + s.n <= s.k_cache->dim(1), [&] {
      return "KV cache overflow: " + std::to_string(s.pos + s.n) + " positions, room for " +
             std::to_string(s.k_cache->dim(1));
    });
    rows += s.n;
  }
  require(x.ndim() == 3 && x.dim(2) == C && rows == x.numel() / C, [&] {
    return "MultiHeadAttention::forward_cached: input " + shape_str(x.shape()) + " for " +
           std::to_string(rows) + " rows of width " + std::to_string(C);
  });
  return rows;
}

}  // namespace

Tensor MultiHeadAttention::forward_cached(const Tensor& x, std::span<const CachedSpan> spans) {
  const int64_t C = d_model_, H = n_head_, dh = d_model_ / n_head_;
  const int64_t R = cached_rows(x, spans, C);
  const Tensor qkv = c_attn.forward(x);  // [1, R, 3C]
  const Device device = x.device();
  const Backend& kernels = on(x);
  // q, k, v [H, R, dh]: head h of row r at (h * R + r) * dh.
  for (Tensor* t : {&cached_q_, &cached_k_, &cached_v_, &cached_y_})
    t->ensure_shape({H, R, dh}, device);
  kernels.split_heads(qkv.data(), cached_q_.data(), cached_k_.data(), cached_v_.data(), 1, R, H,
                      dh);
  place_spans(spans, device);
  // On the CPU the (span, head) pairs are spread over the threads (one parallel region
  // per layer, each pair's small products single-threaded inside it); a GPU takes them
  // one after another.
  const int64_t pairs = static_cast<int64_t>(spans.size()) * H;
  if (device == Device::kCpu) {
    ParallelErrors errors;  // nothing may throw out of the region
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < pairs; ++i) errors.run([&] { attend_cached(spans, i, R, kernels); });
    errors.rethrow();
  } else {
    for (int64_t i = 0; i < pairs; ++i) attend_cached(spans, i, R, kernels);
  }
  cached_merged_.ensure_shape({1, R, C}, device);
  kernels.heads_to_rows(cached_y_.data(), cached_merged_.data(), 1, R, H, dh);
  return c_proj.forward(cached_merged_);
}

// Span i: rows span_first_row_[i] .. of x; attention weights [H, n, Tk] at
// span_att_at_[i] of cached_att_. A decoding row (n = 1) takes room for the longest key
// range (max_len), so the following steps, one key longer each, reuse the buffer; a
// prompt takes what it needs.
void MultiHeadAttention::place_spans(std::span<const CachedSpan> spans, Device device) {
  span_first_row_.assign(1, 0);
  span_att_at_.assign(1, 0);
  for (const CachedSpan& s : spans) {
    span_first_row_.push_back(span_first_row_.back() + s.n);
    span_att_at_.push_back(span_att_at_.back() +
                           n_head_ * s.n * (s.n == 1 ? s.k_cache->dim(1) : s.pos + s.n));
  }
  if (!cached_att_.defined() || cached_att_.numel() < span_att_at_.back() ||
      cached_att_.device() != device)
    cached_att_ = Tensor::empty({span_att_at_.back()}, device);
}

// One (span, head) pair, i = span * H + head: its new keys and values into the cache,
// then causal attention of its queries (position pos + j sees keys 0 .. pos + j).
void MultiHeadAttention::attend_cached(std::span<const CachedSpan> spans, int64_t i, int64_t R,
                                       const Backend& kernels) {
  const int64_t H = n_head_, dh = d_model_ / n_head_;
  const int64_t sp = i / H, h = i % H, r0 = span_first_row_[sp];
  const CachedSpan& s = spans[sp];
  const int64_t max_len = s.k_cache->dim(1), Tk = s.pos + s.n, at = (h * R + r0) * dh;
  float* k_cache = s.k_cache->data() + h * max_len * dh;
  float* v_cache = s.v_cache->data() + h * max_len * dh;
  kernels.copy(cached_k_.data() + at, k_cache + s.pos * dh, s.n * dh);
  kernels.copy(cached_v_.data() + at, v_cache + s.pos * dh, s.n * dh);
  ops::AttentionMask mask;
  mask.causal = true;
  kernels.attention_forward(cached_q_.data() + at, k_cache, v_cache, cached_y_.data() + at,
                            cached_att_.data() + span_att_at_[sp] + h * s.n * Tk,
                            ops::AttentionShape{1, s.n, Tk, dh, dh}, scale(), mask, 0.0f, nullptr,
                            0);
}

void MultiHeadAttention::parameters(ParameterList& list, const std::string& prefix) {
  c_attn.parameters(list, prefix + "c_attn.");
  c_proj.parameters(list, prefix + "c_proj.");
}

}  // namespace tinylm::nn
