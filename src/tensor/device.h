// Where a tensor's numbers live, and how memory there is had and copied.
//   Device::kCpu   host memory (always there)
//   Device::kCuda  memory of the CUDA GPU (there once the CUDA backend registered its
//                  memory functions: backend/registry.cpp does, in a build with CUDA)
// A backend registers a DeviceMemory for its device; Tensor allocates and copies through
// it, so that tensor/ knows no device library (tensor/ sits below every backend).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tinylm {

enum class Device : uint8_t { kCpu, kCuda };
inline constexpr int kDeviceCount = 2;

const char* device_name(Device d);  // "cpu", "cuda"
// "cpu" / "cuda"; anything else throws InputError naming the value.
Device parse_device(std::string_view name);

struct DeviceMemory {
  void* (*alloc)(size_t bytes);
  void (*free)(void* p);
  void (*to_device)(void* dst, const void* host_src, size_t bytes);
  void (*to_host)(void* host_dst, const void* src, size_t bytes);
  void (*zero)(void* p, size_t bytes);
};

// Replaces the memory functions of `d` (kCpu's are built in and cannot be replaced).
void register_device_memory(Device d, const DeviceMemory& memory);
// InputError "no cuda memory in this build ..." when nothing registered `d`.
const DeviceMemory& device_memory(Device d);
bool has_device_memory(Device d);

}  // namespace tinylm
