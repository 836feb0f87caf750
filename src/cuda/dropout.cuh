// One element of a dropout mask, drawn on the device (*.cu only): the rule of
// ops::dropout_draw_mask, shared by dropout.cu and the attention kernels that draw their
// mask in the pass that makes the weights.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "ops/dropout_keep.h"

namespace tinylm::cuda {

// Element i of the mask of key: scale = 1 / (1 - p) where kept, 0 where dropped.
__device__ inline float dropout_keep(uint64_t key, int64_t i, float p, float scale) {
  return ops::dropout_keep(key, static_cast<uint64_t>(i), p, scale);
}

}  // namespace tinylm::cuda
