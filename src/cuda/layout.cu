// The layout kernels on the GPU (CPU twin: ops/layout.h), the index arithmetic of ops::ref
// (layout_ref.cpp):
//   [B, H, T, dh]   head (b, h, t, i) at ((b * H + h) * T + t) * dh + i
//   [B, T, P*H*dh]  row (b, t, part, h, i) at (b * T + t) * P * H * dh + part * H * dh + h * dh + i
// with P = 3 for qkv and P = 1 for rows. The head kernels give one block to each row
// r = b * T + t of the [B, T, ...] side: that side is read or written in order, the other
// in runs of dh, and a thread's index arithmetic is on 32-bit columns (64-bit divisions
// per element held these kernels under a third of the GPU's bandwidth). The element-wise
// kernels have one thread per element.
#include <stdexcept>
#include <string>

#include "cuda/check.cuh"
#include "cuda/kernels.h"
#include "cuda/launch.cuh"

namespace tinylm::cuda {

namespace {

__device__ int64_t element() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__global__ void add_kernel(const float* a, const float* b, float* y, int64_t n) {
  const int64_t i = element();
  if (i < n) y[i] = a[i] + b[i];
}

__global__ void scale_kernel(float* x, int64_t n, float s) {
  const int64_t i = element();
  if (i < n) x[i] = x[i] * s;
}

__global__ void fill_kernel(float* x, int64_t n, float value) {
  const int64_t i = element();
  if (i < n) x[i] = value;
}

// Row r = b * T + t of the [B, T, P * H * dh] side, and the place of its column
// hc = h * dh + i (within one part) in the [B, H, T, dh] array of that part.
struct HeadsRow {
  int64_t b, t;
  __device__ HeadsRow(int64_t r, int64_t T) : b(r / T), t(r - r / T * T) {}
  __device__ int64_t head(int hc, int64_t T, int H, int dh) const {
    const int h = hc / dh, i = hc - h * dh;
    return ((b * H + h) * T + t) * dh + i;
  }
};

// qkv [B, T, 3C] -> q, k, v [B, H, T, dh]; block r: row r
__global__ void split_heads_kernel(const float* qkv, float* q, float* k, float* v, int64_t T, int H,
                                   int dh) {
  const int64_t r = blockIdx.x;
  const HeadsRow row(r, T);
  const int C = H * dh;
  const float* in = qkv + r * 3 * C;
  for (int part = 0; part < 3; ++part) {
    float* out = part == 0 ? q : part == 1 ? k : v;
    for (int hc = threadIdx.x; hc < C; hc += blockDim.x)
      out[row.head(hc, T, H, dh)] = in[part * C + hc];
  }
}

// q, k, v [B, H, T, dh] -> qkv [B, T, 3C]; block r: row r
__global__ void join_heads_kernel(const float* q, const float* k, const float* v, float* qkv,
                                  int64_t T, int H, int dh) {
  const int64_t r = blockIdx.x;
  const HeadsRow row(r, T);
  const int C = H * dh;
  float* out = qkv + r * 3 * C;
  for (int part = 0; part < 3; ++part) {
    const float* in = part == 0 ? q : part == 1 ? k : v;
    for (int hc = threadIdx.x; hc < C; hc += blockDim.x)
      out[part * C + hc] = in[row.head(hc, T, H, dh)];
  }
}

// y [B, H, T, dh] -> rows [B, T, C]; block r: row r
__global__ void heads_to_rows_kernel(const float* y, float* rows, int64_t T, int H, int dh) {
  const int64_t r = blockIdx.x;
  const HeadsRow row(r, T);
  const int C = H * dh;
  for (int hc = threadIdx.x; hc < C; hc += blockDim.x) rows[r * C + hc] = y[row.head(hc, T, H, dh)];
}

// rows [B, T, C] -> y [B, H, T, dh]; block r: row r
__global__ void rows_to_heads_kernel(const float* rows, float* y, int64_t T, int H, int dh) {
  const int64_t r = blockIdx.x;
  const HeadsRow row(r, T);
  const int C = H * dh;
  for (int hc = threadIdx.x; hc < C; hc += blockDim.x) y[row.head(hc, T, H, dh)] = rows[r * C + hc];
}

// The head kernels' launch: one block per row of [B, T, ...]; H * dh must fit an int.
struct HeadsLaunch {
  unsigned blocks;
  int threads, H, dh;
};

HeadsLaunch heads_launch(int64_t B, int64_t T, int64_t H, int64_t dh) {
  if (H * dh > INT32_MAX / 3)
    throw std::runtime_error("CUDA: rows of " + std::to_string(H * dh) + " are too long");
  return {rows_grid(B * T), row_threads(H * dh), static_cast<int>(H), static_cast<int>(dh)};
}

// x [B, T, C] = tok + pos [T, C]
__global__ void add_positions_kernel(const float* tok, const float* pos, float* x, int64_t TC,
                                     int64_t n) {
  const int64_t e = element();
  if (e < n) x[e] = tok[e] + pos[e % TC];
}

// dpos [TC] = sum over b of dx [B, TC], in double
__global__ void sum_over_batch_kernel(const float* dx, float* dpos, int64_t B, int64_t TC) {
  const int64_t i = element();
  if (i >= TC) return;
  double sum = 0.0;
  for (int64_t b = 0; b < B; ++b) sum += dx[b * TC + i];
  dpos[i] = static_cast<float>(sum);
}

}  // namespace

void add(const float* a, const float* b, float* y, int64_t n) {
  if (n <= 0) return;
  add_kernel<<<blocks_for(n), kThreads>>>(a, b, y, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void scale(float* x, int64_t n, float s) {
  if (n <= 0) return;
  scale_kernel<<<blocks_for(n), kThreads>>>(x, n, s);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void copy(const float* x, float* y, int64_t n) {
  if (n <= 0 || x == y) return;
  TINYLM_CUDA_CHECK(cudaMemcpy(y, x, sizeof(float) * n, cudaMemcpyDeviceToDevice));
}

void fill(float* x, int64_t n, float value) {
  if (n <= 0) return;
  fill_kernel<<<blocks_for(n), kThreads>>>(x, n, value);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void split_heads(const float* qkv, float* q, float* k, float* v, int64_t B, int64_t T, int64_t H,
                 int64_t dh) {
  if (B * T * H * dh <= 0) return;
  const HeadsLaunch l = heads_launch(B, T, H, dh);
  split_heads_kernel<<<l.blocks, l.threads>>>(qkv, q, k, v, T, l.H, l.dh);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh) {
  if (B * T * H * dh <= 0) return;
  const HeadsLaunch l = heads_launch(B, T, H, dh);
  join_heads_kernel<<<l.blocks, l.threads>>>(q, k, v, qkv, T, l.H, l.dh);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh) {
  if (B * T * H * dh <= 0) return;
  const HeadsLaunch l = heads_launch(B, T, H, dh);
  heads_to_rows_kernel<<<l.blocks, l.threads>>>(y, rows, T, l.H, l.dh);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh) {
  if (B * T * H * dh <= 0) return;
  const HeadsLaunch l = heads_launch(B, T, H, dh);
  rows_to_heads_kernel<<<l.blocks, l.threads>>>(rows, y, T, l.H, l.dh);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void add_positions(const float* tok, const float* pos, float* x, int64_t B, int64_t T, int64_t C) {
  const int64_t n = B * T * C;
  if (n <= 0) return;
  add_positions_kernel<<<blocks_for(n), kThreads>>>(tok, pos, x, T * C, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void sum_over_batch(const float* dx, float* dpos, int64_t B, int64_t TC) {
  if (TC <= 0) return;
  sum_over_batch_kernel<<<blocks_for(TC), kThreads>>>(dx, dpos, B, TC);
  TINYLM_CUDA_CHECK_LAUNCH();
}

}  // namespace tinylm::cuda
