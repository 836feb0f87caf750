#include "finetune/epoch_task.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "data/classification_dataset.h"
#include "dist/communicator.h"
#include "util/error.h"

namespace tinylm::finetune {

namespace {

// The shuffle of each epoch has its own generator, so that resuming mid-epoch draws the
// same order without saving it.
Rng epoch_rng(uint64_t seed, int64_t epoch) {
  return Rng(seed * 0x9E3779B97F4A7C15ULL + 0x51ED270B27A3C4F1ULL + static_cast<uint64_t>(epoch));
}

}  // namespace

int64_t steps_per_epoch(int64_t train_size, int64_t batch_size) {
  require(train_size >= batch_size, "the training split has " + std::to_string(train_size) +
                                        " examples, fewer than one batch (finetune.batch_size = " +
                                        std::to_string(batch_size) + ")");
  return train_size / batch_size;
}

int64_t total_steps(const FinetuneSettings& f, int64_t train_size) {
  const int64_t per_epoch = steps_per_epoch(train_size, f.batch_size);
  require(f.epochs <= INT64_MAX / per_epoch, "finetune.epochs = " + std::to_string(f.epochs) +
                                                 " of " + std::to_string(per_epoch) +
                                                 " steps each is more steps than a run can count");
  const int64_t all = f.epochs * per_epoch;
  return f.max_steps > 0 ? std::min(all, f.max_steps) : all;
}

LoopSettings finetune_loop_settings(const FinetuneConfig& c, int64_t total, bool quiet,
                                    int64_t stop_after) {
  const FinetuneSettings& f = c.finetune;
  LoopSettings s;
  s.program = "tinylm finetune";
  s.total_steps = total;
  s.use(f, f, total);
  s.quiet = quiet;
  s.stop_after = stop_after;
  s.micro_batches = dist::world().size();  // data parallel: a part of each batch per rank
  s.use(c.dist);
  return s;
}

EpochTask::EpochTask(int64_t train_size, const FinetuneSettings& f)
    : f_(f),
      train_size_(train_size),
      per_epoch_(steps_per_epoch(train_size, f.batch_size)),
      total_(total_steps(f, train_size)),
      parts_(dist::world().size()) {}

MicroStep EpochTask::train_micro(int64_t step, int64_t micro, float scale, const nn::Context& ctx) {
  const int64_t epoch = step / per_epoch_;
  if (epoch != cached_epoch_) {
    Rng rng = epoch_rng(f_.seed, epoch);
    order_ = epoch_batches(train_size_, f_.batch_size, true, true, rng);
    cached_epoch_ = epoch;
  }
  // Part `micro` of the batch (data parallel: one part per rank; one process: all of it).
  const std::vector<int64_t>& batch = order_[step % per_epoch_];
  const auto n = static_cast<int64_t>(batch.size());
  nn::Context part = ctx;
  part.rows = n / parts_;
  part.first_row = micro * part.rows;
  return train_batch(batch, scale, part);
}

nlohmann::json EpochTask::step_fields(int64_t step) {
  return {{"epoch", epoch_of(step)}};
}

Evaluation EpochTask::evaluate(int64_t step) {
  auto [fields, text] = losses();
  Evaluation e;
  e.fields = std::move(fields);
  e.line =
      "step " + std::to_string(step) + " (epoch " + std::to_string(epoch_of(step)) + "): " + text;
  return e;
}

void EpochTask::after_step(int64_t step) {
  if (step % per_epoch_ == 0 || step == total_) epoch_done(step, epoch_of(step));
}

}  // namespace tinylm::finetune
