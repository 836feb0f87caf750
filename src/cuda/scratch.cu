// Device scratch memory, one growing buffer per slot (see scratch.cuh).
#include <mutex>

#include "cuda/check.cuh"
#include "cuda/scratch.cuh"

namespace tinylm::cuda {

void* scratch_bytes(ScratchSlot slot, size_t bytes) {
  static std::mutex mutex;
  static void* buffer[static_cast<int>(ScratchSlot::kCount)] = {};
  static size_t capacity[static_cast<int>(ScratchSlot::kCount)] = {};
  const int s = static_cast<int>(slot);
  std::lock_guard<std::mutex> lock(mutex);
  if (bytes > capacity[s]) {
    // the old buffer may still be read by kernels in flight: wait for them first
    TINYLM_CUDA_CHECK(cudaDeviceSynchronize());
    if (buffer[s]) TINYLM_CUDA_CHECK(cudaFree(buffer[s]));
    buffer[s] = nullptr;
    capacity[s] = 0;
    TINYLM_CUDA_CHECK(cudaMalloc(&buffer[s], bytes));
    capacity[s] = bytes;
  }
  return buffer[s];
}

}  // namespace tinylm::cuda
