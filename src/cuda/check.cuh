// Error checks for CUDA runtime calls and kernel launches inside src/cuda (*.cu only).
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tinylm::cuda {

inline void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA: ") + call + ": " + cudaGetErrorString(e));
}

}  // namespace tinylm::cuda

#define TINYLM_CUDA_CHECK(call) ::tinylm::cuda::check((call), #call)
// After a <<<...>>> launch: a bad configuration shows here, an execution error at the
// next synchronising call.
#define TINYLM_CUDA_CHECK_LAUNCH() ::tinylm::cuda::check(cudaGetLastError(), "kernel launch")
