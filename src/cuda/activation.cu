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

// s = 0.5 (1 + tanh(u)) = sigmoid(2u) and 1 - s, both to full relative precision (as the
// CPU kernel: 1 - tanh(u)^2 = 4 s (1 - s) without the cancellation near |tanh| = 1).
__device__ void half_one_plus_tanh(float u, float& s, float& one_minus_s) {
  const float e = expf(-2.0f * fabsf(u));  // in (0, 1]: never overflows
  const float small = e / (1.0f + e), large = 1.0f / (1.0f + e);
  s = u >= 0.0f ? large : small;
  one_minus_s = u >= 0.0f ? small : large;
}

__device__ float activate(ops::Activation a, float x) {
  float s, one_minus_s;
  switch (a) {
    case ops::Activation::GeluTanh:
      half_one_plus_tanh(kSqrt2OverPi * (x + kGeluCoeff * x * x * x), s, one_minus_s);
      return x * s;
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
      float s, one_minus_s;
      half_one_plus_tanh(kSqrt2OverPi * (x + kGeluCoeff * x * x * x), s, one_minus_s);
      return s + 2.0f * x * s * one_minus_s * kSqrt2OverPi * (1.0f + 3.0f * kGeluCoeff * x * x);
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
