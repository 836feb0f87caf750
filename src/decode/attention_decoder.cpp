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

}  // namespace

AttentionDecoder::AttentionDecoder(const nn::MultiHeadAttention& attn, DecodeWeights type)
    : attn_(&attn), c_attn_(attn.c_attn, type), c_proj_(attn.c_proj, type) {}

Tensor AttentionDecoder::forward(const Tensor& x, std::span<const CachedSpan> spans) {
  const int64_t C = attn_->d_model(), H = attn_->n_head(), dh = C / H;
  const int64_t R = cached_rows(x, spans, C);
  const Tensor qkv = c_attn_.forward(x);  // [1, R, 3C]
  const Device device = x.device();
  const Backend& kernels = on(x);
  // q, k, v [H, R, dh]: head h of row r at (h * R + r) * dh.
  for (Tensor* t : {&q_, &k_, &v_, &y_}) t->ensure_shape({H, R, dh}, device);
  kernels.split_heads(qkv.data(), q_.data(), k_.data(), v_.data(), 1, R, H, dh);
  place_spans(spans, device);
  // On the CPU the (span, head) pairs are spread over the threads (one parallel region
  // per layer, each pair's small products single-threaded inside it); a GPU takes them
  // one after another.
  const int64_t pairs = static_cast<int64_t>(spans.size()) * H;
  if (device == Device::kCpu) {
    ParallelErrors errors;  // nothing may throw out of the region
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < pairs; ++i) errors.run([&] { attend(spans, i, R, kernels); });
    errors.rethrow();
  } else {
    for (int64_t i = 0; i < pairs; ++i) attend(spans, i, R, kernels);
  }
  merged_.ensure_shape({1, R, C}, device);
  kernels.heads_to_rows(y_.data(), merged_.data(), 1, R, H, dh);
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

// One (span, head) pair, i = span * H + head: its new keys and values into the cache,
// then causal attention of its queries (position pos + j sees keys 0 .. pos + j).
void AttentionDecoder::attend(std::span<const CachedSpan> spans, int64_t i, int64_t R,
                              const Backend& kernels) {
  const int64_t H = attn_->n_head(), dh = attn_->d_model() / H;
  const int64_t sp = i / H, h = i % H, r0 = span_first_row_[sp];
  const CachedSpan& s = spans[sp];
  const int64_t max_len = s.k_cache->dim(1), Tk = s.pos + s.n, at = (h * R + r0) * dh;
  float* k_cache = s.k_cache->data() + h * max_len * dh;
  float* v_cache = s.v_cache->data() + h * max_len * dh;
  kernels.copy(k_.data() + at, k_cache + s.pos * dh, s.n * dh);
  kernels.copy(v_.data() + at, v_cache + s.pos * dh, s.n * dh);
  ops::AttentionMask mask;
  mask.causal = true;
  kernels.attention_forward(q_.data() + at, k_cache, v_cache, y_.data() + at,
                            att_.data() + span_att_at_[sp] + h * s.n * Tk,
                            ops::AttentionShape{1, s.n, Tk, dh, dh}, attn_->scale(), mask, 0.0f,
                            nullptr, 0);
}

}  // namespace tinylm::decode
