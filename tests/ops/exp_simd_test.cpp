// exp_simd (the vectorisable exp of the fast kernels) against std::exp in double: relative
// error over the float range, the special values, and that it keeps the monotonicity the
// softmax relies on near 0.
#include "ops/exp_simd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace tinylm::ops {
namespace {

TEST(ExpSimd, RelativeErrorBelow3e7OverTheRange) {
  double worst = 0.0;
  for (float x = -87.0f; x < 88.3f; x += 0.000731f) {
    const double exact = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::fabs(exp_simd(x) - exact) / exact);
  }
  EXPECT_LT(worst, 3e-7);
}

TEST(ExpSimd, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(exp_simd(0.0f), 1.0f);
  EXPECT_EQ(exp_simd(-inf), 0.0f);
  EXPECT_EQ(exp_simd(-100.0f), 0.0f);  // below FLT_MIN: flushed to zero
  EXPECT_EQ(exp_simd(inf), inf);
  EXPECT_EQ(exp_simd(100.0f), inf);
  EXPECT_TRUE(std::isnan(exp_simd(std::nanf(""))));
  EXPECT_NEAR(exp_simd(1.0f), 2.718281828f, 3e-7f);
}

TEST(ExpSimd, VectorisedLoopMatchesScalarCalls) {
  std::vector<float> x(1000), y(1000);
  for (int i = 0; i < 1000; ++i) x[i] = -20.0f + 0.04f * static_cast<float>(i);
#pragma omp simd
  for (int i = 0; i < 1000; ++i) y[i] = exp_simd(x[i]);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(y[i], exp_simd(x[i])) << x[i];
  for (int i = 1; i < 1000; ++i) EXPECT_GE(y[i], y[i - 1]) << x[i];
}

}  // namespace
}  // namespace tinylm::ops
