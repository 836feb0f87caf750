// Inverted dropout on the GPU (CPU twin: ops/dropout.h). The mask is drawn on the host by
// ops::dropout_draw_mask, one rng.uniform() per element in index order (exactly the CPU's
// draws, and its check of p), uploaded, and applied by an element-wise product:
//   forward  y [N] = x * mask   (p == 0: y = x, mask = 1, rng untouched)
//   backward dx [N] = dy * mask
#include <vector>

#include "cuda/check.cuh"
#include "cuda/device.h"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "ops/dropout.h"

namespace tinylm::cuda {

namespace {

__global__ void multiply_kernel(const float* a, const float* b, float* y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a[i] * b[i];
}

}  // namespace

void multiply(const float* a, const float* b, float* y, int64_t n) {
  if (n <= 0) return;
  multiply_kernel<<<blocks_for(n), kThreads>>>(a, b, y, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void dropout_forward(const float* x, float* y, float* mask, int64_t N, float p, Rng& rng) {
  if (p == 0.0f) {  // a copy, as ops::ref: nothing drawn
    fill(mask, N, 1.0f);
    copy(x, y, N);
    return;
  }
  std::vector<float> host(static_cast<size_t>(N > 0 ? N : 0));
  ops::dropout_draw_mask(host.data(), N, p, rng);  // checks p
  copy_to_device(mask, host.data(), sizeof(float) * host.size());
  multiply(x, mask, y, N);
}

void dropout_backward(const float* dy, const float* mask, float* dx, int64_t N) {
  multiply(dy, mask, dx, N);
}

}  // namespace tinylm::cuda
