// F16 weights, fast version (see f16.h). Four output rows are read together, so each
// step's 8 inputs are loaded once for them; with F16C one instruction widens 8 halves.
// The next group of 4 rows is fetched into the cache while the first input row computes
// (rows of a few hundred halves are too short a stream for the hardware prefetcher).
#include "ops/f16.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "util/float16.h"

#if defined(__AVX2__) && defined(__F16C__)
#include <immintrin.h>
#define TINYLM_F16C 1
#endif

namespace tinylm::ops {
namespace {

constexpr int64_t kLanes = 8;
constexpr int kOutputs = 4;

#ifdef TINYLM_F16C
using Acc = __m256;
inline Acc zero_acc() {
  return _mm256_setzero_ps();
}
// acc += widen(w[0..8)) * x[0..8)
inline Acc full_step(const uint16_t* w, const float* x, Acc acc) {
  return _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w))),
                         _mm256_loadu_ps(x), acc);
}
// the same for the first n lanes, the others zero
inline Acc step(const uint16_t* w, const float* x, int64_t n, Acc acc) {
  if (n == kLanes) return full_step(w, x, acc);
  uint16_t wp[kLanes] = {};
  float xp[kLanes] = {};
  std::copy(w, w + n, wp);
  std::copy(x, x + n, xp);
  return full_step(wp, xp, acc);
}
// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)), as the portable version
inline float sum_lanes(Acc v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}
#else
struct Acc {
  float l[kLanes];
};
inline Acc zero_acc() {
  return Acc{};
}
inline Acc step(const uint16_t* w, const float* x, int64_t n, Acc acc);
inline Acc full_step(const uint16_t* w, const float* x, Acc acc) {
  return step(w, x, kLanes, acc);
}
inline Acc step(const uint16_t* w, const float* x, int64_t n, Acc acc) {
  for (int64_t l = 0; l < n; ++l) acc.l[l] = std::fma(half_to_float(w[l]), x[l], acc.l[l]);
  for (int64_t l = n; l < kLanes; ++l) acc.l[l] = std::fma(0.0f, 0.0f, acc.l[l]);
  return acc;
}
inline float sum_lanes(const Acc& v) {
  return ((v.l[0] + v.l[4]) + (v.l[2] + v.l[6])) + ((v.l[1] + v.l[5]) + (v.l[3] + v.l[7]));
}
#endif

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
    Acc acc[kOutputs];
    for (Acc& a : acc) a = zero_acc();
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
