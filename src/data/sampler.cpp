#include "data/sampler.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace tinylm {

void copy_window(std::span<const int32_t> ids, int64_t i, int64_t row, Batch& batch) {
  const int64_t T = batch.T;
  std::copy_n(ids.begin() + i, T, batch.inputs.begin() + row * T);
  std::copy_n(ids.begin() + i + 1, T, batch.targets.begin() + row * T);
}

Batch sample_batch(std::span<const int32_t> ids, int64_t B, int64_t T, Rng& rng) {
  const int64_t n = static_cast<int64_t>(ids.size());
  require(B >= 1 && T >= 1, "batch size and block size must be at least 1");
  require(n >= T + 1, "cannot sample windows of " + std::to_string(T + 1) + " tokens from " +
                          std::to_string(n) + " tokens");
  Batch batch{B, T, std::vector<int32_t>(B * T), std::vector<int32_t>(B * T)};
  for (int64_t b = 0; b < B; ++b) {
    const int64_t i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - T)));
    copy_window(ids, i, b, batch);
  }
  return batch;
}

}  // namespace tinylm
