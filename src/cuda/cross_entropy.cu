// Softmax cross-entropy on the GPU (CPU twin: ops/cross_entropy.h), fused forward and
// backward: one block per row reads the logits once for the maximum, once for the sum
// of exponentials, and once more to write the gradient.
#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/reduce.cuh"

namespace tinylm::cuda {

namespace {

constexpr int kRowThreads = 256;

__global__ void cross_entropy_kernel(const float* logits, const int32_t* targets, float* dlogits,
                                     float* row_loss, int64_t V, float inv_count,
                                     int32_t ignore_index) {
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const int32_t t = targets[row];
  const float* x = logits + row * V;
  float* dx = dlogits ? dlogits + row * V : nullptr;
  if (t == ignore_index) {
    if (dx)
      for (int64_t j = threadIdx.x; j < V; j += blockDim.x) dx[j] = 0.0f;
    if (threadIdx.x == 0) row_loss[row] = 0.0f;
    return;
  }
  float mx = -INFINITY;
  for (int64_t j = threadIdx.x; j < V; j += blockDim.x) mx = fmaxf(mx, x[j]);
  mx = block_max(mx, scratch);
  float s = 0.0f;
  for (int64_t j = threadIdx.x; j < V; j += blockDim.x) s += expf(x[j] - mx);
  const float log_sum_exp = mx + logf(block_sum(s, scratch));
  if (threadIdx.x == 0) row_loss[row] = log_sum_exp - x[t];
  if (dx)
    for (int64_t j = threadIdx.x; j < V; j += blockDim.x)
      dx[j] = (expf(x[j] - log_sum_exp) - (j == t ? 1.0f : 0.0f)) * inv_count;
}

}  // namespace

void cross_entropy(const float* logits, const int32_t* targets, float* dlogits, float* row_loss,
                   int64_t N, int64_t V, int64_t count, int32_t ignore_index) {
  if (N == 0) return;
  const float inv_count = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  cross_entropy_kernel<<<N, kRowThreads>>>(logits, targets, dlogits, row_loss, V, inv_count,
                                           ignore_index);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
