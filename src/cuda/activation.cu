// Element-wise activations on the GPU (CPU twin: ops/activation.h), one thread per element.
#include <cmath>

#include "cuda/check.cuh"
#include "cuda/kernels.h"

namespace tinylm::cuda {

namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCoeff = 0.044715f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;

__device__ float activate(ops::Activation a, float x) {
  switch (a) {
    case ops::Activation::GeluTanh:
      return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kGeluCoeff * x * x * x)));
    case ops::Activation::GeluErf:
      return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
    case ops::Activation::Relu:
      break;
  }
  return x > 0.0f ? x : 0.0f;
}

__device__ float derivative(ops::Activation a, float x) {
  switch (a) {
    case ops::Activation::GeluTanh: {
      const float t = tanhf(kSqrt2OverPi * (x + kGeluCoeff * x * x * x));
      return 0.5f * (1.0f + t) +
             0.5f * x * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCoeff * x * x);
    }
    case ops::Activation::GeluErf:
      return 0.5f * (1.0f + erff(x * kInvSqrt2)) + x * kInvSqrt2Pi * expf(-0.5f * x * x);
    case ops::Activation::Relu:
      break;
  }
  return x > 0.0f ? 1.0f : 0.0f;
}

__global__ void forward_kernel(ops::Activation a, const float* x, float* y, int64_t N) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) y[i] = activate(a, x[i]);
}

__global__ void backward_kernel(ops::Activation a, const float* dy, const float* x, float* dx,
                                int64_t N) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < N) dx[i] = dy[i] * derivative(a, x[i]);
}

constexpr int kThreads = 256;
unsigned blocks_for(int64_t N) {
  return static_cast<unsigned>((N + kThreads - 1) / kThreads);
}

}  // namespace

void activation_forward(ops::Activation a, const float* x, float* y, int64_t N) {
  if (N == 0) return;
  forward_kernel<<<blocks_for(N), kThreads>>>(a, x, y, N);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void activation_backward(ops::Activation a, const float* dy, const float* x, float* dx, int64_t N) {
  if (N == 0) return;
  backward_kernel<<<blocks_for(N), kThreads>>>(a, dy, x, dx, N);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
