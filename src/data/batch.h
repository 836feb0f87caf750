// A batch of training or evaluation examples for a causal language model.
//
//   inputs  [B, T] row-major token ids
//   targets [B, T] the id to predict after each input position, or kIgnoreTarget
//                  (= kIgnoreIndex, -100: util/ignore_index.h) where no loss is taken
// For windows of a token sequence: inputs = ids[i : i+T], targets = ids[i+1 : i+T+1].
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/ignore_index.h"

namespace tinylm {

constexpr int32_t kIgnoreTarget = kIgnoreIndex;

struct Batch {
  int64_t B = 0;                 // rows (windows)
  int64_t T = 0;                 // positions per row
  std::vector<int32_t> inputs;   // [B*T]
  std::vector<int32_t> targets;  // [B*T]

  // The number of targets that carry a loss (not kIgnoreTarget).
  int64_t supervised() const {
    return static_cast<int64_t>(targets.size()) -
           std::count(targets.begin(), targets.end(), kIgnoreTarget);
  }

  // Rows [first, first + count) as a batch of their own, the same T.
  Batch rows(int64_t first, int64_t count) const {
    Batch part;
    part.B = count;
    part.T = T;
    part.inputs.assign(inputs.begin() + first * T, inputs.begin() + (first + count) * T);
    part.targets.assign(targets.begin() + first * T, targets.begin() + (first + count) * T);
    return part;
  }
};

}  // namespace tinylm
