// Matrix products. Row-major; C[M, N] = alpha * op(A) @ op(B) + beta * C, where
// op(A) is [M, K] (A stored [M, K], or [K, M] when trans_a) and op(B) is [K, N]
// (B stored [K, N], or [N, K] when trans_b).
#pragma once
#include <cstdint>

namespace tinylm::ops {

// Fast: oneDNN sgemm (OpenBLAS sgemm when built without oneDNN).
void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
            bool trans_a = false, bool trans_b = false, float alpha = 1.0f, float beta = 0.0f);

// Which library the fast matmul calls ("oneDNN sgemm" or "OpenBLAS sgemm").
const char* matmul_backend();

// Linear layer, PyTorch layout: W [OC, C], b [OC] (may be null).
//   forward:  x [N, C] -> y [N, OC] = x @ W^T + b
//   backward: given dy [N, OC]: dx [N, C] = dy @ W (overwritten; skipped if null),
//             dW [OC, C] += dy^T @ x, db [OC] += sum over N of dy (each skipped if null:
//             a frozen parameter has no gradient).
void linear_forward(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                    int64_t OC);
void linear_backward(const float* dy, const float* x, const float* W, float* dx, float* dW,
                     float* db, int64_t N, int64_t C, int64_t OC);

// Up to this many rows (decoding: one row per sequence) linear_forward computes each row
// alone, with linear_forward_rows: a row's result is bit for bit the same whatever the
// other rows are and however many there are, so that a sequence decoded in a batch gets
// exactly the tokens it gets alone (serve/). Above it, a BLAS product (faster, but a
// row's rounding may depend on the batch).
inline constexpr int64_t kRowInvariantMaxRows = 16;
// The row-by-row product itself (ops/linear_rows.cpp): each output one dot product summed
// in a fixed order; any N.
void linear_forward_rows(const float* x, const float* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC);

namespace ref {
void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
            bool trans_a = false, bool trans_b = false, float alpha = 1.0f, float beta = 0.0f);
void linear_forward(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                    int64_t OC);
void linear_backward(const float* dy, const float* x, const float* W, float* dx, float* dW,
                     float* db, int64_t N, int64_t C, int64_t OC);
}  // namespace ref

}  // namespace tinylm::ops
