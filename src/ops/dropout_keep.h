// The rule every backend draws dropout masks by (ops/dropout.h): element i of the mask of
// `key` is kept iff counter_uniform(key, i) >= p; kept, it is scale (= 1 / (1 - p)),
// dropped, 0. Host and device code (the CUDA kernels draw their masks with it).
#pragma once
#include <cstdint>

#include "util/counter_rng.h"

namespace tinylm::ops {

TINYLM_HOST_DEVICE inline float dropout_keep(uint64_t key, uint64_t i, float p, float scale) {
  return counter_uniform(key, i) >= p ? scale : 0.0f;
}

}  // namespace tinylm::ops
