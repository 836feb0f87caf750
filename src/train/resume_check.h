// What --resume may change: one check for every task, each with its own list. A resumed
// run continues the saved one exactly, so only settings that do not change what the
// steps already taken mean may differ from the checkpoint's config.
//   train     train.max_steps (above the checkpoint's step: more steps to run),
//             train.eval_interval, train.log_interval, train.checkpoint_interval,
//             train.threads (speed; sums may round differently), sample.* (the text
//             shown at evaluations and at the end)
//   finetune  (finetune/finetune_plan.h) its intervals, threads, max_steps, the responses
//             written at the end, and base (the checkpoint holds every weight)
// Anything else (batch size, seed, learning rate, data, validation split, model...)
// is refused with the setting's name: a run with other settings is a new run.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "run/train_config.h"

namespace tinylm {

// Compares two configs field by field (dotted names, "train.lr"). `may_change` lists the
// fields that may differ; "sample.*" allows a whole section. InputError naming the
// first other field that differs and the list.
void check_resume_settings(const nlohmann::json& saved, const nlohmann::json& now,
                           const std::vector<std::string>& may_change,
                           const std::string& checkpoint);

// `tinylm train`'s list, and max_steps <= step is refused.
void check_resume_settings(const TrainConfig& saved, const TrainConfig& now, int64_t step,
                           const std::string& checkpoint);

}  // namespace tinylm
