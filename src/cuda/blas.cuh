// Matrix products through cuBLAS for src/cuda (*.cu only). One cuBLAS handle, made on
// first use and kept for the program's life, on the default stream; float32 operands
// and results, computed as set_matmul_precision says (cuda/kernels.h; fp32 by default:
// float32 multiply-adds, as on the CPU; tf32 / bf16: tensor cores, float32 sums).
// Row-major, as ops/matmul.h says, for `batch` sets at once:
//   C_s [M, N] = alpha op(A_s) op(B_s) + beta C_s,  s = 0 .. batch-1,
//   A_s = A + s * stride_a (op(A_s) [M, K]: A_s stored [M, K], or [K, M] when trans_a),
//   B_s = B + s * stride_b (op(B_s) [K, N]: B_s stored [K, N], or [N, K] when trans_b),
//   C_s = C + s * stride_c (stored [M, N]).
// beta == 0 ignores the old C (NaN there is overwritten), as BLAS does; K == 0 gives
// C = beta C. Dimensions must fit cuBLAS's int (a runtime_error otherwise).
#pragma once
#include <cublas_v2.h>

#include <cstdint>

#include "ops/precision.h"

namespace tinylm::cuda {

void check_cublas(cublasStatus_t status, const char* call);

cublasHandle_t blas_handle();

// What set_matmul_precision (cuda/kernels.h) set last.
ops::MatmulPrecision matmul_precision();

struct GemmSets {
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
};

void gemm(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K, bool trans_a,
          bool trans_b, float alpha, float beta, const GemmSets& sets = {});

}  // namespace tinylm::cuda

#define TINYLM_CUBLAS_CHECK(call) ::tinylm::cuda::check_cublas((call), #call)
