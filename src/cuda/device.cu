// The CUDA device and its memory (see device.h).
#include <cstdio>

#include "cuda/check.cuh"
#include "cuda/device.h"
#include "util/error.h"

namespace tinylm::cuda {

int device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA runtime sees no GPU";
  return n;
}

void require_device(const std::string& what) {
  std::string why;
  require(device_count(&why) > 0, what + ": no CUDA GPU (" + why + ")");
}

std::string describe_device() {
  cudaDeviceProp p{};
  TINYLM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %.1f GiB", p.name, p.major, p.minor,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

double fp32_peak_flops() {
  cudaDeviceProp p{};
  TINYLM_CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  int khz = 0;
  TINYLM_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  // float32 lanes per multiprocessor: 64 on sm_60/70/75/80, 128 on sm_86 and later
  const bool wide = p.major > 8 || (p.major == 8 && p.minor >= 6);
  const double lanes = wide ? 128.0 : 64.0;
  return p.multiProcessorCount * lanes * 2.0 * khz * 1e3;
}

void synchronize() {
  TINYLM_CUDA_CHECK(cudaDeviceSynchronize());
}

void* device_alloc(size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) TINYLM_CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* p) {
  if (p) cudaFree(p);  // never throws: called from destructors
}

// Asynchronous on the default stream: from pageable memory the runtime stages the bytes
// before it returns (src may be freed at once), and it does not wait for the kernels
// queued before it, as cudaMemcpy does (a step's ids uploads held the GPU idle).
void copy_to_device(void* dst, const void* src, size_t bytes) {
  if (bytes > 0)
    TINYLM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, nullptr));
}

void copy_to_host(void* dst, const void* src, size_t bytes) {
  if (bytes > 0) TINYLM_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

void fill_zero(void* p, size_t bytes) {
  if (bytes > 0) TINYLM_CUDA_CHECK(cudaMemset(p, 0, bytes));
}

}  // namespace tinylm::cuda
