// Deterministic windows over a whole token sequence, for evaluation (the mean loss over
// a whole file, perplexity).
//
//   ids [n], block size T, stride S (1 <= S <= T; S = T: non-overlapping windows)
//   window k starts at s_k = k*S for every s_k with s_k + T + 1 <= n; if those windows
//   stop short of the last token, one more window ends exactly at it (s = n - T - 1).
//   Window k: inputs = ids[s_k : s_k+T], targets = ids[s_k+1 : s_k+T+1], except that
//   targets an earlier window already scored are set to kIgnoreTarget.
//
// So every target ids[1..n-1] is scored exactly once (each with as much context as its
// window gives: the Hugging Face "strided perplexity" scheme), and the mean loss over all
// supervised targets of all batches is the mean loss over the file. Weight each batch's
// mean by Batch::supervised() when averaging batches.
//
//   EvalWindows w(ids, T, T);  Batch b;
//   while (w.next(B, b)) { ... }   // rows in window order; the last batch may have B' < B
// Throws InputError if n < T + 1.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "data/batch.h"

namespace tinylm {

class EvalWindows {
 public:
  EvalWindows(std::span<const int32_t> ids, int64_t T, int64_t stride);

  int64_t num_windows() const { return static_cast<int64_t>(starts_.size()); }
  // Total supervised targets over all windows: n - 1.
  int64_t num_scored() const { return static_cast<int64_t>(ids_.size()) - 1; }
  const std::vector<int64_t>& starts() const { return starts_; }

  // Fills `batch` with the next up-to-B windows; false when every window was returned.
  bool next(int64_t B, Batch& batch);
  void reset() { next_window_ = 0; }

 private:
  std::span<const int32_t> ids_;
  int64_t T_;
  std::vector<int64_t> starts_;  // start offset of each window
  std::vector<int64_t> skip_;    // leading targets of each window already scored before
  int64_t next_window_ = 0;
};

}  // namespace tinylm
