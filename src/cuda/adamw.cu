// AdamW on the GPU (CPU twin: ops/adamw.h), one thread per element; the bias corrections
// are computed once on the host in double, as the CPU version does.
#include <cmath>
#include <string>

#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "util/error.h"

namespace tinylm::cuda {

namespace {

__global__ void adamw_kernel(float* p, const float* g, float* m, float* v, int64_t N, float lr,
                             float beta1, float beta2, float eps, float weight_decay,
                             float step_size, float inv_sqrt_bc2) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const float gi = g[i];
  const float mi = beta1 * m[i] + (1.0f - beta1) * gi;
  const float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
  float pi = p[i] - lr * weight_decay * p[i];
  pi -= step_size * mi / (sqrtf(vi) * inv_sqrt_bc2 + eps);
  p[i] = pi;
  m[i] = mi;
  v[i] = vi;
}

}  // namespace

void adamw_update(float* p, const float* g, float* m, float* v, int64_t N, const ops::AdamWHyper& h,
                  int64_t step) {
  require(step >= 1, "adamw: step must start at 1, got " + std::to_string(step));
  if (N == 0) return;
  const double bc1 = 1.0 - std::pow(static_cast<double>(h.beta1), static_cast<double>(step));
  const double bc2 = 1.0 - std::pow(static_cast<double>(h.beta2), static_cast<double>(step));
  const int threads = 256;
  const auto blocks = static_cast<unsigned>((N + threads - 1) / threads);
  adamw_kernel<<<blocks, threads>>>(p, g, m, v, N, h.lr, h.beta1, h.beta2, h.eps, h.weight_decay,
                                    static_cast<float>(h.lr / bc1),
                                    static_cast<float>(1.0 / std::sqrt(bc2)));
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
