// bf16 weights, fast versions (see bf16.h): the 16-bit product of ops/linear_16bit.h,
// where widening 8 bf16 values is one zero-extension and one shift (AVX2).
#include "ops/bf16.h"

#include "ops/linear_16bit.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tinylm::ops {
namespace {

struct WidenBf16 {
  static lanes::Lanes lanes(const uint16_t* w) {
#if defined(__AVX2__)
    const __m256i wide =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
#else
    lanes::Lanes v;
    for (int64_t l = 0; l < lanes::kLanes; ++l) v[l] = bf16_to_float(w[l]);
    return v;
#endif
  }
};

}  // namespace

// GCC vectorises this loop with the widest vectors -march=native has (AVX-512 on Zen 4/5
// and Xeon: 16 values per step, -fopt-info-vec says so), the NaN test a lane select; it
// is how ops/matmul_bf16.cpp rounds the operands of every bf16 product.
void to_bf16(const float* w, uint16_t* out, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_bf16(w[i]);
}

void linear_forward_bf16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                         int64_t C, int64_t OC) {
  linear_16bit::linear_forward_16bit<WidenBf16>(x, W, b, y, N, C, OC);
}

}  // namespace tinylm::ops
