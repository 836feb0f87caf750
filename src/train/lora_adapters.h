// The LoRA adapters a `tinylm train` run with train.trainable "lora" attaches, as shapes
// for the inspection tables (report/memory.h, report/model_info.h): the trainer's own
// lora_targets of the run's model, no classification head.
#pragma once
#include "report/memory.h"
#include "run/train_config.h"

namespace tinylm {

report::LoraAdapters lora_adapters_of(const TrainConfig& c);

}  // namespace tinylm
