// cuBLAS is loaded by the first product on a GPU, not at start (src/cuda/cublas_library.h):
// a program that links the CUDA backend starts without it, and the table resolves every
// function it names. Needs no GPU.
#include "cuda/cublas_library.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace tinylm::cuda {
namespace {

bool cublas_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libcublas") != std::string::npos) return true;
  return false;
}

// Before main, so before any test could have loaded it: a linked library is mapped by then.
const bool kMappedAtStart = cublas_mapped();

TEST(CublasLibrary, LoadedOnFirstUseNotAtStart) {
  EXPECT_FALSE(kMappedAtStart);
  const CublasLibrary& library = cublas();
  EXPECT_TRUE(cublas_mapped());
  EXPECT_NE(library.create, nullptr);
  EXPECT_NE(library.set_stream, nullptr);
  EXPECT_NE(library.set_math_mode, nullptr);
  EXPECT_NE(library.set_workspace, nullptr);
  EXPECT_NE(library.gemm_ex, nullptr);
  EXPECT_NE(library.gemm_strided_batched_ex, nullptr);
  const std::string said = library.status_string(CUBLAS_STATUS_NOT_SUPPORTED);  // no GPU needed
  EXPECT_NE(said.find("not supported"), std::string::npos) << said;
  EXPECT_EQ(&cublas(), &library);  // loaded once
}

}  // namespace
}  // namespace tinylm::cuda
