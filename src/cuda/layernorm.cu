// Layer normalisation on the GPU (CPU twin: ops/layernorm.h). One block per row for the
// row-wise passes; dw / db (sums over rows) in two passes over tiles of rows and columns.
#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/reduce.cuh"
#include "cuda/scratch.cuh"
#include "util/error.h"

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

// dw[c] += sum_n dy[n, c] xhat[n, c],  db[c] += sum_n dy[n, c], in two passes so that
// every multiprocessor takes part (one thread per column alone left most of the GPU idle
// and took 70% of a training step). Pass 1: block (column tile, row chunk) of 32 x 8
// threads sums kChunkRows rows of 32 columns (reads coalesced along the row) into
// partial [chunks, C]; pass 2: one thread per column adds the chunks' partials in order
// (deterministic: no atomics).
constexpr int kTileCols = 32, kTileRows = 8;
constexpr int64_t kChunkRows = 128;

__global__ void layernorm_dwdb_partial_kernel(const float* dy, const float* x, const float* mean,
                                              const float* rstd, float* partial_w, float* partial_b,
                                              int64_t N, int C) {
  __shared__ float sw[kTileRows][kTileCols], sb[kTileRows][kTileCols];
  const int c = blockIdx.x * kTileCols + threadIdx.x;
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kChunkRows;
  const int64_t last = first + kChunkRows < N ? first + kChunkRows : N;
  float w = 0.0f, b = 0.0f;
  if (c < C) {
    for (int64_t n = first + threadIdx.y; n < last; n += kTileRows) {
      const float g = dy[n * C + c];
      w += g * (x[n * C + c] - mean[n]) * rstd[n];
      b += g;
    }
  }
  sw[threadIdx.y][threadIdx.x] = w;
  sb[threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y != 0 || c >= C) return;
  for (int r = 1; r < kTileRows; ++r) {
    w += sw[r][threadIdx.x];
    b += sb[r][threadIdx.x];
  }
  partial_w[blockIdx.y * static_cast<int64_t>(C) + c] = w;
  partial_b[blockIdx.y * static_cast<int64_t>(C) + c] = b;
}

__global__ void layernorm_dwdb_sum_kernel(const float* partial_w, const float* partial_b, float* dw,
                                          float* db, int64_t chunks, int C) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  float w = 0.0f, b = 0.0f;
  for (int64_t k = 0; k < chunks; ++k) {
    w += partial_w[k * C + c];
    b += partial_b[k * C + c];
  }
  if (dw) dw[c] += w;
  if (db) db[c] += b;
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
    const int64_t chunks = (N + kChunkRows - 1) / kChunkRows;
    float* partial = scratch<float>(ScratchSlot::kGradWeights, 2 * chunks * C);
    const dim3 tiles(static_cast<unsigned>((C + kTileCols - 1) / kTileCols),
                     static_cast<unsigned>(chunks));
    require(chunks <= 65535, "layer norm backward: too many rows for one launch");
    layernorm_dwdb_partial_kernel<<<tiles, dim3(kTileCols, kTileRows)>>>(
        dy, x, mean, rstd, partial, partial + chunks * C, N, static_cast<int>(C));
    TINYLM_CUDA_CHECK_LAUNCH();
    const int threads = 256;
    const int blocks = static_cast<int>((C + threads - 1) / threads);
    layernorm_dwdb_sum_kernel<<<blocks, threads>>>(partial, partial + chunks * C, dw, db, chunks,
                                                   static_cast<int>(C));
    TINYLM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace tinylm::cuda
