#include "util/q8_0.h"

#include <algorithm>
#include <cmath>

#include "util/float16.h"

namespace tinylm {

void quantize_q8_0_block(const float* x, BlockQ8_0* out) {
  float amax = 0.0f;
  for (int64_t j = 0; j < kQ8Block; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
  out->d = float_to_half(d);
  for (int64_t j = 0; j < kQ8Block; ++j)
    out->q[j] = static_cast<int8_t>(std::round(x[j] * inverse));
}

void dequantize_q8_0_block(const BlockQ8_0& block, float* out) {
  const float d = half_to_float(block.d);
  for (int64_t j = 0; j < kQ8Block; ++j) out[j] = d * block.q[j];
}

}  // namespace tinylm
