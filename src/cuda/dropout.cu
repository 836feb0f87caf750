// Inverted dropout on the GPU (CPU twin: ops/dropout.h). Each thread draws its element's
// mask from the caller's key by position (util/counter_rng.h): the CPU's mask, drawn on
// the device, in the same pass as the product:
//   forward  y [N] = x * mask   (p == 0: y = x, mask = 1)
//   backward dx [N] = dy * mask
#include <string>

#include "cuda/check.cuh"
#include "cuda/device.h"
#include "cuda/dropout.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "ops/dropout.h"
#include "util/error.h"

namespace tinylm::cuda {

namespace {

__global__ void multiply_kernel(const float* a, const float* b, float* y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a[i] * b[i];
}

__global__ void dropout_kernel(const float* x, float* y, float* mask, int64_t n, float p,
                               float scale, uint64_t key) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float m = dropout_keep(key, i, p, scale);
  mask[i] = m;
  y[i] = x[i] * m;
}

void check_probability(float p) {
  require(p >= 0.0f && p <= 1.0f,
          [&] { return "dropout: probability " + std::to_string(p) + " is outside [0, 1]"; });
}

}  // namespace

void multiply(const float* a, const float* b, float* y, int64_t n) {
  if (n <= 0) return;
  multiply_kernel<<<blocks_for(n), kThreads>>>(a, b, y, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, uint64_t key) {
  if (p == 0.0f) {  // a copy, as ops::ref: nothing drawn
    fill(mask, N, 1.0f);
    copy(x, y, N);
    return;
  }
  check_probability(p);
  if (N <= 0) return;
  dropout_kernel<<<blocks_for(N), kThreads>>>(x, y, mask, N, p, 1.0f / (1.0f - p), key);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N) {
  multiply(dy, mask, dx, N);
}

}  // namespace tinylm::cuda
