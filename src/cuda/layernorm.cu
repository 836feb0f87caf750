// Layer normalisation on the GPU (CPU twin: ops/layernorm.h). The row-wise passes take
// one warp per row, the row in registers (kPerLane values per lane), for rows of up to
// kMaxWarpRow values (GPT-2's 768 and the recipes' 384: one block per row with its block
// barriers and three reads of the row took twice the time), one block per row above;
// dw / db (sums over rows) in two passes over tiles of rows and columns.
#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"
#include "cuda/reduce.cuh"
#include "cuda/scratch.cuh"
#include "cuda/softmax.cuh"
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

constexpr int kMaxWarpRow = 1024;

// The same, one warp per row of C <= 32 * kPerLane: lane l holds columns l, l + 32, ...
template <int kPerLane>
__global__ void layernorm_forward_warp_kernel(const float* x, const float* w, const float* b,
                                              float* y, float* mean, float* rstd, int64_t rows,
                                              int C, float eps) {
  const int64_t row = warp_row();
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  const float* xr = x + row * C;
  float v[kPerLane];
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int c = lane + 32 * i;
    v[i] = c < C ? xr[c] : 0.0f;
    s += v[i];
  }
  const float mu = warp_sum(s) / C;
  float sq = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const float d = lane + 32 * i < C ? v[i] - mu : 0.0f;
    sq += d * d;
  }
  const float rs = rsqrtf(warp_sum(sq) / C + eps);
  float* yr = y + row * C;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int c = lane + 32 * i;
    if (c < C) yr[c] = (v[i] - mu) * rs * w[c] + (b ? b[c] : 0.0f);
  }
  if (lane == 0) {
    mean[row] = mu;
    rstd[row] = rs;
  }
}

// dx of layernorm_backward_dx_kernel below, one warp per row of C <= 32 * kPerLane.
template <int kPerLane>
__global__ void layernorm_backward_dx_warp_kernel(const float* dy, const float* x, const float* w,
                                                  const float* mean, const float* rstd, float* dx,
                                                  int64_t rows, int C) {
  const int64_t row = warp_row();
  if (row >= rows) return;
  const int lane = threadIdx.x & 31;
  const float* dyr = dy + row * C;
  const float* xr = x + row * C;
  const float mu = mean[row], rs = rstd[row];
  float g[kPerLane], xhat[kPerLane];
  float sum_g = 0.0f, sum_gx = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int c = lane + 32 * i;
    g[i] = c < C ? dyr[c] * w[c] : 0.0f;
    xhat[i] = c < C ? (xr[c] - mu) * rs : 0.0f;
    sum_g += g[i];
    sum_gx += g[i] * xhat[i];
  }
  const float mean_g = warp_sum(sum_g) / C;
  const float mean_gx = warp_sum(sum_gx) / C;
  float* dxr = dx + row * C;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int c = lane + 32 * i;
    if (c < C) dxr[c] = rs * (g[i] - mean_g - xhat[i] * mean_gx);
  }
}

// The values per lane of a warp-per-row kernel for rows of C <= kMaxWarpRow.
int per_lane(int64_t C) {
  for (int k : {4, 8, 12, 16, 24})
    if (C <= 32 * k) return k;
  return 32;
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
constexpr int64_t kChunkRows =
    512;  // 128: pass 2's serial sums over 128 chunks took as long as pass 1

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
  const int c = static_cast<int>(C);
  if (C > kMaxWarpRow) {
    layernorm_forward_kernel<<<rows_grid(N), kRowThreads>>>(x, w, b, y, mean, rstd, c, eps);
  } else {
    const unsigned blocks = blocks_for(N, kRowsPerBlock);
    const int threads = 32 * kRowsPerBlock;
    switch (per_lane(C)) {
      // clang-format off
      case 4:  layernorm_forward_warp_kernel<4><<<blocks, threads>>>(x, w, b, y, mean, rstd, N, c, eps); break;
      case 8:  layernorm_forward_warp_kernel<8><<<blocks, threads>>>(x, w, b, y, mean, rstd, N, c, eps); break;
      case 12: layernorm_forward_warp_kernel<12><<<blocks, threads>>>(x, w, b, y, mean, rstd, N, c, eps); break;
      case 16: layernorm_forward_warp_kernel<16><<<blocks, threads>>>(x, w, b, y, mean, rstd, N, c, eps); break;
      case 24: layernorm_forward_warp_kernel<24><<<blocks, threads>>>(x, w, b, y, mean, rstd, N, c, eps); break;
      default: layernorm_forward_warp_kernel<32><<<blocks, threads>>>(x, w, b, y, mean, rstd, N, c, eps); break;
        // clang-format on
    }
  }
  TINYLM_CUDA_CHECK_LAUNCH();
}

void layernorm_backward(const float* dy, const float* x, const float* w, const float* mean,
                        const float* rstd, float* dx, float* dw, float* db, int64_t N, int64_t C) {
  if (N == 0) return;
  const int c = static_cast<int>(C);
  if (C > kMaxWarpRow) {
    layernorm_backward_dx_kernel<<<rows_grid(N), kRowThreads>>>(dy, x, w, mean, rstd, dx, c);
  } else {
    const unsigned blocks = blocks_for(N, kRowsPerBlock);
    const int threads = 32 * kRowsPerBlock;
    switch (per_lane(C)) {
      // clang-format off
      case 4:  layernorm_backward_dx_warp_kernel<4><<<blocks, threads>>>(dy, x, w, mean, rstd, dx, N, c); break;
      case 8:  layernorm_backward_dx_warp_kernel<8><<<blocks, threads>>>(dy, x, w, mean, rstd, dx, N, c); break;
      case 12: layernorm_backward_dx_warp_kernel<12><<<blocks, threads>>>(dy, x, w, mean, rstd, dx, N, c); break;
      case 16: layernorm_backward_dx_warp_kernel<16><<<blocks, threads>>>(dy, x, w, mean, rstd, dx, N, c); break;
      case 24: layernorm_backward_dx_warp_kernel<24><<<blocks, threads>>>(dy, x, w, mean, rstd, dx, N, c); break;
      default: layernorm_backward_dx_warp_kernel<32><<<blocks, threads>>>(dy, x, w, mean, rstd, dx, N, c); break;
        // clang-format on
    }
  }
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
