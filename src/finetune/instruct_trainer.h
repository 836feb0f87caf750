// `tinylm finetune --task instruct`: instruction fine-tuning of a GPT (Raschka ch. 7).
//   base (base_model.h) + instruction data (data/instruction_data.h, 85/10/5 split)
//   -> the one loop (train/loop.h, finetune/epoch_task.h) on the course's collate
//   (data/instruction_collate.h), each entry in Alpaca's prompt, or in the model's own
//   chat template when its tokenizer has one (data/instruction_chat.h),
//      language-model loss on the response tokens (and the prompt's unless mask_prompt)
//   -> RUN (run_folder.h): checkpoint, log.jsonl, report.html, and after training the
//      val and test losses (results.json) and greedy responses for the test split
//      (test-responses.json: each entry as read, plus "model_response")
// Every parameter trains (finetune.trainable "all", the course's choice).
#pragma once
#include <cstdint>
#include <string>

#include "ops/precision.h"
#include "run/finetune_config.h"
#include "tensor/device.h"

namespace tinylm::finetune {

struct FinetuneOptions {
  std::string out_dir;
  bool resume = false;
  bool quiet = false;
  int64_t stop_after = -1;       // stop with a checkpoint after this many steps (tests, --resume)
  Device device = Device::kCpu;  // --device: instruct fine-tuning without LoRA only, for now
  ops::MatmulPrecision precision = ops::MatmulPrecision::kFp32;  // --precision
};

// Exit codes as train(): 0, 130 (interrupted, checkpoint saved), 1 (NaN loss).
// Bad settings, data or base: InputError before anything is written.
int finetune_instruct(const FinetuneConfig& config, const FinetuneOptions& options);

}  // namespace tinylm::finetune
