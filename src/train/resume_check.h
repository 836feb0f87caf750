// What --resume may change. A resumed run continues the saved one exactly, so only
// settings that do not change what the steps already taken mean may differ from the
// checkpoint's config:
//   train.max_steps            (must be above the checkpoint's step: more steps to run)
//   train.eval_interval, train.log_interval, train.checkpoint_interval
//   train.threads              (speed; sums may round differently)
//   sample.*                   (the text shown at evaluations and at the end)
// Anything else (batch size, seed, learning rate, data, validation split, model...)
// is refused with the setting's name: a run with other settings is a new run.
#pragma once
#include <cstdint>
#include <string>

#include "train/train_config.h"

namespace tinylm {

// InputError naming the first setting that differs and may not, or max_steps <= step.
void check_resume_settings(const TrainConfig& saved, const TrainConfig& now, int64_t step,
                           const std::string& checkpoint);

}  // namespace tinylm
