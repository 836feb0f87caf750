// Layer normalisation on the GPU (CPU twin: ops/layernorm.h). One block per row for the
// row-wise passes, one thread per column for dw / db (a sum over rows, read coalesced).
#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/reduce.cuh"

namespace tinylm::cuda {

namespace {

constexpr int kRowThreads = 256;

// y = (x - mean) * rstd * w + b, one block per row.
__global__ void layernorm_forward_kernel(const float* x, const float* w, const float* b, float* y,
                                         float* mean, float* rstd, int C, float eps) {
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const float* xr = x + row * C;
  float s = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) s += xr[c];
  const float mu = block_sum(s, scratch) / C;
  float sq = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float d = xr[c] - mu;
    sq += d * d;
  }
  const float rs = rsqrtf(block_sum(sq, scratch) / C + eps);
  float* yr = y + row * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x)
    yr[c] = (xr[c] - mu) * rs * w[c] + (b ? b[c] : 0.0f);
  if (threadIdx.x == 0) {
    mean[row] = mu;
    rstd[row] = rs;
  }
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),  g = dy * w, one block per row.
__global__ void layernorm_backward_dx_kernel(const float* dy, const float* x, const float* w,
                                             const float* mean, const float* rstd, float* dx,
                                             int C) {
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const float* dyr = dy + row * C;
  const float* xr = x + row * C;
  const float mu = mean[row], rs = rstd[row];
  float sum_g = 0.0f, sum_gx = 0.0f;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float g = dyr[c] * w[c];
    sum_g += g;
    sum_gx += g * (xr[c] - mu) * rs;
  }
  const float mean_g = block_sum(sum_g, scratch) / C;
  const float mean_gx = block_sum(sum_gx, scratch) / C;
  float* dxr = dx + row * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    const float xhat = (xr[c] - mu) * rs;
    dxr[c] = rs * (dyr[c] * w[c] - mean_g - xhat * mean_gx);
  }
}

// dw[c] += sum_n dy[n, c] xhat[n, c],  db[c] += sum_n dy[n, c]: one thread per column.
__global__ void layernorm_backward_dwdb_kernel(const float* dy, const float* x, const float* mean,
                                               const float* rstd, float* dw, float* db, int64_t N,
                                               int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float sw = 0.0f, sb = 0.0f;
  for (int64_t n = 0; n < N; ++n) {
    const float g = dy[n * C + c];
    sw += g * (x[n * C + c] - mean[n]) * rstd[n];
    sb += g;
  }
  if (dw) dw[c] += sw;
  if (db) db[c] += sb;
}

}  // namespace

void layernorm_forward(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t N, int64_t C, float eps) {
  if (N == 0) return;
  layernorm_forward_kernel<<<N, kRowThreads>>>(x, w, b, y, mean, rstd, static_cast<int>(C), eps);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C) {
  if (N == 0) return;
  layernorm_backward_dx_kernel<<<N, kRowThreads>>>(dy, x, w, mean, rstd, dx, static_cast<int>(C));
  TINYLM_CUDA_CHECK_LAUNCH();
  if (dw || db) {
    const int threads = 256;
    const int blocks = static_cast<int>((C + threads - 1) / threads);
    layernorm_backward_dwdb_kernel<<<blocks, threads>>>(dy, x, mean, rstd, dw, db, N,
                                                        static_cast<int>(C));
    TINYLM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace tinylm::cuda
