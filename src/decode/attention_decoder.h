// Multi-head attention with KV caches (nn/multi_head_attention.h's weights, either
// layout), one or several sequences at once (batched decoding):
//   x [1, R, C] holds the spans' rows one after another (R = sum of n)  -> [1, R, C]
// The llama family: q and k heads normalised (Qwen3) and rotated to their positions
// before the keys are cached; the cache holds the KV key/value heads only, and query
// head h reads kv head h / (H / KV).
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
// [KV, max_len, D] at pos, and its queries attend to its own cache only.
struct CachedSpan {
  Tensor* k_cache;
  Tensor* v_cache;
  int64_t pos;
  int64_t n;
};

class AttentionDecoder {
 public:
  // rope: the model's rotary tables for rotary attention, else null.
  AttentionDecoder(const nn::MultiHeadAttention& attn, DecodeWeights type,
                   const nn::RotaryTables* rope);
  Tensor forward(const Tensor& x, std::span<const CachedSpan> spans);
  int64_t step_bytes() const;

 private:
  const nn::MultiHeadAttention* attn_;
  const nn::RotaryTables* rope_;
  std::vector<LinearDecoder> in_;  // c_attn (GPT-2), or q_proj, k_proj, v_proj
  LinearDecoder c_proj_;
  Tensor q_, k_, v_, y_, merged_;  // q, y [H, R, D]; k, v [KV, R, D]; merged [1, R, H*D]
  Tensor q_raw_, k_raw_, norm_mean_, norm_rstd_;  // Qwen3: q, k before their norms
  Tensor att_;  // per span [H, n, Tk] (or more), one after another
  std::vector<int64_t> span_first_row_, span_att_at_;  // where each span's rows are
  void project(const Tensor& x, int64_t R);            // x -> q_, k_, v_ (normalised)
  void place_spans(std::span<const CachedSpan> spans, Device device);
  // Each (span, kv head) pair's keys rotated and cached with its values, then each (span,
  // query head) pair's queries rotated and attending; spread over the CPU's threads.
  void store_and_attend(std::span<const CachedSpan> spans, int64_t R, const Backend& kernels,
                        Device device);
  void store(std::span<const CachedSpan> spans, int64_t i, int64_t R, const Backend& kernels);
  void attend(std::span<const CachedSpan> spans, int64_t i, int64_t R, const Backend& kernels);
};

}  // namespace tinylm::decode
