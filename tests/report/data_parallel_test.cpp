// The data-parallel prediction of tinylm info: a ring all-reduce's bytes and time.
#include "report/data_parallel.h"

#include <gtest/gtest.h>

namespace tinylm::report {
namespace {

TEST(DataParallelPlan, ARingMovesTwiceTheGradientsLessOneShare) {
  // 1 GB of gradients, a 0.8 s step.
  const DataParallelPlan p = plan_data_parallel(250'000'000, 0.8);
  EXPECT_EQ(p.gradient_bytes, 1'000'000'000);
  ASSERT_EQ(p.rows.size(), 8u);
  const DataParallelRow& two = p.rows[0];  // 2 machines at 10 Gbit/s: 1 GB each way
  EXPECT_EQ(two.machines, 2);
  EXPECT_DOUBLE_EQ(two.gbit_per_s, 10);
  EXPECT_NEAR(two.allreduce_seconds, 0.8, 1e-12);
  EXPECT_NEAR(two.efficiency, 0.5, 1e-12);
  EXPECT_NEAR(two.speedup, 1.0, 1e-12);
  const DataParallelRow& sixteen_fast = p.rows[7];  // 16 at 100 Gbit/s: 1.875 GB
  EXPECT_EQ(sixteen_fast.machines, 16);
  EXPECT_NEAR(sixteen_fast.allreduce_seconds, 0.15, 1e-12);
  EXPECT_NEAR(sixteen_fast.speedup, 16 * 0.8 / 0.95, 1e-9);
  EXPECT_NE(render_data_parallel(p).find("1000.0 MB"), std::string::npos);
}

}  // namespace
}  // namespace tinylm::report
