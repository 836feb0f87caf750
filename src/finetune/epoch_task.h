// What both fine-tuning tasks share on the one training loop (train/loop.h): epochs of
// shuffled batches (the course drops the last partial batch), each epoch's order drawn
// from a generator derived from (seed, epoch) so that a resumed run draws the same,
// "epoch" in the log and the progress lines, and a hook at the end of each epoch. In a
// data-parallel run (docs/distributed.md) rank r of W trains part r of each batch (its
// examples r * B / W .. (r + 1) * B / W - 1), and the loss is the mean of the parts' means.
//   total steps = epochs * floor(n_train / batch_size), or finetune.max_steps if smaller
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run/finetune_config.h"
#include "train/loop.h"

namespace tinylm::finetune {

// InputError when the training split is smaller than one batch, or the run would have
// more steps than an int64 holds.
int64_t steps_per_epoch(int64_t train_size, int64_t batch_size);
int64_t total_steps(const FinetuneSettings& f, int64_t train_size);

// The loop's settings for a fine-tuning run of `total` steps: constant lr (or cosine to
// min_lr), no gradient accumulation, no best checkpoint.
LoopSettings finetune_loop_settings(const FinetuneConfig& c, int64_t total, bool quiet,
                                    int64_t stop_after);

class EpochTask : public TrainingTask {
 public:
  EpochTask(int64_t train_size, const FinetuneSettings& f);

  MicroStep train_micro(int64_t step, int64_t micro, float scale, const nn::Context& ctx) final;
  nlohmann::json step_fields(int64_t step) final;
  Evaluation evaluate(int64_t step) final;
  void after_step(int64_t step) final;

 protected:
  // Forward and backward of the training examples batch[ctx.first_row, + ctx.rows): this
  // rank's part, collated as in the whole batch (instruction batches are padded to the
  // longest of the whole batch, so a part's rows are the one-process rows).
  virtual MicroStep train_batch(const std::vector<int64_t>& batch, float scale,
                                const nn::Context& ctx) = 0;
  // The evaluation's log fields and its text ("train loss 0.1234, val loss ...").
  virtual std::pair<nlohmann::json, std::string> losses() = 0;
  virtual void epoch_done(int64_t /*step*/, int64_t /*epoch*/) {}

  const FinetuneSettings& f_;

 private:
  int64_t epoch_of(int64_t step) const { return (step - 1) / per_epoch_ + 1; }  // 1-based

  int64_t train_size_, per_epoch_, total_;
  int64_t parts_;  // the parts each batch is cut into: one per data-parallel rank
  int64_t cached_epoch_ = -1;
  std::vector<std::vector<int64_t>> order_;  // the batches of cached_epoch_
};

}  // namespace tinylm::finetune
