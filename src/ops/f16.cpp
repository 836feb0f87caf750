// F16 weights, fast version (see f16.h). Four output rows are read together, so each
// step's 8 inputs are loaded once for them; with F16C one instruction widens 8 halves.
// The next group of 4 rows is fetched into the cache while the first input row computes
// (rows of a few hundred halves are too short a stream for the hardware prefetcher).
#include "ops/f16.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/lanes.h"
#include "util/float16.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define TINYLM_F16C 1
#endif

namespace tinylm::ops {
namespace {

using lanes::kLanes;
using lanes::sum_lanes;  // the fixed tree of ops/lanes.h
using Acc = lanes::Lanes;
constexpr int kOutputs = 4;

// acc += widen(w[0..8)) * x[0..8), one fused multiply-add per lane
#ifdef TINYLM_F16C
inline Acc full_step(const uint16_t* w, const float* x, Acc acc) {
  return _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w))),
                         _mm256_loadu_ps(x), acc);
}
#else
inline Acc full_step(const uint16_t* w, const float* x, Acc acc) {
  for (int64_t l = 0; l < kLanes; ++l) acc[l] = std::fma(half_to_float(w[l]), x[l], acc[l]);
  return acc;
}
#endif
// the same for the first n lanes, the others zero
inline Acc step(const uint16_t* w, const float* x, int64_t n, Acc acc) {
  if (n == kLanes) return full_step(w, x, acc);
  uint16_t wp[kLanes] = {};
  float xp[kLanes] = {};
  std::copy(w, w + n, wp);
  std::copy(x, x + n, xp);
  return full_step(wp, xp, acc);
}

// y[n, o0 + j] for every row n and j < outputs (<= kOutputs).
void output_group(const float* x, const uint16_t* W, const float* b, float* y, int64_t N, int64_t C,
                  int64_t OC, int64_t o0) {
  const int outputs = static_cast<int>(std::min<int64_t>(kOutputs, OC - o0));
  const uint16_t* w[kOutputs];
  for (int j = 0; j < kOutputs; ++j) w[j] = W + (o0 + std::min(j, outputs - 1)) * C;
  const char* next_group =
      o0 + kOutputs < OC ? reinterpret_cast<const char*>(W + (o0 + kOutputs) * C) : nullptr;
  for (int64_t n = 0; n < N; ++n) {
    const char* next = n == 0 ? next_group : nullptr;
    const float* xn = x + n * C;
    Acc acc[kOutputs] = {};
    int64_t k = 0;
    for (; k + kLanes <= C; k += kLanes) {  // whole steps (accumulators stay in registers)
      // the next group's 8 * C bytes, 64 per step
      if (next) __builtin_prefetch(next + 2 * kOutputs * k);
#pragma GCC unroll 4
      for (int j = 0; j < kOutputs; ++j) acc[j] = full_step(w[j] + k, xn + k, acc[j]);
    }
    if (k < C)  // the zero-padded last step
      for (int j = 0; j < kOutputs; ++j) acc[j] = step(w[j] + k, xn + k, C - k, acc[j]);
    for (int j = 0; j < outputs; ++j)
      y[n * OC + o0 + j] = sum_lanes(acc[j]) + (b ? b[o0 + j] : 0.0f);
  }
}

}  // namespace

void to_f16(const float* w, uint16_t* out, int64_t n) {
#pragma omp parallel for schedule(static) if (n >= (1 << 16))
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(w[i]);
}

void linear_forward_f16(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                        int64_t C, int64_t OC) {
  const int64_t groups = (OC + kOutputs - 1) / kOutputs;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t g = 0; g < groups; ++g) output_group(x, W, b, y, N, C, OC, g * kOutputs);
}

}  // namespace tinylm::ops
