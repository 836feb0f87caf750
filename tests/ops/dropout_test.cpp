// Dropout: p = 0 is the identity, the mask is dropout_draw_mask's and follows the key, a
// skipped key draws the rest of the mask, the kept fraction is near 1 - p, kept values are
// scaled by 1 / (1 - p), backward. Ref and fast draw the same mask from the same key: the
// op table test (tests/backend/op_table_test.cpp).
#include "ops/dropout.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/gradcheck.h"
#include "util/counter_rng.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

using ops_test::bit_equal;
using ops_test::random_vec;

TEST(Dropout, ZeroProbabilityIsIdentity) {
  Rng data(60);
  const int64_t N = 1001;
  const auto x = random_vec(N, data);
  std::vector<float> y(N), mask(N), yr(N), mask_r(N);
  dropout_forward(x.data(), y.data(), mask.data(), N, 0.0f, 7);
  ref::dropout_forward(x.data(), yr.data(), mask_r.data(), N, 0.0f, 7);
  EXPECT_TRUE(bit_equal(y, x));
  EXPECT_TRUE(bit_equal(yr, x));
  EXPECT_EQ(mask, std::vector<float>(N, 1.0f));
  EXPECT_EQ(mask_r, mask);
}

TEST(Dropout, MaskIsDropoutDrawMaskAndFollowsTheKey) {
  Rng data(61);
  for (int64_t N : {1, 7, 33, 65, 100000})
    for (float p : {0.1f, 0.5f, 0.9f}) {
      const auto x = random_vec(N, data);
      std::vector<float> y(N), mask(N), other_mask(N), drawn(N);
      dropout_forward(x.data(), y.data(), mask.data(), N, p, 123);
      dropout_draw_mask(drawn.data(), N, p, 123);
      EXPECT_TRUE(bit_equal(drawn, mask));
      // a different key gives a different mask (for more than a handful of elements)
      if (N >= 1000) {
        dropout_forward(x.data(), y.data(), other_mask.data(), N, p, 124);
        EXPECT_FALSE(bit_equal(mask, other_mask));
      }
    }
}

// What keys dropout by sequence (nn::Context::dropout_key): the mask of rows [r, B) of a
// batch is the mask drawn for those rows alone from the key skipped by r rows.
TEST(Dropout, ASkippedKeyDrawsTheRestOfTheMask) {
  const int64_t rows = 6, row = 35, N = rows * row;
  const uint64_t key = 0x1234567890ABCDEFull;
  std::vector<float> whole(N);
  dropout_draw_mask(whole.data(), N, 0.5f, key);
  for (int64_t first = 0; first < rows; ++first) {
    std::vector<float> part((rows - first) * row);
    dropout_draw_mask(part.data(), static_cast<int64_t>(part.size()), 0.5f,
                      counter_skip(key, first * row));
    EXPECT_TRUE(bit_equal(part, std::vector<float>(whole.begin() + first * row, whole.end())))
        << "from row " << first;
  }
}

TEST(Dropout, KeptFractionAndScaling) {
  Rng data(62);
  const int64_t N = 200000;
  const auto x = random_vec(N, data);
  for (float p : {0.1f, 0.3f, 0.5f, 0.8f}) {
    std::vector<float> y(N), mask(N);
    dropout_forward(x.data(), y.data(), mask.data(), N, p, 5);
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
  std::vector<float> y(N), mask(N), dx(N);
  dropout_forward(x.data(), y.data(), mask.data(), N, 0.4f, 9);
  dropout_backward(dy.data(), mask.data(), dx.data(), N);
  for (int64_t i = 0; i < N; ++i) EXPECT_EQ(dx[i], dy[i] * mask[i]);
}

TEST(Dropout, ProbabilityOneDropsEverythingAndBadProbabilityThrows) {
  const std::vector<float> x = {1, 2, 3};
  std::vector<float> y(3), mask(3);
  dropout_forward(x.data(), y.data(), mask.data(), 3, 1.0f, 1);
  EXPECT_EQ(y, std::vector<float>(3, 0.0f));
  EXPECT_EQ(mask, std::vector<float>(3, 0.0f));
  for (float bad : {-0.1f, 1.5f, NAN}) {
    EXPECT_THROW(dropout_forward(x.data(), y.data(), mask.data(), 3, bad, 1), InputError);
    EXPECT_THROW(ref::dropout_forward(x.data(), y.data(), mask.data(), 3, bad, 1), InputError);
  }
}

}  // namespace
}  // namespace tinylm::ops
