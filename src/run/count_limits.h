// The upper bounds of the counts a user sets in a train or finetune config, checked up
// front (README, "Limits"). Each is far above real use and keeps the work a setting asks
// for finite and its arithmetic within int64; the run's memory is checked separately
// (util/system_memory.h), and Ctrl-C is honoured between micro-batches.
#pragma once
#include <cstdint>
#include <string>

#include "util/error.h"

namespace tinylm {

inline constexpr int64_t kMaxStepCount = 1'000'000'000;  // max_steps, warmup, intervals
inline constexpr int64_t kMaxBatchSize = 1'000'000;      // sequences per micro-batch
inline constexpr int64_t kMaxGradAccum = 100'000;        // micro-batches per step
inline constexpr int64_t kMaxEvalBatches = 100'000;      // eval_iters, eval_batches
inline constexpr int64_t kMaxEpochs = 1'000'000;
inline constexpr int64_t kMaxThreads = 4096;

// InputError "<name> must be at most <limit>" when value > limit.
inline void require_at_most(const std::string& name, int64_t value, int64_t limit) {
  require(value <= limit,
          name + " must be at most " + std::to_string(limit) + ", got " + std::to_string(value));
}

}  // namespace tinylm
