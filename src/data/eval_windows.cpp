#include "data/eval_windows.h"

#include <algorithm>
#include <string>

#include "data/sampler.h"
#include "util/error.h"

namespace tinylm {

EvalWindows::EvalWindows(std::span<const int32_t> ids, int64_t T, int64_t stride)
    : ids_(ids), T_(T) {
  const int64_t n = static_cast<int64_t>(ids.size());
  require(T >= 1, "block size must be at least 1");
  require(stride >= 1 && stride <= T, "evaluation stride must be in [1, block_size = " +
                                          std::to_string(T) + "], got " + std::to_string(stride));
  require(n >= T + 1, "cannot evaluate windows of " + std::to_string(T + 1) + " tokens on " +
                          std::to_string(n) + " tokens");
  for (int64_t s = 0; s + T + 1 <= n; s += stride) starts_.push_back(s);
  if (starts_.back() + T < n - 1) starts_.push_back(n - T - 1);
  // Targets of the window starting at s are ids[s+1 .. s+T]; the previous window scored
  // every target up to index prev_start + T.
  int64_t scored_up_to = 0;  // absolute index of the last target scored so far
  for (int64_t s : starts_) {
    skip_.push_back(std::max<int64_t>(0, scored_up_to - s));
    scored_up_to = s + T;
  }
}

bool EvalWindows::next(int64_t B, Batch& batch) {
  require(B >= 1, "batch size must be at least 1");
  const int64_t rows = std::min<int64_t>(B, num_windows() - next_window_);
  if (rows <= 0) return false;
  batch.B = rows;
  batch.T = T_;
  batch.inputs.assign(rows * T_, 0);
  batch.targets.assign(rows * T_, 0);
  for (int64_t r = 0; r < rows; ++r, ++next_window_) {
    copy_window(ids_, starts_[next_window_], r, batch);
    std::fill_n(batch.targets.begin() + r * T_, skip_[next_window_], kIgnoreTarget);
  }
  return true;
}

}  // namespace tinylm
