// The epoch loop shared by both fine-tuning tasks, on train/'s pieces (AdamW, LrSchedule,
// clipping, Progress, RunLog, Ctrl-C handling):
//   for step in [start, total):            total = epochs * floor(n_train / batch_size)
//     batch = epoch_batches(shuffled, drop_last) of epoch step / steps_per_epoch, drawn
//             from a generator derived from (seed, epoch): a resumed run draws the same
//     zero_grad; loss = task.train_batch(batch) (forward + backward); clip; AdamW at lr(step)
//     every log_interval: {"step", "epoch", "loss", "lr", "grad_norm", "tokens_per_s"}
//     every eval_interval and at the end: task.evaluate -> a log line, a progress line,
//       then task.after_eval (report.html)
//     at the end of an epoch: task.epoch_done
//     every checkpoint_interval, at the end, on Ctrl-C, at stop_after: task.save
// The loop knows nothing about models: the task's functions do the work.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "finetune/finetune_config.h"
#include "nn/context.h"
#include "tensor/parameter.h"
#include "train/adamw.h"
#include "train/run_log.h"
#include "util/rng.h"

namespace tinylm::finetune {

struct LoopTask {
  int64_t train_size = 0;  // examples in the training split
  // Forward and backward of one batch (example indices); returns the mean loss and sets
  // *tokens to the positions it processed (for tokens/s).
  std::function<double(const std::vector<int64_t>& batch, const nn::Context& ctx, int64_t* tokens)>
      train_batch;
  std::function<void()> zero_grad;
  ParameterList params;  // clipping measures the trainable ones
  // An evaluation at `step`: the log fields (besides "step") and the progress line.
  std::function<std::pair<nlohmann::json, std::string>(int64_t step)> evaluate;
  std::function<void(int64_t step)> after_eval;                 // may be empty
  std::function<void(int64_t step, int64_t epoch)> epoch_done;  // may be empty
  std::function<void(int64_t step)> save;                       // the checkpoint
};

struct LoopState {
  int64_t step = 0;  // optimizer steps done
  Rng dropout_rng{0};
};

struct LoopOptions {
  bool quiet = false;
  int64_t stop_after = -1;  // stop with a checkpoint once this many steps are done
};

// AdamW over `params` with the run's settings. Weight decay: one parameter group, as
// torch.optim.AdamW(model.parameters()) (decay_all), or matrices only as `tinylm train`.
AdamW make_optimizer(const ParameterList& params, const FinetuneSettings& f);

// The loop state of a new run (dropout generator from the seed), or, with resume_from
// set, the state saved in that checkpoint, whose weights and AdamW moments are loaded
// into `params` and `optimizer`.
LoopState start_state(const FinetuneSettings& f, const ParameterList& params, AdamW& optimizer,
                      const std::string& resume_from);

// Steps per epoch (the course drops the last partial batch) and in the whole run.
// InputError when the training split is smaller than one batch.
int64_t steps_per_epoch(int64_t train_size, int64_t batch_size);
int64_t total_steps(const FinetuneSettings& f, int64_t train_size);

// Runs the loop from state.step. Returns 0 (done, or stopped at stop_after), 130
// (Ctrl-C: checkpoint saved) or 1 (the loss became NaN or infinite: nothing saved over
// the last checkpoint).
int run_loop(const FinetuneSettings& f, LoopTask& task, AdamW& optimizer, LoopState& state,
             RunLog& log, const LoopOptions& options);

}  // namespace tinylm::finetune
