// Multi-head attention with KV caches (nn/multi_head_attention.h's weights), one or
// several sequences at once (batched decoding):
//   x [1, R, C] holds the spans' rows one after another (R = sum of n)  -> [1, R, C]
// Each span's keys and values are written into its cache, and each of its queries
// attends causally to its cache positions 0 .. its own. The linear layers read their
// weights once for all rows. With one row per span (decoding; up to
// ops::kRowInvariantMaxRows spans), a span's output does not depend on the others.
#pragma once
#include <span>
#include <vector>

#include "decode/layer_decoders.h"
#include "nn/multi_head_attention.h"

namespace tinylm {
struct Backend;  // backend/backend.h
}  // namespace tinylm

namespace tinylm::decode {

// One sequence's part of a cached forward: n consecutive rows of the input are its
// positions pos .. pos+n-1; their keys and values go into k_cache, v_cache
// [H, max_len, dh] at pos, and its queries attend to its own cache only.
struct CachedSpan {
  Tensor* k_cache;
  Tensor* v_cache;
  int64_t pos;
  int64_t n;
};

class AttentionDecoder {
 public:
  AttentionDecoder(const nn::MultiHeadAttention& attn, DecodeWeights type);
  Tensor forward(const Tensor& x, std::span<const CachedSpan> spans);
  int64_t step_bytes() const { return c_attn_.step_bytes() + c_proj_.step_bytes(); }

 private:
  const nn::MultiHeadAttention* attn_;
  LinearDecoder c_attn_, c_proj_;
  Tensor q_, k_, v_, y_, merged_;  // q, k, v, y [H, R, dh]; merged [1, R, C]
  Tensor att_;                     // per span [H, n, Tk] (or more), one after another
  std::vector<int64_t> span_first_row_, span_att_at_;  // where each span's rows are
  void place_spans(std::span<const CachedSpan> spans, Device device);
  void attend(std::span<const CachedSpan> spans, int64_t i, int64_t R, const Backend& kernels);
};

}  // namespace tinylm::decode
