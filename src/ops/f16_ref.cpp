// F16 weights, reference version: naive loops, double sums of the widened weights.
#include "ops/f16.h"
#include "util/float16.h"

namespace tinylm::ops::ref {

void to_f16(const float* w, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(w[i]);
}

void linear_forward_f16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                        int64_t C, int64_t OC) {
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < OC; ++o) {
      double sum = b ? b[o] : 0.0;
      for (int64_t i = 0; i < C; ++i)
        sum += static_cast<double>(half_to_float(W[o * C + i])) * x[n * C + i];
      y[n * OC + o] = static_cast<float>(sum);
    }
}

}  // namespace tinylm::ops::ref
