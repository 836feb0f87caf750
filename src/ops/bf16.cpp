// bf16 weights, fast versions (see bf16.h).
#include "ops/bf16.h"

namespace tinylm::ops {

void to_bf16(const float* w, uint16_t* out, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_bf16(w[i]);
}

void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC) {
  // One row of W per iteration: W is read once per input row, in order, which is what a
  // bandwidth-bound product wants. Sixteen partial sums per row (one AVX-512 register)
  // keep the loop vectorised; they are added in a fixed order, so the result does not
  // depend on the thread count.
  constexpr int kLanes = 16;
  for (int64_t n = 0; n < N; ++n) {
    const float* xn = x + n * C;
    float* yn = y + n * OC;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
    for (int64_t o = 0; o < OC; ++o) {
      const uint16_t* w = W + o * C;
      float acc[kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= C; i += kLanes) {
#pragma omp simd
        for (int l = 0; l < kLanes; ++l) {
          const uint32_t bits = static_cast<uint32_t>(w[i + l]) << 16;
          float wf;
          std::memcpy(&wf, &bits, sizeof wf);
          acc[l] += wf * xn[i + l];
        }
      }
      float sum = 0.0f;
      for (int l = 0; l < kLanes; ++l) sum += acc[l];
      for (; i < C; ++i) sum += bf16_to_float(w[i]) * xn[i];
      yn[o] = b ? sum + b[o] : sum;
    }
  }
}

}  // namespace tinylm::ops
