// The product of float32 rows with 16-bit weights (f16 or bf16), shared by ops/f16.cpp
// and ops/bf16.cpp, which differ only in how 8 weights widen to float32:
//   linear_forward_16bit<Widen>: x [N, C], W [OC, C] 16-bit, b [OC] (may be null)
//                                -> y [N, OC] = x W^T + b
// Widen::lanes(w) gives the 8 floats of w[0 .. 8).
// Each output row is read once, in order, and each output is one dot product in a fixed
// order: steps of 8 float lanes (a zero-padded last step) spread over 4 partial sums
// (step i into sum i % 4), one fused multiply-add per lane and step, the sums added as
// (s0 + s1) + (s2 + s3) and the lanes in the fixed tree of ops/lanes.h, so the result
// does not depend on the instruction set, the thread count or the other rows
// (row-invariant, as linear_forward_rows). Rows are split over the threads in
// contiguous ranges, so each thread streams its part of W front to back.
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
inline constexpr int kSplit = 4;      // partial sums per dot product
inline constexpr int64_t kAhead = 4;  // rows between the one computing and the one fetched

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

// The dot product of one output row's 16-bit weights w [C] with one input row x [C]:
// step i (inputs 8i .. 8i + 8, the last one zero-padded) goes into partial sum i % 4.
// Four independent chains of multiply-adds hide the FMA latency while w streams in order.
// With `ahead` (not null), the same span of another row is fetched into the cache, one
// line per 32 weights.
template <class Widen>
float dot(const uint16_t* w, const float* x, int64_t C, const uint16_t* ahead) {
  Acc acc[kSplit] = {};
  int64_t k = 0;
  for (; k + kSplit * kLanes <= C; k += kSplit * kLanes) {  // four whole steps
    if (ahead) __builtin_prefetch(ahead + k);
#pragma GCC unroll 4
    for (int s = 0; s < kSplit; ++s)
      acc[s] = full_step<Widen>(w + k + s * kLanes, x + k + s * kLanes, acc[s]);
  }
  for (int s = 0; k < C; k += kLanes, ++s)  // up to three steps more, the last one padded
    acc[s] = step<Widen>(w + k, x + k, std::min<int64_t>(kLanes, C - k), acc[s]);
  return lanes::sum_lanes((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

// y[n, o] for every row n. While the first row computes, the weights kAhead rows further
// on are fetched (the hardware prefetcher alone ramps up too slowly over rows of a few
// hundred weights).
template <class Widen>
void output_row(const float* x, const uint16_t* W, const float* b, float* y, int64_t N, int64_t C,
                int64_t OC, int64_t o) {
  const uint16_t* w = W + o * C;
  const uint16_t* ahead = o + kAhead < OC ? W + (o + kAhead) * C : nullptr;
  for (int64_t n = 0; n < N; ++n)
    y[n * OC + o] = dot<Widen>(w, x + n * C, C, n == 0 ? ahead : nullptr) + (b ? b[o] : 0.0f);
}

template <class Widen>
void linear_forward_16bit(const float* x, const uint16_t* W, const float* b, float* y, int64_t N,
                          int64_t C, int64_t OC) {
#pragma omp parallel for schedule(static) if (OC * C >= (1 << 16))
  for (int64_t o = 0; o < OC; ++o) output_row<Widen>(x, W, b, y, N, C, OC, o);
}

}  // namespace tinylm::ops::linear_16bit
