// What a forward pass needs to know beyond its inputs: training (dropout on) or not, the
// random generator dropout draws its keys from (owned by the model, saved in checkpoints),
// and where the batch sits in the step's global batch.
#pragma once
#include <cstdint>

#include "util/counter_rng.h"
#include "util/rng.h"

namespace tinylm::nn {

struct Context {
  bool training = false;
  Rng* rng = nullptr;  // required when training with dropout > 0
  // The batch is sequences [first_row, first_row + rows) of the step's global batch.
  // Dropout masks are keyed by sequence, so a sequence draws the same mask on whichever
  // rank or micro-batch holds it (docs/distributed.md). One whole batch: 0 and its size.
  int64_t first_row = 0;
  int64_t rows = 1;

  // The key of one dropout mask over a tensor of `numel` elements, rows first: one draw
  // of rng, moved so that element i of this batch's mask is element
  // first_row * (numel / rows) + i of the stream, where the global batch would have it.
  uint64_t dropout_key(int64_t numel) const {
    const auto row_elements = static_cast<uint64_t>(numel / rows);
    return counter_skip(rng->next_u64(), static_cast<uint64_t>(first_row) * row_elements);
  }
};

}  // namespace tinylm::nn
