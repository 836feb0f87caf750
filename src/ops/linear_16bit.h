// The product of float32 rows with 16-bit weights (f16 or bf16), shared by ops/f16.cpp
// and ops/bf16.cpp, which differ only in how 8 weights widen to float32:
//   linear_forward_16bit<Widen>: x [N, C], W [OC, C] 16-bit, b [OC] (may be null)
//                                -> y [N, OC] = x W^T + b
// Widen::lanes(w) gives the 8 floats of w[0 .. 8).
// Four output rows are read together, so each step's 8 inputs are loaded once for them.
// The next group of 4 rows is fetched into the cache while the first input row computes
// (rows of a few hundred 16-bit values are too short a stream for the hardware
// prefetcher). Each output is one dot product in a fixed order: 8 float lanes (a
// zero-padded last step), one fused multiply-add per lane and step, the lanes added in
// the fixed tree of ops/lanes.h, so the result does not depend on the instruction set,
// the thread count or the other rows (row-invariant, as linear_forward_rows).
// Internal to the two kernels' files: include it from a .cpp only.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ops/lanes.h"

#if defined(__FMA__)
#include <immintrin.h>
#endif

namespace tinylm::ops::linear_16bit {

using lanes::kLanes;
using Acc = lanes::Lanes;
inline constexpr int kOutputs = 4;

// a * b + c, one fused multiply-add per lane
inline Acc fused(Acc a, Acc b, Acc c) {
#if defined(__FMA__)
  return _mm256_fmadd_ps(a, b, c);
#else
  for (int64_t l = 0; l < kLanes; ++l) c[l] = std::fma(a[l], b[l], c[l]);
  return c;
#endif
}

// acc + widen(w[0 .. 8)) * x[0 .. 8)
template <class Widen>
inline Acc full_step(const uint16_t* w, const float* x, Acc acc) {
  return fused(Widen::lanes(w), lanes::load(x), acc);
}

// the same for the first n lanes, the others zero
template <class Widen>
inline Acc step(const uint16_t* w, const float* x, int64_t n, Acc acc) {
  if (n == kLanes) return full_step<Widen>(w, x, acc);
  uint16_t wp[kLanes] = {};
  float xp[kLanes] = {};
  std::copy(w, w + n, wp);
  std::copy(x, x + n, xp);
  return full_step<Widen>(wp, xp, acc);
}

// y[n, o0 + j] for every row n and j < outputs (<= kOutputs).
template <class Widen>
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
      for (int j = 0; j < kOutputs; ++j) acc[j] = full_step<Widen>(w[j] + k, xn + k, acc[j]);
    }
    if (k < C)  // the zero-padded last step
      for (int j = 0; j < kOutputs; ++j) acc[j] = step<Widen>(w[j] + k, xn + k, C - k, acc[j]);
    for (int j = 0; j < outputs; ++j)
      y[n * OC + o0 + j] = lanes::sum_lanes(acc[j]) + (b ? b[o0 + j] : 0.0f);
  }
}

template <class Widen>
void linear_forward_16bit(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                          int64_t C, int64_t OC) {
  const int64_t groups = (OC + kOutputs - 1) / kOutputs;
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t g = 0; g < groups; ++g) output_group<Widen>(x, W, b, y, N, C, OC, g * kOutputs);
}

}  // namespace tinylm::ops::linear_16bit
