// Raschka chapter 2's sliding-window dataset and loader (see sliding_windows.h).
#include "data/sliding_windows.h"

#include <string>

#include "data/sampler.h"
#include "util/error.h"
#include "util/rng.h"

namespace tinylm {

SlidingWindows::SlidingWindows(std::span<const int32_t> ids, const SlidingWindowOptions& options)
    : ids_(ids), opt_(options) {
  const auto n = static_cast<int64_t>(ids.size());
  require(opt_.max_length >= 1, "max_length must be at least 1");
  require(opt_.stride >= 1, "stride must be at least 1");
  require(opt_.batch_size >= 1, "batch_size must be at least 1");
  require(opt_.batches_per_step >= 1, "batches_per_step must be at least 1");
  require(n > opt_.max_length, "no window of " + std::to_string(opt_.max_length + 1) +
                                   " tokens fits in " + std::to_string(n) + " tokens");
  for (int64_t i = 0; i + opt_.max_length < n; i += opt_.stride) starts_.push_back(i);
  require(batches_per_epoch() > 0, [&] {
    return std::to_string(num_windows()) + " windows make no full step of " +
           std::to_string(opt_.batch_size * opt_.batches_per_step) + " (drop_last)";
  });
}

int64_t SlidingWindows::batches_per_epoch() const {
  const int64_t w = num_windows(), b = opt_.batch_size, m = opt_.batches_per_step;
  return opt_.drop_last ? w / (b * m) * m : (w + b - 1) / b;
}

std::vector<int64_t> SlidingWindows::epoch_order(int64_t epoch) const {
  std::vector<int64_t> order(starts_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  if (opt_.shuffle) {  // Fisher-Yates with a generator of its own per epoch
    Rng rng(opt_.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(epoch));
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  }
  return order;
}

Batch SlidingWindows::batch(int64_t k) const {
  require(k >= 0, "batch index must be >= 0");
  const int64_t per_epoch = batches_per_epoch();
  const std::vector<int64_t> order = epoch_order(k / per_epoch);
  const int64_t first = (k % per_epoch) * opt_.batch_size;
  const int64_t rows = std::min(opt_.batch_size, num_windows() - first);
  const int64_t T = opt_.max_length;
  Batch b{rows, T, std::vector<int32_t>(rows * T), std::vector<int32_t>(rows * T)};
  for (int64_t r = 0; r < rows; ++r) copy_window(ids_, starts_[order[first + r]], r, b);
  return b;
}

}  // namespace tinylm
