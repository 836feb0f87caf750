// Scaled dot-product attention over a batch of N independent (query, key, value) sets:
//   q [N, Tq, Dk], k [N, Tk, Dk], v [N, Tk, Dv]
//   S = q k^T * scale (+ mask) ; A = softmax_rows(S) ; A' = dropout(A) ; y = A' v
//   y [N, Tq, Dv], att [N, Tq, Tk] (A, kept for backward and for showing attention maps)
// Masks (both optional, combined):
//   causal: query i sees keys j <= i + (Tk - Tq) (so with a KV cache the last query
//           sees everything); masked scores are -inf.
//   additive [M, Tq, Tk] with N % M == 0: set n uses additive[n / (N / M)], so one mask
//           can serve all heads of a batch element (M = B, N = B * H) or everything (M = 1).
//           Use -inf for "not allowed"; mask_from_bool() converts a boolean mask.
//   A row with no allowed key gets zero weights (and y = 0), not NaN.
// Attention dropout (p > 0) draws its mask from dropout_key and stores it in drop_mask
//   [N, Tq, Tk]. (Values 0 or 1/(1-p), entry e of [N, Tq, Tk] by the rule of
//   dropout_draw_mask in ops/dropout.h, so every backend draws the same mask. p > 0
//   needs drop_mask (InputError otherwise); with p == 0 a non-null drop_mask is
//   filled with 1. att keeps A before dropout; backward takes
//   drop_mask = nullptr when there was no dropout.)
#pragma once
#include <cstdint>
#include <vector>

namespace tinylm::ops {

struct AttentionMask {
  bool causal = false;
  const float* additive = nullptr;  // [M, Tq, Tk] or null
  int64_t additive_sets = 1;        // M
};

// keep [M, Tq, Tk] (nonzero = may attend) -> additive [M, Tq, Tk] with 0 or -inf.
std::vector<float> mask_from_bool(const uint8_t* keep, int64_t count);

struct AttentionShape {
  int64_t N, Tq, Tk, Dk, Dv;
};

void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const AttentionShape& s, float scale, const AttentionMask& mask,
                       float dropout_p = 0.0f, float* drop_mask = nullptr,
                       uint64_t dropout_key = 0);

// dq, dk, dv are overwritten. att and drop_mask are what forward wrote.
void attention_backward(const float* dy, const float* q, const float* k, const float* v,
                        const float* att, const float* drop_mask, float* dq, float* dk, float* dv,
                        const AttentionShape& s, float scale);

// Tiled attention for training (ops/attention_tiled.cpp): the same y as
// attention_forward, but neither the [Tq, Tk] weights nor the dropout mask is ever
// stored. Instead lse [N, Tq] keeps each row's log-sum-exp of the scaled, masked scores
// (-inf for a row with no allowed key), from which backward recomputes the weights tile by
// tile; with dropout (p > 0) both passes draw the mask again from dropout_key, entry e of
// [N, Tq, Tk] by dropout_draw_mask's rule, as attention_forward draws it (lse is taken
// before dropout). Backward takes the y and lse that forward wrote, and the same mask,
// p and key; dq, dk, dv are overwritten.
void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const AttentionShape& s, float scale, const AttentionMask& mask,
                             float dropout_p = 0.0f, uint64_t dropout_key = 0);
void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* y, const float* lse, float* dq, float* dk, float* dv,
                              const AttentionShape& s, float scale, const AttentionMask& mask,
                              float dropout_p = 0.0f, uint64_t dropout_key = 0);

namespace ref {
void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const AttentionShape& s, float scale, const AttentionMask& mask,
                       float dropout_p = 0.0f, float* drop_mask = nullptr,
                       uint64_t dropout_key = 0);
void attention_backward(const float* dy, const float* q, const float* k, const float* v,
                        const float* att, const float* drop_mask, float* dq, float* dk, float* dv,
                        const AttentionShape& s, float scale);
// The tiled contract from the two above: lse from the scores in double; backward
// recomputes the weights exp(S - lse) and the dropout mask, and ignores y.
void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const AttentionShape& s, float scale, const AttentionMask& mask,
                             float dropout_p = 0.0f, uint64_t dropout_key = 0);
void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* y, const float* lse, float* dq, float* dk, float* dv,
                              const AttentionShape& s, float scale, const AttentionMask& mask,
                              float dropout_p = 0.0f, uint64_t dropout_key = 0);
}  // namespace ref

}  // namespace tinylm::ops
