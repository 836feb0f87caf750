// Matrix products through cuBLAS (see blas.cuh). cuBLAS is column-major: a row-major
// [M, N] matrix is its column-major transpose [N, M], so C = op(A) op(B) (row-major) is
// computed as C^T = op(B)^T op(A)^T (column-major): cuBLAS gets B first, then A, with
// m = N, n = M, and each operand's leading dimension is its stored row length.
#include <climits>
#include <string>

#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/cublas_library.h"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"

namespace tinylm::cuda {

namespace {

// K == 0: C_s [M, N] = beta C_s (0 when beta == 0, whatever C held).
__global__ void scale_sets_kernel(float* C, int64_t per_set, int64_t stride_c, int64_t total,
                                  float beta) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  float* c = C + (i / per_set) * stride_c + i % per_set;
  *c = beta == 0.0f ? 0.0f : beta * *c;
}

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

ops::MatmulPrecision g_precision = ops::MatmulPrecision::kFp32;

cublasComputeType_t compute_type() {
  switch (g_precision) {
    case ops::MatmulPrecision::kTf32:
      return CUBLAS_COMPUTE_32F_FAST_TF32;
    case ops::MatmulPrecision::kBf16:
      return CUBLAS_COMPUTE_32F_FAST_16BF;
    case ops::MatmulPrecision::kFp32:
      break;
  }
  return CUBLAS_COMPUTE_32F;
}

int as_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw std::runtime_error(std::string("cuda gemm: ") + what + " = " + std::to_string(v) +
                             " is outside cuBLAS's int range");
  return static_cast<int>(v);
}

}  // namespace

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS: ") + call + ": " +
                             cublas().status_string(status));
}

cublasHandle_t blas_handle() {
  // Never destroyed: destroying it from a static destructor could run after the CUDA
  // runtime has shut down at exit.
  static const cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    TINYLM_CUBLAS_CHECK(cublas().create(&h));
    TINYLM_CUBLAS_CHECK(cublas().set_stream(h, nullptr));                 // the default stream
    TINYLM_CUBLAS_CHECK(cublas().set_math_mode(h, CUBLAS_DEFAULT_MATH));  // FP32, no TF32
    // cuBLAS's recommended workspace on Hopper (4 MiB before it): with less, it leaves
    // out some of its kernels (split-K among them). Never freed, as the handle.
    void* workspace = nullptr;
    TINYLM_CUDA_CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
    TINYLM_CUBLAS_CHECK(cublas().set_workspace(h, workspace, kWorkspaceBytes));
    return h;
  }();
  return handle;
}

void set_matmul_precision(ops::MatmulPrecision p) {
  g_precision = p;
}

ops::MatmulPrecision matmul_precision() {
  return g_precision;
}

void gemm(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K, bool trans_a,
          bool trans_b, float alpha, float beta, const GemmSets& sets) {
  if (sets.batch <= 0 || M <= 0 || N <= 0) return;
  if (K <= 0) {  // an empty sum: C = beta C
    if (beta == 1.0f) return;
    const int64_t total = sets.batch * M * N;
    scale_sets_kernel<<<blocks_for(total), kThreads>>>(C, M * N, sets.stride_c, total, beta);
    TINYLM_CUDA_CHECK_LAUNCH();
    return;
  }
  const int m = as_int(N, "N"), n = as_int(M, "M"), k = as_int(K, "K");
  const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = trans_b ? k : m;  // B stored [N, K] or [K, N]
  const int lda = trans_a ? n : k;  // A stored [K, M] or [M, K]
  if (sets.batch == 1) {
    TINYLM_CUBLAS_CHECK(cublas().gemm_ex(blas_handle(), op_b, op_a, m, n, k, &alpha, B, CUDA_R_32F,
                                         ldb, A, CUDA_R_32F, lda, &beta, C, CUDA_R_32F, m,
                                         compute_type(), CUBLAS_GEMM_DEFAULT));
    return;
  }
  TINYLM_CUBLAS_CHECK(cublas().gemm_strided_batched_ex(
      blas_handle(), op_b, op_a, m, n, k, &alpha, B, CUDA_R_32F, ldb, sets.stride_b, A, CUDA_R_32F,
      lda, sets.stride_a, &beta, C, CUDA_R_32F, m, sets.stride_c, as_int(sets.batch, "batch"),
      compute_type(), CUBLAS_GEMM_DEFAULT));
}

}  // namespace tinylm::cuda
