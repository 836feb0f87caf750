// Random training batches: B windows of T+1 consecutive tokens at uniformly random
// offsets (nanoGPT's get_batch).
//
//   ids [n] -> Batch{B, T}: row b = window at offset i_b ~ U[0, n-T-1] (rng.below(n-T)),
//              inputs[b] = ids[i_b : i_b+T], targets[b] = ids[i_b+1 : i_b+T+1]
//
// The offsets come from the caller's Rng, drawn in row order, one draw per row: the same
// seed (or the same saved Rng::state()) gives the same batches, which makes a resumed
// run continue exactly. Throws InputError if n < T + 1 or B, T < 1.
#pragma once
#include <cstdint>
#include <span>

#include "data/batch.h"
#include "util/rng.h"

namespace tinylm {

Batch sample_batch(std::span<const int32_t> ids, int64_t B, int64_t T, Rng& rng);

// One window at offset i (0 <= i <= n-T-1) copied into row `row` of a batch.
void copy_window(std::span<const int32_t> ids, int64_t i, int64_t row, Batch& batch);

}  // namespace tinylm
