#include "data/split.h"

#include <cmath>
#include <string>

#include "util/error.h"

namespace tinylm {

namespace {

void require_window(const char* split, int64_t have, int64_t n, int64_t block_size) {
  require(have >= block_size + 1,
          "corpus too short: " + std::to_string(have) + " tokens in the " + split + " split (of " +
              std::to_string(n) + " in all), need at least block_size+1 = " +
              std::to_string(block_size + 1) + " for the " + split + " split");
}

}  // namespace

TokenSplit split_tokens(std::span<const int32_t> ids, int64_t block_size, double val_fraction) {
  require(block_size >= 1, "block_size must be at least 1, got " + std::to_string(block_size));
  require(val_fraction >= 0.0 && val_fraction < 1.0,
          "val_fraction must be in [0, 1), got " + std::to_string(val_fraction));
  const int64_t n = static_cast<int64_t>(ids.size());
  const int64_t n_train =
      static_cast<int64_t>(std::floor(static_cast<double>(n) * (1.0 - val_fraction)));
  require_window("training", n_train, n, block_size);
  if (val_fraction > 0.0) require_window("validation", n - n_train, n, block_size);
  TokenSplit split;
  split.train.assign(ids.begin(), ids.begin() + n_train);
  split.val.assign(ids.begin() + n_train, ids.end());
  return split;
}

}  // namespace tinylm
