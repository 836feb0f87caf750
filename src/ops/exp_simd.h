// exp(x) for float in plain arithmetic, so that `omp simd` loops vectorise it (a libm
// call would keep the loop scalar: glibc's vector expf is only declared under
// -ffast-math; GCC also needs -fno-trapping-math, CMakeLists.txt, to vectorise the
// selects). Relative error below 3e-7 over the float range (tested against
// std::exp in tests/ops/exp_simd_test.cpp); exp(-inf) = 0, underflow gives 0, overflow
// gives +inf, NaN stays NaN.
//   x = n ln2 + r, |r| <= ln2 / 2 ;  exp(x) = 2^n * p(r), p a degree-6 Taylor polynomial
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

namespace tinylm::ops {

inline float exp_simd(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;  // ln 2 split in two, so n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kMaxArg = 88.3762626647949f;   // exp(kMaxArg) is just below FLT_MAX
  constexpr float kMinArg = -87.3365447505531f;  // exp(kMinArg) = FLT_MIN (normal)
  constexpr float kRound = 12582912.0f;          // 1.5 * 2^23: adding it rounds to an integer
  // (Selects and the rounding constant instead of fmin, floor and a float -> int cast,
  // which keep GCC from vectorising the loop.)
  float xc = x < kMinArg ? kMinArg : x;
  xc = xc > kMaxArg ? kMaxArg : xc;
  const float shifted = xc * kLog2e + kRound;  // n in the low mantissa bits
  const float n = shifted - kRound;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n from its exponent bits, as two factors so that n = -126 or 128 stay in range.
  const int32_t e = std::bit_cast<int32_t>(shifted) - std::bit_cast<int32_t>(kRound);
  const float half_scale = std::bit_cast<float>(((e >> 1) + 127) << 23);
  const float rest_scale = std::bit_cast<float>(((e - (e >> 1)) + 127) << 23);
  float y = p * half_scale * rest_scale;
  y = x < kMinArg ? 0.0f : y;
  y = x > kMaxArg ? HUGE_VALF : y;
  return x != x ? x : y;
}

}  // namespace tinylm::ops
