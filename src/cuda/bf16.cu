// bf16 weights on the GPU (CPU twin: ops/bf16.h): rounding to bf16 with ops::ref's rule
// (util/float16.h: NaN keeps its top bits and gets the quiet bit; otherwise round to
// nearest, ties to even), and the linear layer with bf16 weights, which widens W into a
// float scratch buffer (a 16-bit shift, exact) and takes the FP32 path of matmul.cu.
#include "cuda/check.cuh"
#include "cuda/launch.cuh"
#include "cuda/products.h"
#include "cuda/scratch.cuh"

namespace tinylm::cuda {

namespace {

__global__ void to_bf16_kernel(const float* w, uint16_t* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t bits = __float_as_uint(w[i]);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN
    out[i] = static_cast<uint16_t>((bits >> 16) | 0x40u);
    return;
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest, ties to even
  out[i] = static_cast<uint16_t>(bits >> 16);
}

__global__ void widen_kernel(const uint16_t* h, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __uint_as_float(static_cast<uint32_t>(h[i]) << 16);
}

}  // namespace

void to_bf16(const float* w, uint16_t* out, int64_t n) {
  if (n <= 0) return;
  to_bf16_kernel<<<blocks_for(n), kThreads>>>(w, out, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

// x [N, C], W [OC, C] bf16 -> y [N, OC] = x W^T + b
void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC) {
  if (N <= 0 || OC <= 0) return;
  float* wide = scratch<float>(ScratchSlot::kWeights, OC * C);
  if (OC * C > 0) {
    widen_kernel<<<blocks_for(OC * C), kThreads>>>(W, wide, OC * C);
    TINYLM_CUDA_CHECK_LAUNCH();
  }
  linear_forward(x, wide, b, y, N, C, OC);
}

}  // namespace tinylm::cuda
