// Tensors on a device other than the CPU allocate, copy and free through the memory
// functions that device registered. No GPU here: a stand-in registers host memory for
// Device::kCuda and counts the calls, which is what the routing is about.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "tensor/device.h"
#include "tensor/tensor.h"
#include "util/error.h"

namespace tinylm {
namespace {

struct Calls {
  int alloc = 0, free = 0, to_device = 0, to_host = 0, zero = 0;
};
Calls calls;

void* fake_alloc(size_t bytes) {
  ++calls.alloc;
  return std::malloc(bytes);
}
void fake_free(void* p) {
  ++calls.free;
  std::free(p);
}
void fake_to_device(void* dst, const void* src, size_t bytes) {
  ++calls.to_device;
  std::memcpy(dst, src, bytes);
}
void fake_to_host(void* dst, const void* src, size_t bytes) {
  ++calls.to_host;
  std::memcpy(dst, src, bytes);
}
void fake_zero(void* p, size_t bytes) {
  ++calls.zero;
  std::memset(p, 0, bytes);
}

class DeviceTensor : public ::testing::Test {
 protected:
  void SetUp() override {
    register_device_memory(Device::kCuda,
                           {fake_alloc, fake_free, fake_to_device, fake_to_host, fake_zero});
    calls = {};
  }
};

TEST(Device, NamesParseAndUnknownIsRefused) {
  EXPECT_EQ(parse_device("cpu"), Device::kCpu);
  EXPECT_EQ(parse_device("cuda"), Device::kCuda);
  EXPECT_STREQ(device_name(Device::kCuda), "cuda");
  try {
    parse_device("tpu");
    FAIL() << "tpu parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'tpu'"), std::string::npos) << e.what();
  }
}

TEST(Device, CpuMemoryCannotBeReplaced) {
  EXPECT_THROW(register_device_memory(Device::kCpu, device_memory(Device::kCpu)), InputError);
  EXPECT_TRUE(has_device_memory(Device::kCpu));
}

TEST_F(DeviceTensor, AllocatesAndFreesThroughTheDevice) {
  {
    Tensor t = Tensor::empty({2, 3}, Device::kCuda);
    EXPECT_EQ(t.device(), Device::kCuda);
    EXPECT_EQ(calls.alloc, 1);
    Tensor view = t.reshaped({3, 2});  // shares the storage
    EXPECT_EQ(view.device(), Device::kCuda);
    EXPECT_EQ(calls.alloc, 1);
  }
  EXPECT_EQ(calls.free, 1);
}

TEST_F(DeviceTensor, RoundTripThroughTheDeviceKeepsEveryNumber) {
  const Tensor host = Tensor::from({2, 2}, {1.5f, -2.0f, 3.25f, 0.0f});
  const Tensor there = host.to(Device::kCuda);
  EXPECT_EQ(calls.to_device, 1);
  EXPECT_EQ(there.to(Device::kCuda).data(), there.data());  // already there: no copy
  EXPECT_EQ(there.to_vector(), host.to_vector());
  EXPECT_EQ(calls.to_host, 1);
  const Tensor back = there.clone().to(Device::kCpu);  // the clone stays on the device
  EXPECT_EQ(back.device(), Device::kCpu);
  EXPECT_EQ(back.to_vector(), host.to_vector());
}

TEST_F(DeviceTensor, ZerosAndEnsureShapeStayOnTheDevice) {
  Tensor z = Tensor::zeros({5}, Device::kCuda);
  EXPECT_EQ(calls.zero, 1);
  EXPECT_EQ(z.to_vector(), std::vector<float>(5, 0.0f));
  z.ensure_shape({7});
  EXPECT_EQ(z.device(), Device::kCuda);
  EXPECT_EQ(calls.alloc, 2);
  EXPECT_THROW(z.fill(1.0f), InputError);  // only zero on a device
}

TEST_F(DeviceTensor, CopyFromCrossesDevicesBothWays) {
  Tensor there = Tensor::empty({3}, Device::kCuda);
  there.copy_from(Tensor::from({3}, {1, 2, 3}));
  Tensor host = Tensor::empty({3});
  host.copy_from(there);
  EXPECT_EQ(host.to_vector(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(calls.to_device, 1);
  EXPECT_EQ(calls.to_host, 1);
}

}  // namespace
}  // namespace tinylm
