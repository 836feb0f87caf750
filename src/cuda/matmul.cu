// Matrix products and the linear layer on the GPU (CPU twin: ops/matmul.h), through
// cuBLAS sgemm (blas.cuh); the bias is broadcast into y before the product (beta = 1),
// and db is a column sum of dy by a small kernel.
#include "cuda/blas.cuh"
#include "cuda/check.cuh"
#include "cuda/launch.cuh"
#include "cuda/products.h"

namespace tinylm::cuda {

namespace {

// y [N, OC]: every row = b [OC].
__global__ void broadcast_rows_kernel(const float* b, float* y, int64_t OC, int64_t total) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) y[i] = b[i % OC];
}

constexpr int kColumns = 32;  // columns of a block (one warp reads 32 adjacent floats)
constexpr int kSlices = 8;    // row slices of a block, summed in shared memory at the end

// db [OC] += sum over the N rows of dy [N, OC]: block (kColumns, kSlices) per 32 columns;
// thread (c, s) sums rows s, s + kSlices, ... of its column, in order.
__global__ void column_sums_kernel(const float* dy, float* db, int64_t N, int64_t OC) {
  __shared__ float partial[kSlices][kColumns];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kColumns + threadIdx.x;
  float sum = 0.0f;
  if (col < OC)
    for (int64_t r = threadIdx.y; r < N; r += kSlices) sum += dy[r * OC + col];
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || col >= OC) return;
  float total = 0.0f;
  for (int s = 0; s < kSlices; ++s) total += partial[s][threadIdx.x];
  db[col] += total;
}

}  // namespace

void matmul(const float* A, const float* B, float* C, int64_t M, int64_t N, int64_t K, bool trans_a,
            bool trans_b, float alpha, float beta) {
  gemm(A, B, C, M, N, K, trans_a, trans_b, alpha, beta);
}

// y [N, OC] = x [N, C] W^T (W [OC, C]) + b
void linear_forward(const float* x, const float* W, const float* b, float* y, int64_t N, int64_t C,
                    int64_t OC) {
  if (N <= 0 || OC <= 0) return;
  if (b) {
    broadcast_rows_kernel<<<blocks_for(N * OC), kThreads>>>(b, y, OC, N * OC);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  gemm(x, W, y, N, OC, C, false, /*trans_b=*/true, 1.0f, b ? 1.0f : 0.0f);
}

void linear_backward(const float* dy, const float* x, const float* W, float* dx, float* dW,
                     float* db, int64_t N, int64_t C, int64_t OC) {
  if (dx) gemm(dy, W, dx, N, C, OC, false, false, 1.0f, 0.0f);  // dx [N, C] = dy [N, OC] W
  if (dW) gemm(dy, x, dW, OC, C, N, /*trans_a=*/true, false, 1.0f, 1.0f);  // dW += dy^T x
  if (db && N > 0 && OC > 0) {
    const dim3 threads(kColumns, kSlices);
    column_sums_kernel<<<blocks_for(OC, kColumns), threads>>>(dy, db, N, OC);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace tinylm::cuda
