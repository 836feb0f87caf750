#include "tensor/device.h"

#include <cstring>
#include <string>

#include "util/aligned.h"
#include "util/error.h"

namespace tinylm {
namespace {

// On 64-byte boundaries (util/aligned.h): glibc's malloc gives 16, and the kernels' vector
// loads would straddle cache lines.
void* host_alloc(size_t bytes) {
  return aligned_host_alloc(bytes);
}
void host_free(void* p) {
  aligned_host_free(p);
}
void host_copy(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void host_zero(void* p, size_t bytes) {
  std::memset(p, 0, bytes);
}

constexpr DeviceMemory kHostMemory{host_alloc, host_free, host_copy, host_copy, host_zero};

struct Registered {
  DeviceMemory memory{};
  bool present = false;
};

Registered& slot(Device d) {
  static Registered slots[kDeviceCount];
  return slots[static_cast<int>(d)];
}

}  // namespace

const char* device_name(Device d) {
  return d == Device::kCuda ? "cuda" : "cpu";
}

Device parse_device(std::string_view name) {
  if (name == "cpu") return Device::kCpu;
  if (name == "cuda") return Device::kCuda;
  throw InputError("unknown device '" + std::string(name) + "' (expected cpu or cuda)");
}

void register_device_memory(Device d, const DeviceMemory& memory) {
  require(d != Device::kCpu, "the cpu's memory functions are built in");
  slot(d) = {memory, true};
}

bool has_device_memory(Device d) {
  return d == Device::kCpu || slot(d).present;
}

const DeviceMemory& device_memory(Device d) {
  if (d == Device::kCpu) return kHostMemory;
  const Registered& r = slot(d);
  require(r.present, [&] {
    return std::string("no ") + device_name(d) +
           " memory: this build has no such backend, or it is not registered yet";
  });
  return r.memory;
}

}  // namespace tinylm
