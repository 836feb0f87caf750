// Packed linear layer, reference version: one output at a time, in the order of the
// contract (ops/linear_packed.h).
#include <cmath>

#include "ops/linear_packed.h"

namespace tinylm::ops::ref {

void pack_linear(const float* W, float* P, int64_t OC, int64_t C) {
  const int64_t panels = (OC + kPackedPanel - 1) / kPackedPanel;
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t k = 0; k < C; ++k)
      for (int64_t j = 0; j < kPackedPanel; ++j) {
        const int64_t o = p * kPackedPanel + j;
        P[(p * C + k) * kPackedPanel + j] = o < OC ? W[o * C + k] : 0.0f;
      }
}

void linear_forward_packed(const float* x, const float* P, const float* b, float* y, int64_t N,
                           int64_t C, int64_t OC) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < OC; ++o) {
      const float* panel = P + o / kPackedPanel * C * kPackedPanel + o % kPackedPanel;
      float sum = 0.0f;
      for (int64_t k = 0; k < C; ++k) sum = std::fma(x[n * C + k], panel[k * kPackedPanel], sum);
      y[n * OC + o] = sum + (b ? b[o] : 0.0f);
    }
}

}  // namespace tinylm::ops::ref
