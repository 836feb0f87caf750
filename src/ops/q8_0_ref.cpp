// 8-bit weights, reference version: ggml's blocks, widened to float32; x quantised the
// same way as the fast version (ops/q8_0.h); products summed in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/q8_0.h"
#include "util/float16.h"

namespace tinylm::ops::ref {

void quantize_q8_0(const float* w, int8_t* q, uint16_t* d, int64_t OC, int64_t C) {
  for (int64_t i = 0; i < OC * C / kQ8Block; ++i) {
    BlockQ8_0 block;
    quantize_q8_0_block(w + i * kQ8Block, &block);
    d[i] = block.d;
    std::copy(block.q, block.q + kQ8Block, q + i * kQ8Block);
  }
}

void linear_forward_q8_0(const float* x, const int8_t* q, const uint16_t* d, const float* b,
                         float* y, int64_t N, int64_t C, int64_t OC) {
  const int64_t blocks = C / kQ8Block;
  std::vector<float> xq(static_cast<size_t>(C));
  for (int64_t n = 0; n < N; ++n) {
    // x's row as the fast version quantises it: float32 scale max|x| / 127, int8 values.
    for (int64_t k = 0; k < blocks; ++k) {
      const float* xb = x + n * C + k * kQ8Block;
      float amax = 0.0f;
      for (int64_t j = 0; j < kQ8Block; ++j) amax = std::max(amax, std::fabs(xb[j]));
      const float scale = amax / 127.0f, inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
      for (int64_t j = 0; j < kQ8Block; ++j)
        xq[k * kQ8Block + j] = scale * std::round(xb[j] * inverse);
    }
    for (int64_t o = 0; o < OC; ++o) {
      double sum = b ? b[o] : 0.0;
      for (int64_t i = 0; i < C; ++i) {
        const double w =
            static_cast<double>(half_to_float(d[(o * C + i) / kQ8Block])) * q[o * C + i];
        sum += w * xq[i];
      }
      y[n * OC + o] = static_cast<float>(sum);
    }
  }
}

}  // namespace tinylm::ops::ref
