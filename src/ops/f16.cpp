// F16 weights, fast version (see f16.h): the 16-bit product of ops/linear_16bit.h, where
// with F16C one instruction widens 8 halves.
#include "ops/f16.h"

#include "ops/linear_16bit.h"
#include "util/float16.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define TINYLM_F16C 1
#endif

namespace tinylm::ops {
namespace {

struct WidenHalves {
  static lanes::Lanes lanes(const uint16_t* w) {
#ifdef TINYLM_F16C
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
#else
    lanes::Lanes v;
    for (int64_t l = 0; l < lanes::kLanes; ++l) v[l] = half_to_float(w[l]);
    return v;
#endif
  }
};

}  // namespace

void to_f16(const float* w, uint16_t* out, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(w[i]);
}

void linear_forward_f16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                        int64_t C, int64_t OC) {
  linear_16bit::linear_forward_16bit<WidenHalves>(x, W, b, y, N, C, OC);
}

}  // namespace tinylm::ops
