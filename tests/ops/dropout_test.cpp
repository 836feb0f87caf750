// Dropout: p = 0 is the identity, the mask is dropout_draw_mask's and follows the seed,
// the kept fraction is near 1 - p, kept values are scaled by 1 / (1 - p), backward. Ref and
// fast draw the same mask from the same seed: the op table test
// (tests/backend/op_table_test.cpp).
#include "ops/dropout.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::bit_equal;
using ops_test::random_vec;

TEST(Dropout, ZeroProbabilityIsIdentityAndDrawsNothing) {
  Rng data(60);
  const int64_t N = 1001;
  const auto x = random_vec(N, data);
  Rng rng(7), rng_r(7);
  std::vector<float> y(N), mask(N), yr(N), mask_r(N);
  dropout_forward(x.data(), y.data(), mask.data(), N, 0.0f, rng);
  ref::dropout_forward(x.data(), yr.data(), mask_r.data(), N, 0.0f, rng_r);
  EXPECT_TRUE(bit_equal(y, x));
  EXPECT_TRUE(bit_equal(yr, x));
  EXPECT_EQ(mask, std::vector<float>(N, 1.0f));
  EXPECT_EQ(mask_r, mask);
  EXPECT_EQ(rng.state(), Rng(7).state());
  EXPECT_EQ(rng_r.state(), Rng(7).state());
}

TEST(Dropout, MaskIsDropoutDrawMaskAndFollowsTheSeed) {
  Rng data(61);
  for (int64_t N : {1, 7, 33, 65, 100000})
    for (float p : {0.1f, 0.5f, 0.9f}) {
      const auto x = random_vec(N, data);
      Rng rng(123);
      std::vector<float> y(N), mask(N), other_mask(N), drawn(N);
      dropout_forward(x.data(), y.data(), mask.data(), N, p, rng);
      Rng rng_d(123);
      dropout_draw_mask(drawn.data(), N, p, rng_d);
      EXPECT_TRUE(bit_equal(drawn, mask));
      // a different seed gives a different mask (for more than a handful of elements)
      if (N >= 1000) {
        Rng other(124);
        dropout_forward(x.data(), y.data(), other_mask.data(), N, p, other);
        EXPECT_FALSE(bit_equal(mask, other_mask));
      }
    }
}

TEST(Dropout, KeptFractionAndScaling) {
  Rng data(62);
  const int64_t N = 200000;
  const auto x = random_vec(N, data);
  for (float p : {0.1f, 0.3f, 0.5f, 0.8f}) {
    Rng rng(5);
    std::vector<float> y(N), mask(N);
    dropout_forward(x.data(), y.data(), mask.data(), N, p, rng);
    int64_t kept = 0;
    const float scale = 1.0f / (1.0f - p);
    for (int64_t i = 0; i < N; ++i) {
      if (mask[i] != 0.0f) {
        ++kept;
        EXPECT_EQ(mask[i], scale);
        EXPECT_FLOAT_EQ(y[i], x[i] * scale);
      } else {
        EXPECT_EQ(y[i], 0.0f);
      }
    }
    // binomial standard deviation is sqrt(N p (1-p)) / N < 0.0012; allow 5 sigma
    EXPECT_NEAR(static_cast<double>(kept) / N, 1.0 - p, 0.006) << p;
  }
}

TEST(Dropout, BackwardMultipliesByMask) {
  Rng data(63);
  const int64_t N = 777;
  const auto x = random_vec(N, data), dy = random_vec(N, data);
  Rng rng(9);
  std::vector<float> y(N), mask(N), dx(N);
  dropout_forward(x.data(), y.data(), mask.data(), N, 0.4f, rng);
  dropout_backward(dy.data(), mask.data(), dx.data(), N);
  for (int64_t i = 0; i < N; ++i) EXPECT_EQ(dx[i], dy[i] * mask[i]);
}

TEST(Dropout, ProbabilityOneDropsEverythingAndBadProbabilityThrows) {
  const std::vector<float> x = {1, 2, 3};
  std::vector<float> y(3), mask(3);
  Rng rng(1);
  dropout_forward(x.data(), y.data(), mask.data(), 3, 1.0f, rng);
  EXPECT_EQ(y, std::vector<float>(3, 0.0f));
  EXPECT_EQ(mask, std::vector<float>(3, 0.0f));
  for (float bad : {-0.1f, 1.5f, NAN}) {
    EXPECT_THROW(dropout_forward(x.data(), y.data(), mask.data(), 3, bad, rng), InputError);
    EXPECT_THROW(ref::dropout_forward(x.data(), y.data(), mask.data(), 3, bad, rng), InputError);
  }
}

}  // namespace
}  // namespace tinylm::ops
