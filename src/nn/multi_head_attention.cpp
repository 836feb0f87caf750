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

// qkv [B, T, 3C] -> q, k, v [B, H, T, dh]
void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t t = 0; t < T; ++t) {
        const float* row = qkv + (b * T + t) * 3 * C + h * dh;
        const int64_t dst = ((b * H + h) * T + t) * dh;
        std::memcpy(q + dst, row, sizeof(float) * dh);
        std::memcpy(k + dst, row + C, sizeof(float) * dh);
        std::memcpy(v + dst, row + 2 * C, sizeof(float) * dh);
      }
    }
  }
}

// dq, dk, dv [B, H, T, dh] -> dqkv [B, T, 3C]  (the inverse of split_heads)
void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t t = 0; t < T; ++t) {
        float* row = qkv + (b * T + t) * 3 * C + h * dh;
        const int64_t src = ((b * H + h) * T + t) * dh;
        std::memcpy(row, q + src, sizeof(float) * dh);
        std::memcpy(row + C, k + src, sizeof(float) * dh);
        std::memcpy(row + 2 * C, v + src, sizeof(float) * dh);
      }
    }
  }
}

// y [B, H, T, dh] <-> merged [B, T, C]; to_merged picks the direction.
void merge_heads(float* y, float* merged, int64_t B, int64_t T, int64_t H, int64_t dh,
                 bool to_merged) {
  const int64_t C = H * dh;
#pragma omp parallel for collapse(2)
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t h = 0; h < H; ++h) {
        float* m = merged + (b * T + t) * C + h * dh;
        float* s = y + ((b * H + h) * T + t) * dh;
        if (to_merged) {
          std::memcpy(m, s, sizeof(float) * dh);
        } else {
          std::memcpy(s, m, sizeof(float) * dh);
        }
      }
    }
  }
}

// Backward's work buffers, one set shared by every attention layer of the thread: each
// is used only inside one call of backward (blocks run backward one after another), so
// one set, sized on the first step, serves them all (the memory plan).
struct BackwardScratch {
  Tensor dy, dq, dk, dv, dqkv;  // [B, H, T, dh] x 4, [B, T, 3C]
  std::vector<float> key_bias_grad;
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
  for (Tensor* t : {&q_, &k_, &v_, &y_}) t->ensure_shape({B, H, T, dh});
  split_heads(qkv.data(), q_.data(), k_.data(), v_.data(), B, T, H, dh);

  dropped_ = ctx.training && attn_dropout_ > 0.0f;
  tiled_ = ctx.training && !dropped_;
  const ops::AttentionShape s{B * H, T, T, dh, dh};
  if (tiled_) {
    mask_ = mask;
    if (mask.additive) {  // keep our own copy for backward
      additive_.ensure_shape({mask.additive_sets, T, T});
      std::memcpy(additive_.data(), mask.additive, sizeof(float) * additive_.numel());
      mask_.additive = additive_.data();
    }
    lse_.ensure_shape({B, H, T});
    on(q_).attention_forward_tiled(q_.data(), k_.data(), v_.data(), y_.data(), lse_.data(), s,
                                   scale(), mask_);
    merged_.ensure_shape({B, T, d_model_});
    merge_heads(y_.data(), merged_.data(), B, T, H, dh, /*to_merged=*/true);
    return c_proj.forward(merged_, ctx);
  }
  att_.ensure_shape({B, H, T, T});
  if (dropped_) {
    require(ctx.rng != nullptr, "attention dropout needs a random generator");
    drop_mask_.ensure_shape({B, H, T, T});
  }
  on(q_).attention_forward(q_.data(), k_.data(), v_.data(), y_.data(), att_.data(), s, scale(),
                           mask, dropped_ ? attn_dropout_ : 0.0f,
                           dropped_ ? drop_mask_.data() : nullptr, ctx.rng);

  merged_.ensure_shape({B, T, d_model_});
  merge_heads(y_.data(), merged_.data(), B, T, H, dh, /*to_merged=*/true);
  return c_proj.forward(merged_, ctx);
}

Tensor MultiHeadAttention::backward(const Tensor& dout) {
  const int64_t B = q_.dim(0), H = n_head_, T = q_.dim(2), dh = q_.dim(3);
  BackwardScratch& w = backward_scratch();
  Tensor dmerged = c_proj.backward(dout);  // [B, T, C]
  w.dy.ensure_shape({B, H, T, dh});
  merge_heads(w.dy.data(), dmerged.data(), B, T, H, dh, /*to_merged=*/false);

  for (Tensor* t : {&w.dq, &w.dk, &w.dv}) t->ensure_shape(q_.shape());
  const ops::AttentionShape s{B * H, T, T, dh, dh};
  if (tiled_) {
    on(q_).attention_backward_tiled(w.dy.data(), q_.data(), k_.data(), v_.data(), y_.data(),
                                    lse_.data(), w.dq.data(), w.dk.data(), w.dv.data(), s, scale(),
                                    mask_);
  } else {
    on(q_).attention_backward(w.dy.data(), q_.data(), k_.data(), v_.data(), att_.data(),
                              dropped_ ? drop_mask_.data() : nullptr, w.dq.data(), w.dk.data(),
                              w.dv.data(), s, scale());
  }
  w.dqkv.ensure_shape({B, T, 3 * d_model_});
  join_heads(w.dq.data(), w.dk.data(), w.dv.data(), w.dqkv.data(), B, T, H, dh);
  // The key bias adds q_i . b_k to every score of row i alike, which softmax ignores: its
  // gradient is exactly zero. Summed in float32 it is rounding noise (~1e-11) that AdamW
  // divides by ~eps and turns into real updates, so keep it at exactly zero.
  const bool keep_key_bias = c_attn.bias.trainable();
  if (keep_key_bias)
    w.key_bias_grad.assign(c_attn.bias.grad.data() + d_model_,
                           c_attn.bias.grad.data() + 2 * d_model_);
  Tensor dx = c_attn.backward(w.dqkv);
  if (keep_key_bias)
    std::copy(w.key_bias_grad.begin(), w.key_bias_grad.end(), c_attn.bias.grad.data() + d_model_);
  return dx;
}

Tensor MultiHeadAttention::forward_cached(const Tensor& x, Tensor& k_cache, Tensor& v_cache,
                                          int64_t pos) {
  require(x.ndim() == 3 && x.dim(0) == 1 && x.dim(2) == d_model_, [&] {
    return "MultiHeadAttention::forward_cached: input must be [1, T, C], got " +
           shape_str(x.shape());
  });
  const int64_t Tn = x.dim(1), H = n_head_, dh = d_model_ / n_head_, C = d_model_;
  const int64_t max_len = k_cache.dim(1), Tk = pos + Tn;
  require(Tk <= max_len, [&] {
    return "KV cache overflow: " + std::to_string(Tk) + " positions, room for " +
           std::to_string(max_len);
  });
  const Tensor qkv = c_attn.forward(x);  // [1, Tn, 3C]
  Tensor& q = cached_q_;
  q.ensure_shape({H, Tn, dh});
  for (int64_t h = 0; h < H; ++h) {
    for (int64_t t = 0; t < Tn; ++t) {
      const float* row = qkv.data() + t * 3 * C + h * dh;
      std::memcpy(q.data() + (h * Tn + t) * dh, row, sizeof(float) * dh);
      std::memcpy(k_cache.data() + (h * max_len + pos + t) * dh, row + C, sizeof(float) * dh);
      std::memcpy(v_cache.data() + (h * max_len + pos + t) * dh, row + 2 * C, sizeof(float) * dh);
    }
  }
  Tensor& y = cached_y_;
  y.ensure_shape({H, Tn, dh});
  // att [H, Tn, Tk]. A decoding step (Tn = 1) sizes the buffer for the longest key range
  // (max_len), so the following steps, one key longer each, reuse it; a prompt takes
  // only what it needs.
  const size_t att_size = static_cast<size_t>(H * Tn * (Tn == 1 ? max_len : Tk));
  if (cached_att_.size() < att_size) cached_att_.resize(att_size);
  float* att = cached_att_.data();
  ops::AttentionMask mask;
  mask.causal = true;  // query i (position pos+i) sees keys 0 .. pos+i
  // One set per head (the cache rows are max_len apart), heads spread over the threads: one
  // parallel region per layer, each head's small products single-threaded inside it.
  ParallelErrors errors;  // nothing may throw out of the region
#pragma omp parallel for schedule(static)
  for (int64_t h = 0; h < H; ++h) {
    errors.run([&] {
      on(q).attention_forward(q.data() + h * Tn * dh, k_cache.data() + h * max_len * dh,
                              v_cache.data() + h * max_len * dh, y.data() + h * Tn * dh,
                              att + h * Tn * Tk, ops::AttentionShape{1, Tn, Tk, dh, dh}, scale(),
                              mask, 0.0f, nullptr, nullptr);
    });
  }
  errors.rethrow();
  cached_merged_.ensure_shape({1, Tn, C});
  merge_heads(y.data(), cached_merged_.data(), 1, Tn, H, dh, /*to_merged=*/true);
  return c_proj.forward(cached_merged_);
}

void MultiHeadAttention::parameters(ParameterList& list, const std::string& prefix) {
  c_attn.parameters(list, prefix + "c_attn.");
  c_proj.parameters(list, prefix + "c_proj.");
}

}  // namespace tinylm::nn
