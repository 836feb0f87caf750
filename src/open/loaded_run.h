// Loading a trained model back from a run folder or a checkpoint file, with its config
// and tokenizer, for sampling and evaluation.
#pragma once
#include <memory>
#include <string>

#include "model/gpt.h"
#include "run/train_config.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct LoadedRun {
  TrainConfig config;
  std::unique_ptr<GPT> model;
  std::unique_ptr<Tokenizer> tokenizer;
  int64_t step = 0;
  std::string checkpoint;  // the file loaded
};

// RUN_DIR: its best.safetensors (lowest validation loss, as nanoGPT keeps), else
// last.safetensors. A path ending in .safetensors: that checkpoint. The adapters of a
// LoRA run (train.trainable "lora") come merged into the model's weights.
LoadedRun load_run(const std::string& run_or_checkpoint);

}  // namespace tinylm
