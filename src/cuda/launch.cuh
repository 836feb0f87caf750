// Launch shapes shared by the kernels of src/cuda (*.cu only).
//   blocks_for(n)    blocks of kThreads threads for one thread per element of n
//   rows_grid(rows)  one block per row (gridDim.x; rows must fit an int)
//   row_threads(D)   threads for a block that walks a row of D: a multiple of 32 (what
//                    reduce.cuh needs), from 32 for short rows up to 256
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tinylm::cuda {

constexpr int kThreads = 256;

inline unsigned blocks_for(int64_t n, int threads = kThreads) {
  const int64_t blocks = (n + threads - 1) / threads;
  if (blocks > INT32_MAX)
    throw std::runtime_error("CUDA: " + std::to_string(n) + " elements are too many for one grid");
  return static_cast<unsigned>(blocks);
}

inline unsigned rows_grid(int64_t rows) {
  if (rows > INT32_MAX)
    throw std::runtime_error("CUDA: " + std::to_string(rows) + " rows are too many for one grid");
  return static_cast<unsigned>(rows);
}

inline int row_threads(int64_t D) {
  const int64_t warps = (D + 31) / 32;
  return warps >= 8 ? 256 : static_cast<int>(warps < 1 ? 32 : warps * 32);
}

}  // namespace tinylm::cuda
