// Matrix products and the linear layer, reference versions (naive loops, double sums).
//   matmul:  C [M, N] = alpha * op(A) [M, K] @ op(B) [K, N] + beta * C   (row-major;
//            beta == 0 ignores the old C, as BLAS does)
//   linear:  x [N, C], W [OC, C], b [OC] -> y [N, OC] = x @ W^T + b
//            backward: dy [N, OC] -> dx [N, C] = dy @ W, dW [OC, C] += dy^T @ x,
//                      db [OC] += sum over rows of dy
#include "ops/matmul.h"

namespace tinylm::ops::ref {

void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K, bool trans_a,
            bool trans_b, float alpha, float beta) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0.0;
      for (int64_t p = 0; p < K; ++p) {
        const float a = trans_a ? A[p * M + i] : A[i * K + p];  // op(A)[i, p]
        const float b = trans_b ? B[j * K + p] : B[p * N + j];  // op(B)[p, j]
        sum += static_cast<double>(a) * b;
      }
      double c = alpha * sum;
      if (beta != 0.0f) c += static_cast<double>(beta) * C[i * N + j];
      C[i * N + j] = static_cast<float>(c);
    }
  }
}

void linear_forward(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                    int64_t OC) {
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t o = 0; o < OC; ++o) {
      double sum = b ? b[o] : 0.0;
      for (int64_t c = 0; c < C; ++c) sum += static_cast<double>(x[n * C + c]) * W[o * C + c];
      y[n * OC + o] = static_cast<float>(sum);
    }
  }
}

void linear_backward(const float* dy, const float* x, const float* W, float* dx, float* dW,
                     float* db, int64_t N, int64_t C, int64_t OC) {
  // dx[n, c] = sum_o dy[n, o] W[o, c]
  if (dx) {
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        double sum = 0.0;
        for (int64_t o = 0; o < OC; ++o) sum += static_cast<double>(dy[n * OC + o]) * W[o * C + c];
        dx[n * C + c] = static_cast<float>(sum);
      }
    }
  }
  // dW[o, c] += sum_n dy[n, o] x[n, c]
  for (int64_t o = 0; dW && o < OC; ++o) {
    for (int64_t c = 0; c < C; ++c) {
      double sum = 0.0;
      for (int64_t n = 0; n < N; ++n) sum += static_cast<double>(dy[n * OC + o]) * x[n * C + c];
      dW[o * C + c] = static_cast<float>(dW[o * C + c] + sum);
    }
  }
  // db[o] += sum_n dy[n, o]
  if (db) {
    for (int64_t o = 0; o < OC; ++o) {
      double sum = 0.0;
      for (int64_t n = 0; n < N; ++n) sum += dy[n * OC + o];
      db[o] = static_cast<float>(db[o] + sum);
    }
  }
}

}  // namespace tinylm::ops::ref
