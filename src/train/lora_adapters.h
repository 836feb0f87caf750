// The LoRA adapters a `tinylm train` run with train.trainable "lora" attaches, as shapes
// for the inspection tables (report/memory.h, report/model_info.h): the trainer's own
// lora_targets of the run's model, no classification head.
#pragma once
#include "lora/lora.h"
#include "model/config.h"
#include "report/memory.h"

namespace tinylm {

// The adapters `lora` attaches to a model of `model`'s shape.
report::LoraAdapters lora_adapters_of(const GPTConfig& model, const LoraConfig& lora);

}  // namespace tinylm
