// Train / validation split of a token sequence by position, as nanoGPT and Raschka's
// chapter 5 do: the first part trains, the last part validates.
//
//   ids [n] -> train = ids[0 : n_train], val = ids[n_train : n],
//   n_train = floor(n * (1 - val_fraction)),  val_fraction in [0, 1)  (default 0.1)
//
// Both splits must hold at least block_size + 1 tokens (one window: inputs and the
// targets shifted by one), else InputError ("corpus too short: ..."). val_fraction = 0
// means no validation split: val is empty and only the training split is checked.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace tinylm {

struct TokenSplit {
  std::vector<int32_t> train;
  std::vector<int32_t> val;
};

TokenSplit split_tokens(std::span<const int32_t> ids, int64_t block_size,
                        double val_fraction = 0.1);

}  // namespace tinylm
