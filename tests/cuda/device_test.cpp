// The CUDA device: whether a GPU is there (with the runtime's reason when not), and memory
// on it. Skipped on a machine without a GPU. The kernels are tested against ops::ref in
// the op table test (tests/backend/op_table_test.cpp), through the "cuda" backend.
#include "cuda/device.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tinylm::cuda {
namespace {

TEST(CudaDevice, ReportsWhetherAGpuIsThere) {
  std::string why;
  const int n = device_count(&why);
  if (n == 0) {
    EXPECT_FALSE(why.empty());  // the runtime's reason, for the user's message
    EXPECT_THROW(require_device("--device cuda"), std::exception);
    GTEST_SKIP() << "no CUDA GPU: " << why;
  }
  EXPECT_NO_THROW(require_device("--device cuda"));
  EXPECT_FALSE(describe_device().empty());
  DeviceBuffer<float> buf(std::vector<float>{1.0f, -2.0f, 3.5f});
  EXPECT_EQ(buf.download(), (std::vector<float>{1.0f, -2.0f, 3.5f}));
  buf.zero();
  EXPECT_EQ(buf.download(), (std::vector<float>{0.0f, 0.0f, 0.0f}));
}

}  // namespace
}  // namespace tinylm::cuda
