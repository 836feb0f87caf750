// The layout kernels on the GPU (CPU twin: ops/layout.h), one thread per element, the
// index arithmetic of ops::ref (layout_ref.cpp) read backwards from the element:
//   [B, H, T, dh]   head (b, h, t, i) at ((b * H + h) * T + t) * dh + i
//   [B, T, P*H*dh]  row (b, t, part, h, i) at (b * T + t) * P * H * dh + part * H * dh + h * dh + i
// with P = 3 for qkv and P = 1 for rows. Threads follow the [B, T, ...] side, so one of the
// two arrays is read or written in order and the other in runs of dh.
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

// Element e of a [B, T, P * H * dh] array: its part, and its index in [B, H, T, dh].
struct HeadsIndex {
  int64_t T, H, dh, P;
  __device__ int part(int64_t e) const { return static_cast<int>((e / (H * dh)) % P); }
  __device__ int64_t head(int64_t e) const {
    const int64_t i = e % dh, h = (e / dh) % H;
    const int64_t bt = e / (P * H * dh), b = bt / T, t = bt % T;
    return ((b * H + h) * T + t) * dh + i;
  }
};

// qkv [B, T, 3C] -> q, k, v [B, H, T, dh]
__global__ void split_heads_kernel(const float* qkv, float* q, float* k, float* v, HeadsIndex ix,
                                   int64_t n) {
  const int64_t e = element();
  if (e >= n) return;
  const int part = ix.part(e);
  float* out = part == 0 ? q : part == 1 ? k : v;
  out[ix.head(e)] = qkv[e];
}

// q, k, v [B, H, T, dh] -> qkv [B, T, 3C]
__global__ void join_heads_kernel(const float* q, const float* k, const float* v, float* qkv,
                                  HeadsIndex ix, int64_t n) {
  const int64_t e = element();
  if (e >= n) return;
  const int part = ix.part(e);
  const float* in = part == 0 ? q : part == 1 ? k : v;
  qkv[e] = in[ix.head(e)];
}

// y [B, H, T, dh] -> rows [B, T, C]
__global__ void heads_to_rows_kernel(const float* y, float* rows, HeadsIndex ix, int64_t n) {
  const int64_t e = element();
  if (e < n) rows[e] = y[ix.head(e)];
}

// rows [B, T, C] -> y [B, H, T, dh]
__global__ void rows_to_heads_kernel(const float* rows, float* y, HeadsIndex ix, int64_t n) {
  const int64_t e = element();
  if (e < n) y[ix.head(e)] = rows[e];
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
  const int64_t n = B * T * 3 * H * dh;
  if (n <= 0) return;
  split_heads_kernel<<<blocks_for(n), kThreads>>>(qkv, q, k, v, HeadsIndex{T, H, dh, 3}, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void join_heads(const float* q, const float* k, const float* v, float* qkv, int64_t B, int64_t T,
                int64_t H, int64_t dh) {
  const int64_t n = B * T * 3 * H * dh;
  if (n <= 0) return;
  join_heads_kernel<<<blocks_for(n), kThreads>>>(q, k, v, qkv, HeadsIndex{T, H, dh, 3}, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void heads_to_rows(const float* y, float* rows, int64_t B, int64_t T, int64_t H, int64_t dh) {
  const int64_t n = B * T * H * dh;
  if (n <= 0) return;
  heads_to_rows_kernel<<<blocks_for(n), kThreads>>>(y, rows, HeadsIndex{T, H, dh, 1}, n);
  TINYLM_CUDA_CHECK_LAUNCH();
}

void rows_to_heads(const float* rows, float* y, int64_t B, int64_t T, int64_t H, int64_t dh) {
  const int64_t n = B * T * H * dh;
  if (n <= 0) return;
  rows_to_heads_kernel<<<blocks_for(n), kThreads>>>(rows, y, HeadsIndex{T, H, dh, 1}, n);
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
