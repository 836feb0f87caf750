// Sums and maxima across a thread block (blockDim.x a multiple of 32, at most 1024), for
// the row kernels: every thread passes its partial value and gets the block's result.
#pragma once
#include <cuda_runtime.h>

namespace tinylm::cuda {

__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ inline float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// `scratch`: 32 floats of shared memory, free on entry (the function synchronises
// before reusing it, so consecutive calls may share it).
template <bool kMax>
__device__ inline float block_reduce(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  v = kMax ? warp_max(v) : warp_sum(v);
  __syncthreads();  // an earlier call may still read scratch
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  v = kMax ? warp_max(v) : warp_sum(v);  // every warp reduces the partials: all get the result
  return v;
}

__device__ inline float block_sum(float v, float* scratch) {
  return block_reduce<false>(v, scratch);
}
__device__ inline float block_max(float v, float* scratch) {
  return block_reduce<true>(v, scratch);
}

}  // namespace tinylm::cuda
