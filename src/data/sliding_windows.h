// The sliding-window dataset of Raschka's chapter 2 (GPTDatasetV1 + DataLoader), as an
// alternative to random windows (sampler.h):
//
//   window starts i = 0, stride, 2*stride, ... while i + max_length < n   (n = ids.size())
//   window k: inputs = ids[i_k : i_k+max_length], targets = ids[i_k+1 : i_k+max_length+1]
//
// An epoch visits every window once, in order or (shuffle) in an order drawn from the
// seed and the epoch number; it is cut into batches of batch_size windows, the last one
// smaller unless drop_last drops it. With drop_last, an epoch keeps whole optimizer steps
// of batches_per_step batches (the step's global batch), so that the windows of an epoch
// and of each step do not depend on how the step is split into micro-batches and ranks.
// Batch k of the whole run (k = 0, 1, 2, ...) is a pure function of k, so a resumed run
// that knows its step continues exactly.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "data/batch.h"

namespace tinylm {

struct SlidingWindowOptions {
  int64_t max_length = 4;  // tokens per window (the context size)
  int64_t stride = 4;      // distance between window starts (= max_length: no overlap)
  int64_t batch_size = 8;
  bool shuffle = false;
  bool drop_last = true;
  int64_t batches_per_step = 1;  // micro-batches per optimizer step (all ranks)
  uint64_t seed = 123;  // of the shuffled order
};

class SlidingWindows {
 public:
  // ids stays owned by the caller and must outlive this object. InputError when no
  // window fits (n <= max_length), or when drop_last leaves no batch at all.
  SlidingWindows(std::span<const int32_t> ids, const SlidingWindowOptions& options);

  int64_t num_windows() const { return static_cast<int64_t>(starts_.size()); }
  int64_t batches_per_epoch() const;
  const std::vector<int64_t>& starts() const { return starts_; }

  // The window order of one epoch: the starts' indices, shuffled or not.
  std::vector<int64_t> epoch_order(int64_t epoch) const;
  // Batch k of the run: epoch k / batches_per_epoch(), position k % batches_per_epoch().
  Batch batch(int64_t k) const;

 private:
  std::span<const int32_t> ids_;
  SlidingWindowOptions opt_;
  std::vector<int64_t> starts_;
};

}  // namespace tinylm
