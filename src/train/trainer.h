// `tinylm train`: the run planned (lm_plan.h), the model built and what trains chosen
// (trainable.h), a run session (run_session.h), then the one training loop (loop.h) with
// the language-model task (lm_task.h: batches, evaluation, samples, report), and a final
// sample.
//
// A run folder holds:
//   .tinylm-run        the mark that tinylm made the folder, and the run's lock (run_folder.h)
//   config.json        the full TrainConfig (vocab_size filled in)
//   tokenizer.json     the tokenizer (also inside every checkpoint)
//   log.jsonl          one JSON object per logged step / evaluation
//   last.safetensors   the latest checkpoint (every checkpoint_interval steps, at the end,
//                      on Ctrl-C); best.safetensors: the lowest validation loss so far
// Exactness: with the same config and thread count, N steps in one go and N/2 steps +
// --resume + N/2 steps give bit-identical weights and losses (batches, dropout and
// evaluation draw from generators saved in the checkpoint or derived from the step).
#pragma once
#include <string>

#include "ops/precision.h"
#include "run/train_config.h"
#include "tensor/device.h"

namespace tinylm {

struct TrainOptions {
  std::string out_dir;
  bool resume = false;
  bool quiet = false;
  int64_t stop_after = -1;       // stop with a checkpoint once this many steps are done
  Device device = Device::kCpu;  // where the model trains (--device); checkpoints are the same
  ops::MatmulPrecision precision = ops::MatmulPrecision::kFp32;  // its products (--precision)
};

// Exit codes: 0 finished (or stopped by stop_after), 130 interrupted (checkpoint saved),
// 1 the loss, a weight or an AdamW moment became NaN or infinite (nothing written over
// the last good checkpoint). Bad config or data (and a folder tinylm did not make, one in
// use, a --resume that changes what may not change) throw InputError before anything
// is written.
int train(const TrainConfig& config, const TrainOptions& options);

}  // namespace tinylm
