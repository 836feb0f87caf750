// The CUDA device as tinylm sees it: whether one is there, and memory on it. Plain C++
// (no CUDA headers), so that code compiled by the host compiler can call it.
//   device_count(&why)   GPUs the CUDA runtime sees; 0 with the runtime's reason in `why`
//                        when there is no driver or no GPU (the runtime is linked
//                        statically: the program starts on any machine)
//   require_device(what) InputError "<what>: no CUDA GPU (<why>)" when there is none
//   DeviceBuffer<T>      n elements of device memory, freed with the object;
//                        upload / download copy whole host vectors
// A failing CUDA call throws std::runtime_error naming the call and the runtime's message.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tinylm::cuda {

int device_count(std::string* why = nullptr);
void require_device(const std::string& what);
// "NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB" for device 0 (requires a device).
std::string describe_device();
// Device 0's float32 peak (non-tensor FMA units: SMs x lanes x 2 x the highest clock).
double fp32_peak_flops();
// Waits for every kernel launched so far; throws on a launch or execution error.
void synchronize();

void* device_alloc(size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, size_t bytes);
void copy_to_host(void* dst, const void* src, size_t bytes);
void fill_zero(void* p, size_t bytes);

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : n_(n), p_(static_cast<T*>(device_alloc(n * sizeof(T)))) {}
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { device_free(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T>& host) { copy_to_device(p_, host.data(), n_ * sizeof(T)); }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    copy_to_host(host.data(), p_, n_ * sizeof(T));
    return host;
  }
  void zero() { fill_zero(p_, n_ * sizeof(T)); }

 private:
  size_t n_ = 0;
  T* p_ = nullptr;
};

}  // namespace tinylm::cuda
