// The CUDA kernels built on matrix products (cuBLAS sgemm, FP32), with the contracts of
// their CPU twins in ops/ (each .cu names its twin); every pointer is device memory,
// except the host random generator of attention dropout. Tests compare each with
// ops::ref on odd shapes through the "cuda" backend (tests/backend/op_table_test.cpp,
// skipped without a GPU).
#pragma once
#include <cstdint>

#include "ops/attention.h"

namespace tinylm::cuda {

// ops/matmul.h: C [M, N] = alpha op(A) op(B) + beta C (row-major; beta == 0 ignores C).
void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K, bool trans_a,
            bool trans_b, float alpha, float beta);
// x [N, C], W [OC, C], b [OC] (may be null) -> y [N, OC] = x W^T + b
void linear_forward(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                    int64_t OC);
// dy [N, OC]: dx [N, C] = dy W (overwritten), dW [OC, C] += dy^T x, db [OC] += column sums
// of dy; each skipped when null.
void linear_backward(const float* dy, const float* x, const float* W, float* dx, float* dW,
                     float* db, int64_t N, int64_t C, int64_t OC);

// ops/bf16.h: w [n] -> [n] bf16 (round to nearest even, NaN stays NaN, as ops::ref);
// linear_forward with W [OC, C] in bf16 (widened to float, then the FP32 product).
void to_bf16(const float* w, uint16_t* out, int64_t n);
void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC);

// ops/attention.h, all four: q [N, Tq, Dk], k [N, Tk, Dk], v [N, Tk, Dv] -> y [N, Tq, Dv]
// and att [N, Tq, Tk] (the weights kept) or lse [N, Tq] (tiled: weights recomputed in
// backward). Dropout's mask is drawn on the device from dropout_key (the rule of
// ops::dropout_draw_mask: the draws of ref and cpu) into drop_mask; dq, dk, dv are overwritten.
void attention_forward(const float* q, const float* k, const float* v, float* y, float* att,
                       const ops::AttentionShape& s, float scale, const ops::AttentionMask& mask,
                       float dropout_p, float* drop_mask, uint64_t dropout_key);
void attention_backward(const float* dy, const float* q, const float* k, const float* v,
                        const float* att, const float* drop_mask, float* dq, float* dk, float* dv,
                        const ops::AttentionShape& s, float scale);
void attention_forward_tiled(const float* q, const float* k, const float* v, float* y, float* lse,
                             const ops::AttentionShape& s, float scale,
                             const ops::AttentionMask& mask, float dropout_p, uint64_t dropout_key);
void attention_backward_tiled(const float* dy, const float* q, const float* k, const float* v,
                              const float* y, const float* lse, float* dq, float* dk, float* dv,
                              const ops::AttentionShape& s, float scale,
                              const ops::AttentionMask& mask, float dropout_p,
                              uint64_t dropout_key);

}  // namespace tinylm::cuda
