#include "optim/schedule.h"

#include <gtest/gtest.h>

namespace tinylm {

TEST(LrSchedule, WarmupThenCosineToMinLr) {
  LrSchedule s{1e-3, 1e-4, 100, 2000};
  EXPECT_NEAR(s.at(0), 1e-3 / 101, 1e-12);
  EXPECT_NEAR(s.at(99), 1e-3 * 100 / 101, 1e-12);
  EXPECT_NEAR(s.at(100), 1e-3, 1e-12);                // peak
  EXPECT_NEAR(s.at(1050), (1e-3 + 1e-4) / 2, 1e-12);  // halfway: cos(pi/2) = 0
  EXPECT_NEAR(s.at(2000), 1e-4, 1e-12);
  EXPECT_NEAR(s.at(5000), 1e-4, 1e-12);
  for (int64_t t = 101; t < 2000; ++t) EXPECT_LE(s.at(t), s.at(t - 1));  // monotone decay
}

TEST(LrSchedule, ConstantWithoutDecay) {
  LrSchedule s{3e-4, 0, 0, 0};
  EXPECT_EQ(s.at(0), 3e-4);
  EXPECT_EQ(s.at(12345), 3e-4);
}

}  // namespace tinylm
