// ggml's tensor types: sizes, names, and float32 round trips (F32 exact, F16/BF16 as
// util/float16.h rounds, Q8_0 within half a step of its block's scale, as ggml's reference
// quantiser and dequantiser give them).
#include "io/ggml_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "util/error.h"
#include "util/float16.h"

namespace tinylm {
namespace {

std::vector<float> random_values(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

std::vector<float> round_trip(GgmlType type, const std::vector<float>& x) {
  const std::string bytes = ggml_from_float(type, x.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(static_cast<int64_t>(bytes.size()), ggml_bytes(type, static_cast<int64_t>(x.size())));
  std::vector<float> back(x.size());
  ggml_to_float(type, bytes.data(), static_cast<int64_t>(x.size()), back.data());
  return back;
}

TEST(GgmlTypes, NumbersNamesAndSizesAreGgmls) {
  EXPECT_EQ(static_cast<uint32_t>(GgmlType::kQ8_0), 8u);
  EXPECT_EQ(static_cast<uint32_t>(GgmlType::kBF16), 30u);
  EXPECT_EQ(ggml_type_name(8), "Q8_0");
  EXPECT_EQ(ggml_type_name(2), "type 2");  // Q4_0: not read by tinylm
  EXPECT_FALSE(ggml_type_known(2));
  EXPECT_EQ(ggml_bytes(GgmlType::kQ8_0, 64), 68);
  EXPECT_EQ(ggml_bytes(GgmlType::kF16, 5), 10);
  EXPECT_EQ(parse_ggml_type("Q8_0"), GgmlType::kQ8_0);
  EXPECT_THROW(parse_ggml_type("q4_0"), InputError);
}

TEST(GgmlTypes, FloatTypesRoundTripAsFloat16Rounds) {
  const auto x = random_values(101, 1, 3.0f);
  EXPECT_EQ(round_trip(GgmlType::kF32, x), x);
  const auto h = round_trip(GgmlType::kF16, x), b = round_trip(GgmlType::kBF16, x);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(h[i], half_to_float(float_to_half(x[i])));
    EXPECT_EQ(b[i], bf16_to_float(float_to_bf16(x[i])));
  }
}

TEST(GgmlTypes, Q8BlocksHoldAHalfScaleAndRoundedSteps) {
  const auto x = random_values(3 * kQ8Block, 2, 0.5f);
  const std::string bytes = ggml_from_float(GgmlType::kQ8_0, x.data(), 3 * kQ8Block);
  const auto back = round_trip(GgmlType::kQ8_0, x);
  for (int64_t blk = 0; blk < 3; ++blk) {
    float amax = 0;
    for (int64_t j = 0; j < kQ8Block; ++j) amax = std::max(amax, std::fabs(x[blk * kQ8Block + j]));
    uint16_t d_bits;
    std::memcpy(&d_bits, bytes.data() + blk * kQ8BlockBytes, 2);
    const float d = half_to_float(d_bits);
    EXPECT_EQ(d_bits, float_to_half(amax / 127.0f));
    for (int64_t j = 0; j < kQ8Block; ++j) {
      const int64_t i = blk * kQ8Block + j;
      const auto q = static_cast<int8_t>(bytes[blk * kQ8BlockBytes + 2 + j]);
      EXPECT_EQ(q, static_cast<int8_t>(std::round(x[i] / (amax / 127.0f)))) << i;
      EXPECT_EQ(back[i], d * q);
      EXPECT_LE(std::fabs(back[i] - x[i]), 0.5f * amax / 127.0f + 1e-3f * amax) << i;
    }
  }
}

TEST(GgmlTypes, AnAllZeroQ8BlockStaysZeroAndPartialBlocksAreRefused) {
  const std::vector<float> zeros(kQ8Block, 0.0f);
  EXPECT_EQ(round_trip(GgmlType::kQ8_0, zeros), zeros);
  const std::vector<float> odd(kQ8Block + 1, 1.0f);
  EXPECT_THROW(ggml_from_float(GgmlType::kQ8_0, odd.data(), kQ8Block + 1), InputError);
}

}  // namespace
}  // namespace tinylm
