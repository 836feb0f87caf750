#include "tensor/device_ids.h"

#include <algorithm>
#include <utility>

namespace tinylm {

const int32_t* DeviceIds::on(Device device, const int32_t* host, int64_t n) {
  if (device == Device::kCpu) {
    host_.assign(host, host + n);
    return host_.data();
  }
  if (device != device_ || n > capacity_) {
    release();
    const int64_t capacity = std::max<int64_t>(n, 1);
    data_ = static_cast<int32_t*>(device_memory(device).alloc(sizeof(int32_t) * capacity));
    device_ = device;
    capacity_ = capacity;
  }
  if (n > 0) device_memory(device).to_device(data_, host, sizeof(int32_t) * n);
  return data_;
}

void DeviceIds::swap(DeviceIds& other) noexcept {
  std::swap(host_, other.host_);
  std::swap(device_, other.device_);
  std::swap(data_, other.data_);
  std::swap(capacity_, other.capacity_);
}

void DeviceIds::release() {
  if (data_) device_memory(device_).free(data_);
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace tinylm
