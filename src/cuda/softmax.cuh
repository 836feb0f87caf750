// One row's softmax by one thread block, shared by softmax.cu and attention (*.cu only).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/reduce.cuh"

namespace tinylm::cuda {

// Scores s_j = x[j] (+ add[j] when add is not null) for j < end are allowed; the rest of
// the row, end <= j < D, is not (weight 0):
//   y[j] = exp(s_j - max) / sum_{l < end} exp(s_l - max)  for j < end,  0 for j >= end;
// a row whose allowed scores are all -inf (or end == 0) gives zeros. Returns the row's
// log-sum-exp, max + log(sum) (-inf for such a row), to every thread. x and y may be the
// same row (in place): each entry j < end is read and written by the same thread. The
// zero fill of j >= end starts at end, so a caller that reads the row back afterwards
// must __syncthreads() first (warp_softmax_row below keeps one mapping throughout).
// `scratch`: 32 floats of shared memory (reduce.cuh).
__device__ inline float block_softmax_row(const float* x, const float* add, float* y, int64_t end,
                                          int64_t D, float* scratch) {
  float mx = -INFINITY;
  for (int64_t j = threadIdx.x; j < end; j += blockDim.x)
    mx = fmaxf(mx, add ? x[j] + add[j] : x[j]);
  mx = block_max(mx, scratch);
  if (mx == -INFINITY) {  // nothing allowed in this row
    for (int64_t j = threadIdx.x; j < D; j += blockDim.x) y[j] = 0.0f;
    return -INFINITY;
  }
  float sum = 0.0f;
  for (int64_t j = threadIdx.x; j < end; j += blockDim.x) {
    const float e = expf((add ? x[j] + add[j] : x[j]) - mx);
    y[j] = e;
    sum += e;
  }
  sum = block_sum(sum, scratch);
  for (int64_t j = threadIdx.x; j < end; j += blockDim.x) y[j] = y[j] / sum;
  for (int64_t j = end + threadIdx.x; j < D; j += blockDim.x) y[j] = 0.0f;
  return mx + logf(sum);
}

// The same contract by one warp (for rows of attention scores: a warp per row needs no
// block barrier, and a block of 8 warps walks 8 rows). Every loop gives entry j to lane
// j % 32, so after the call each lane may read back the entries it owns.
__device__ inline float warp_softmax_row(const float* x, const float* add, float* y, int64_t end,
                                         int64_t D) {
  const int lane = threadIdx.x & 31;
  float mx = -INFINITY;
  for (int64_t j = lane; j < end; j += 32) mx = fmaxf(mx, add ? x[j] + add[j] : x[j]);
  mx = warp_max(mx);
  if (mx == -INFINITY) {  // nothing allowed in this row
    for (int64_t j = lane; j < D; j += 32) y[j] = 0.0f;
    return -INFINITY;
  }
  float sum = 0.0f;
  for (int64_t j = lane; j < end; j += 32) {
    const float e = expf((add ? x[j] + add[j] : x[j]) - mx);
    y[j] = e;
    sum += e;
  }
  sum = warp_sum(sum);
  for (int64_t j = lane; j < D; j += 32) y[j] = j < end ? y[j] / sum : 0.0f;
  return mx + logf(sum);
}

// Launch shape of the warp-per-row kernels: kRowsPerBlock warps of 32 threads per block.
constexpr int kRowsPerBlock = 8;

// The row of the calling warp (blockIdx.x * kRowsPerBlock + warp); >= rows: no row.
__device__ inline int64_t warp_row() {
  return static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + (threadIdx.x >> 5);
}

}  // namespace tinylm::cuda
