// Row softmax on the GPU (CPU twin: ops/softmax.h), one block per row:
//   forward  x [N, D] -> y [N, D], -inf entries weigh 0, an all -inf row gives zeros
//   backward dy, y [N, D] -> dx [N, D] = y * (dy - sum(dy * y)) row-wise
#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/reduce.cuh"
#include "cuda/softmax.cuh"

namespace tinylm::cuda {

namespace {

__global__ void softmax_forward_kernel(const float* x, float* y, int64_t D) {
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  block_softmax_row(x + row * D, nullptr, y + row * D, D, D, scratch);
}

__global__ void softmax_backward_kernel(const float* dy, const float* y, float* dx, int64_t D) {
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const float* dyr = dy + row * D;
  const float* yr = y + row * D;
  float dot = 0.0f;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) dot += dyr[j] * yr[j];
  dot = block_sum(dot, scratch);
  float* dxr = dx + row * D;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) dxr[j] = yr[j] * (dyr[j] - dot);
}

}  // namespace

void softmax_forward(const float* x, float* y, int64_t N, int64_t D) {
  if (N <= 0 || D <= 0) return;
  softmax_forward_kernel<<<rows_grid(N), row_threads(D)>>>(x, y, D);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void softmax_backward(const float* dy, const float* y, float* dx, int64_t N, int64_t D) {
  if (N <= 0 || D <= 0) return;
  softmax_backward_kernel<<<rows_grid(N), row_threads(D)>>>(dy, y, dx, D);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
