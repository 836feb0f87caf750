#include "backend/registry.h"

#include <string>

#include "util/error.h"

namespace tinylm {
namespace {

struct Registry {
  std::vector<const Backend*> all;
  const Backend* for_device[kDeviceCount] = {};
};

// Built on first use. A CUDA build also gives Tensor the GPU's memory functions here.
const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    reg.all = {&ref_backend(), &cpu_backend()};
    reg.for_device[static_cast<int>(Device::kCpu)] = &cpu_backend();
#ifdef TINYLM_WITH_CUDA
    reg.all.push_back(&cuda_backend());
    reg.for_device[static_cast<int>(Device::kCuda)] = &cuda_backend();
#endif
    return reg;
  }();
  return r;
}

}  // namespace

void throw_missing_kernel(const char* name) {
  throw InputError(std::string(name) + ": this device has no such kernel yet");
}

const Backend& backend_for(Device device) {
  const Backend* b = registry().for_device[static_cast<int>(device)];
  require(b != nullptr,
          [&] { return std::string("no ") + device_name(device) + " backend in this build"; });
  return *b;
}

void require_device(Device device) {
  const std::string flag = std::string("--device ") + device_name(device);
  const Backend* b = registry().for_device[static_cast<int>(device)];
  require(b != nullptr,
          [&] { return flag + ": this build has no " + device_name(device) + " backend"; });
  std::string why;
  require(b->available(&why), [&] { return flag + ": " + why; });
}

void use_matmul_precision(Device device, ops::MatmulPrecision p) {
  const Backend& b = backend_for(device);
  if (b.set_matmul_precision) {
    b.set_matmul_precision(p);
    return;
  }
  require(p == ops::MatmulPrecision::kFp32, [&] {
    return std::string("--precision ") + ops::precision_name(p) + ": the " + b.name +
           " backend computes fp32 only";
  });
}

const Backend& backend_named(std::string_view name) {
  std::string names;
  for (const Backend* b : registry().all) {
    if (name == b->name) return *b;
    names += names.empty() ? b->name : std::string(", ") + b->name;
  }
  throw InputError("unknown backend '" + std::string(name) + "' (this build has " + names + ")");
}

const std::vector<const Backend*>& registered_backends() {
  return registry().all;
}

}  // namespace tinylm
