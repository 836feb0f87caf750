// bf16 weights: the rounding against hand-made bit patterns, and the fast bf16 linear
// layer against float32 weights and across thread counts. Fast vs reference on odd
// shapes: the op table test (tests/backend/op_table_test.cpp).
#include "ops/bf16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/gradcheck.h"
#include "ops/matmul.h"
#include "tensor/threads.h"

namespace tinylm::ops {
namespace {

using ops_test::expect_close;
using ops_test::random_vec;

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  // 1 + 2^-8 is half-way between 1 and 1 + 2^-7: ties go to the even mantissa (1.0).
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808000u)), 0x3f80);
  // (1 + 2^-7) + 2^-8 is half-way too: ties go up to the even 1 + 2^-6.
  EXPECT_EQ(float_to_bf16(from_bits(0x3f818000u)), 0x3f82);
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808001u)), 0x3f81);     // just above half-way
  EXPECT_EQ(bf16_to_float(float_to_bf16(0.15625f)), 0.15625f);  // exact in 8 bits
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(bf16_to_float(float_to_bf16(std::numeric_limits<float>::infinity()))));
  // The rounding error is at most half a unit in the 8th significant bit: 2^-8 relative.
  Rng rng(3);
  for (float v : random_vec(1000, rng, 100.0f))
    EXPECT_LE(std::abs(bf16_to_float(float_to_bf16(v)) - v), std::abs(v) * (1.0f / 256)) << v;
}

TEST(Bf16, LinearIsCloseToFloat32AndIndependentOfThreads) {
  Rng rng(7);
  const int64_t C = 768, OC = 2304;  // GPT-2's c_attn
  const auto x = random_vec(C, rng), w = random_vec(OC * C, rng, 0.02f);
  std::vector<uint16_t> wb(w.size());
  to_bf16(w.data(), wb.data(), OC * C);
  std::vector<float> y32(OC), one(OC), two(OC);
  ref::linear_forward(x.data(), w.data(), nullptr, y32.data(), 1, C, OC);
  set_num_threads(1);
  linear_forward_bf16(x.data(), wb.data(), nullptr, one.data(), 1, C, OC);
  set_num_threads(2);
  linear_forward_bf16(x.data(), wb.data(), nullptr, two.data(), 1, C, OC);
  set_num_threads(0);
  EXPECT_EQ(one, two);
  expect_close("bf16 vs float32 weights", one, y32, 1e-2, 5e-3);  // weights rounded to 8 bits
}

}  // namespace
}  // namespace tinylm::ops
