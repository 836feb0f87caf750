// Embedding lookup, fast version.
//   forward:  ids [N] (each in [0, V)), table [V, C] -> y [N, C] (row copies)
//   backward: dy [N, C] -> dtable [V, C] += scatter-add of dy rows by id
// Ids are checked serially first (so nothing throws inside a parallel region). The
// backward is parallel over blocks of columns, each block scattering the rows in order:
// no two threads touch the same float and the sums do not depend on the thread count.
#include "ops/embedding.h"

#include <algorithm>
#include <string>

#include "ops/parallel_for.h"
#include "util/error.h"

namespace tinylm::ops {
namespace {

constexpr int64_t kMinParallel = 1 << 14;  // below this many elements, stay serial

void check_ids(const int32_t* ids, int64_t N, int64_t V) {
  for (int64_t i = 0; i < N; ++i) {
    require(ids[i] >= 0 && ids[i] < V, [&] {
      return "embedding: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
             " is out of range [0, " + std::to_string(V) + ")";
    });
  }
}

}  // namespace

void embedding_forward(const int32_t* ids, const float* table, float* y, int64_t N, int64_t V,
                       int64_t C) {
  check_ids(ids, N, V);
  parallel_for(N, N > 1 && N * C >= kMinParallel, [&](int64_t i) {
    const float* row = table + static_cast<int64_t>(ids[i]) * C;
    std::copy(row, row + C, y + i * C);
  });
}

void embedding_backward(const float* dy, const int32_t* ids, float* dtable, int64_t N, int64_t V,
                        int64_t C) {
  check_ids(ids, N, V);
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (blocks > 1 && N * C >= kMinParallel)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kBlock, c1 = std::min(C, c0 + kBlock);
    for (int64_t i = 0; i < N; ++i) {
      const float* src = dy + i * C;
      float* dst = dtable + static_cast<int64_t>(ids[i]) * C;
#pragma omp simd
      for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
    }
  }
}

}  // namespace tinylm::ops
