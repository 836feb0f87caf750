// 16-bit floats: every half widens and narrows back to itself; narrowing picks the
// nearest half (ties to even) for random floats, overflows to infinity past 65520, keeps
// subnormals, signs and NaN; bf16 as ops/bf16.h has always rounded.
#include "util/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

namespace tinylm {
namespace {

TEST(Float16, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f)))) << std::hex << h;
      continue;
    }
    EXPECT_EQ(float_to_half(f), h) << std::hex << h;
  }
}

// The half nearest to f, found by widening candidates (ties to the even mantissa).
uint16_t nearest_half(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000u : 0u;
  const double a = std::fabs(static_cast<double>(f));
  uint16_t best = 0;
  double best_diff = std::numeric_limits<double>::infinity();
  for (uint16_t m = 0; m <= 0x7BFFu; ++m) {  // every finite non-negative half
    const double diff = std::fabs(static_cast<double>(half_to_float(m)) - a);
    if (diff < best_diff || (diff == best_diff && (m & 1u) == 0)) best = m, best_diff = diff;
  }
  return sign | best;
}

TEST(Float16, NarrowingPicksTheNearestHalf) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> log_scale(-26.0f, 16.0f);
  for (int i = 0; i < 300; ++i) {
    const float f = std::copysign(std::exp2(log_scale(gen)), i % 2 ? 1.0f : -1.0f);
    if (std::fabs(f) >= 65504.0f) continue;
    EXPECT_EQ(float_to_half(f), nearest_half(f)) << f;
  }
  // Exact midpoints between two halves go to the even one.
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3C00u);      // 1 | 1 + 2^-10: to 1
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3C02u);  // to 1 + 2^-9
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000u);             // half the least subnormal
  EXPECT_EQ(float_to_half(3 * 0x1p-25f), 0x0002u);         // 1.5 subnormal steps
}

TEST(Float16, OverflowSignsAndNaN) {
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFFu);
  EXPECT_EQ(float_to_half(65519.99f), 0x7BFFu);
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00u);
  EXPECT_EQ(float_to_half(-1e30f), 0xFC00u);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00u);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000u);
  EXPECT_EQ(float_to_half(1e-10f), 0x0000u);
  const uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00u, 0x7C00u);
  EXPECT_NE(nan & 0x03FFu, 0u);
}

TEST(Float16, Bf16RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80u);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80u);  // tie, even stays
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82u);  // tie, odd rounds up
  EXPECT_EQ(bf16_to_float(0x3F80u), 1.0f);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
}

}  // namespace
}  // namespace tinylm
