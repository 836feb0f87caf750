#include "decode/attention_decoder.h"

#include "backend/registry.h"
#include "util/error.h"
#include "util/parallel_errors.h"

namespace tinylm::decode {

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
    return "AttentionDecoder: input " + shape_str(x.shape()) + " for " + std::to_string(rows) +
           " rows of width " + std::to_string(C);
  });
  return rows;
}

std::vector<LinearDecoder> input_decoders(const nn::MultiHeadAttention& attn, DecodeWeights type) {
  std::vector<LinearDecoder> in;
  if (attn.fused()) {
    in.emplace_back(attn.c_attn, type);
  } else {
    for (const nn::Linear* l : {&attn.q_proj, &attn.k_proj, &attn.v_proj})
      in.emplace_back(*l, type);
  }
  return in;
}

}  // namespace

AttentionDecoder::AttentionDecoder(const nn::MultiHeadAttention& attn, DecodeWeights type,
                                   const nn::RotaryTables* rope)
    : attn_(&attn), rope_(rope), in_(input_decoders(attn, type)), c_proj_(attn.c_proj, type) {}

int64_t AttentionDecoder::step_bytes() const {
  int64_t bytes = c_proj_.step_bytes();
  for (const LinearDecoder& d : in_) bytes += d.step_bytes();
  if (attn_->qk_norm()) bytes += 4 * 2 * attn_->head_dim();
  return bytes;
}

// q [H, R, D], k, v [KV, R, D]: head h of row r at (h * R + r) * D. With Qwen3's norms
// the projections write q_raw_, k_raw_ and the norms q_, k_.
void AttentionDecoder::project(const Tensor& x, int64_t R) {
  const int64_t H = attn_->n_head(), KV = attn_->n_kv_head(), D = attn_->head_dim();
  const Device device = x.device();
  const Backend& kernels = on(x);
  const bool normed = attn_->qk_norm();
  Tensor& q = normed ? q_raw_ : q_;
  Tensor& k = normed ? k_raw_ : k_;
  q.ensure_shape({H, R, D}, device);
  y_.ensure_shape({H, R, D}, device);
  for (Tensor* t : {&k, &v_}) t->ensure_shape({KV, R, D}, device);
  if (attn_->fused()) {
    const Tensor qkv = in_[0].forward(x);  // [1, R, 3C]
    kernels.split_heads(qkv.data(), q.data(), k.data(), v_.data(), 1, R, H, D);
  } else {
    kernels.rows_to_heads(in_[0].forward(x).data(), q.data(), 1, R, H, D);
    kernels.rows_to_heads(in_[1].forward(x).data(), k.data(), 1, R, KV, D);
    kernels.rows_to_heads(in_[2].forward(x).data(), v_.data(), 1, R, KV, D);
  }
  if (normed) {
    attn_->q_norm.forward_into(q_raw_, q_, norm_mean_, norm_rstd_);
    attn_->k_norm.forward_into(k_raw_, k_, norm_mean_, norm_rstd_);
  }
}

// Every (span, kv head) pair stores, then every (span, query head) pair attends. On the
// CPU one parallel region holds both loops (the barrier between them orders the cache
// writes before the reads), each pair's small products single-threaded inside it; a
// GPU takes the pairs one after another.
void AttentionDecoder::store_and_attend(std::span<const CachedSpan> spans, int64_t R,
                                        const Backend& kernels, Device device) {
  const auto S = static_cast<int64_t>(spans.size());
  const int64_t stores = S * attn_->n_kv_head(), attends = S * attn_->n_head();
  if (device != Device::kCpu) {
    for (int64_t i = 0; i < stores; ++i) store(spans, i, R, kernels);
    for (int64_t i = 0; i < attends; ++i) attend(spans, i, R, kernels);
    return;
  }
  ParallelErrors errors;  // nothing may throw out of the region
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < stores; ++i) errors.run([&] { store(spans, i, R, kernels); });
#pragma omp for schedule(static)
    for (int64_t i = 0; i < attends; ++i) errors.run([&] { attend(spans, i, R, kernels); });
  }
  errors.rethrow();
}

Tensor AttentionDecoder::forward(const Tensor& x, std::span<const CachedSpan> spans) {
  const int64_t C = attn_->d_model(), H = attn_->n_head();
  const int64_t D = attn_->head_dim();
  const int64_t R = cached_rows(x, spans, C);
  const Device device = x.device();
  const Backend& kernels = on(x);
  project(x, R);
  place_spans(spans, device);
  store_and_attend(spans, R, kernels, device);
  merged_.ensure_shape({1, R, H * D}, device);
  kernels.heads_to_rows(y_.data(), merged_.data(), 1, R, H, D);
  return c_proj_.forward(merged_);
}

// Span i: rows span_first_row_[i] .. of x; attention weights [H, n, Tk] at
// span_att_at_[i] of att_. A decoding row (n = 1) takes room for the longest key range
// (max_len), so the following steps, one key longer each, reuse the buffer; a prompt
// takes what it needs.
void AttentionDecoder::place_spans(std::span<const CachedSpan> spans, Device device) {
  const int64_t H = attn_->n_head();
  span_first_row_.assign(1, 0);
  span_att_at_.assign(1, 0);
  for (const CachedSpan& s : spans) {
    span_first_row_.push_back(span_first_row_.back() + s.n);
    span_att_at_.push_back(span_att_at_.back() +
                           H * s.n * (s.n == 1 ? s.k_cache->dim(1) : s.pos + s.n));
  }
  if (!att_.defined() || att_.numel() < span_att_at_.back() || att_.device() != device)
    att_ = Tensor::empty({span_att_at_.back()}, device);
}

// One (span, kv head) pair, i = span * KV + head: its new keys and values into the cache
// at pos, the keys rotated to their positions on the way (rotary attention).
void AttentionDecoder::store(std::span<const CachedSpan> spans, int64_t i, int64_t R,
                             const Backend& kernels) {
  const int64_t KV = attn_->n_kv_head(), D = attn_->head_dim();
  const int64_t sp = i / KV, h = i % KV;
  const CachedSpan& s = spans[sp];
  const int64_t max_len = s.k_cache->dim(1), at = (h * R + span_first_row_[sp]) * D;
  float* k = k_.data() + at;
  if (rope_) kernels.rope_forward(k, rope_->cos().data(), rope_->sin().data(), k, 1, s.n, D, s.pos);
  kernels.copy(k, s.k_cache->data() + (h * max_len + s.pos) * D, s.n * D);
  kernels.copy(v_.data() + at, s.v_cache->data() + (h * max_len + s.pos) * D, s.n * D);
}

// One (span, query head) pair, i = span * H + head: its queries rotated (rotary
// attention), then causal attention to its kv head's cache (position pos + j sees keys
// 0 .. pos + j).
void AttentionDecoder::attend(std::span<const CachedSpan> spans, int64_t i, int64_t R,
                              const Backend& kernels) {
  const int64_t H = attn_->n_head(), KV = attn_->n_kv_head(), D = attn_->head_dim();
  const int64_t sp = i / H, h = i % H, kv = h / (H / KV), r0 = span_first_row_[sp];
  const CachedSpan& s = spans[sp];
  const int64_t max_len = s.k_cache->dim(1), Tk = s.pos + s.n, at = (h * R + r0) * D;
  float* q = q_.data() + at;
  if (rope_) kernels.rope_forward(q, rope_->cos().data(), rope_->sin().data(), q, 1, s.n, D, s.pos);
  ops::AttentionMask mask;
  mask.causal = true;
  kernels.attention_forward(
      q, s.k_cache->data() + kv * max_len * D, s.v_cache->data() + kv * max_len * D, y_.data() + at,
      att_.data() + span_att_at_[sp] + h * s.n * Tk, ops::AttentionShape{1, s.n, Tk, D, D},
      attn_->scale(), mask, 0.0f, nullptr, 0);
}

}  // namespace tinylm::decode
