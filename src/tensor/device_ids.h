// A copy of token ids (or targets) where a kernel reads them: in host memory for the CPU,
// in the device's memory otherwise, kept (for backward) and reused from call to call (it
// grows to the largest batch seen). For the models that take host ids and run on any
// device.
//   DeviceIds ids;
//   const int32_t* p = ids.on(Device::kCuda, host_ids, n);   // device memory, n ids
#pragma once
#include <cstdint>
#include <vector>

#include "tensor/device.h"

namespace tinylm {

class DeviceIds {
 public:
  DeviceIds() = default;
  ~DeviceIds() { release(); }
  DeviceIds(const DeviceIds&) = delete;
  DeviceIds& operator=(const DeviceIds&) = delete;
  DeviceIds(DeviceIds&& other) noexcept { swap(other); }
  DeviceIds& operator=(DeviceIds&& other) noexcept {
    swap(other);
    return *this;
  }

  // A copy of host [n] on device, valid until the next call.
  const int32_t* on(Device device, const int32_t* host, int64_t n);

 private:
  void release();
  void swap(DeviceIds& other) noexcept;
  std::vector<int32_t> host_;  // the copy when the device is the CPU
  Device device_ = Device::kCpu;
  int32_t* data_ = nullptr;
  int64_t capacity_ = 0;
};

}  // namespace tinylm
