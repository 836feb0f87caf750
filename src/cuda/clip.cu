// Global-norm gradient clipping on the GPU (CPU twin: ops/clip.h). The spans' data are
// device memory: each span's squares are summed in double by a grid-stride kernel (block
// sums added to one double with atomicAdd), the total is downloaded once, and the host
// computes norm and coef in double as ops::ref does; when coef < 1 every span is scaled
// by float(g * coef) (g widened to double, as ref).
#include <cmath>

#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/scratch.cuh"

namespace tinylm::cuda {

namespace {

constexpr int kMaxBlocks = 1024;  // per span: a grid-stride loop does the rest

__device__ double warp_sum_double(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// *total += sum of g[i]^2 (in double), blockDim.x = kThreads.
__global__ void sum_squares_kernel(const float* g, int64_t n, double* total) {
  __shared__ double warp_sums[32];
  double sum = 0.0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double x = g[i];
    sum += x * x;
  }
  sum = warp_sum_double(sum);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp != 0) return;
  sum = lane < static_cast<int>(blockDim.x >> 5) ? warp_sums[lane] : 0.0;
  sum = warp_sum_double(sum);
  if (lane == 0) atomicAdd(total, sum);
}

__global__ void scale_by_kernel(float* g, int64_t n, double coef) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) g[i] = static_cast<float>(g[i] * coef);
}

unsigned capped_blocks(int64_t n) {
  const unsigned blocks = blocks_for(n);
  return blocks < kMaxBlocks ? blocks : kMaxBlocks;
}

}  // namespace

double clip_grad_norm(const std::vector<ops::GradSpan>& grads, double max_norm) {
  double sum_sq = 0.0;
  bool any = false;
  for (const ops::GradSpan& span : grads) any = any || span.size > 0;
  if (any) {
    double* total = scratch<double>(ScratchSlot::kSum, 1);
    TINYLM_CUDA_CHECK(cudaMemset(total, 0, sizeof(double)));
    for (const ops::GradSpan& span : grads) {
      if (span.size <= 0) continue;
      sum_squares_kernel<<<capped_blocks(span.size), kThreads>>>(span.data, span.size, total);
      TINYLM_CUDA_CHECK_LAUNCH();
    }
    TINYLM_CUDA_CHECK(cudaMemcpy(&sum_sq, total, sizeof(double), cudaMemcpyDeviceToHost));
  }
  const double norm = std::sqrt(sum_sq);
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    for (const ops::GradSpan& span : grads) {
      if (span.size <= 0) continue;
      scale_by_kernel<<<blocks_for(span.size), kThreads>>>(span.data, span.size, coef);
      TINYLM_CUDA_CHECK_LAUNCH();
    }
  }
  return norm;
}

}  // namespace tinylm::cuda
