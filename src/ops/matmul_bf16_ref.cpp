// Mixed-precision products, reference version (see matmul_bf16.h): each operand rounded to
// bf16 (util/float16.h), the products summed in float64, then alpha, beta C and one
// rounding to float32.
//   C [M, N] = alpha * bf16(op(A)) [M, K] @ bf16(op(B)) [K, N] + beta * C
#include "ops/matmul_bf16.h"
#include "util/float16.h"

namespace tinylm::ops::ref {

void matmul_bf16(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K,
                 bool trans_a, bool trans_b, float alpha, float beta) {
  auto rounded = [](float v) { return static_cast<double>(bf16_to_float(float_to_bf16(v))); };
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double sum = 0.0;
      for (int64_t p = 0; p < K; ++p) {
        const float a = trans_a ? A[p * M + i] : A[i * K + p];  // op(A)[i, p]
        const float b = trans_b ? B[j * K + p] : B[p * N + j];  // op(B)[p, j]
        sum += rounded(a) * rounded(b);
      }
      double c = alpha * sum;
      if (beta != 0.0f) c += static_cast<double>(beta) * C[i * N + j];
      C[i * N + j] = static_cast<float>(c);
    }
  }
}

}  // namespace tinylm::ops::ref
