// A fine-tuning run planned before step 1, with nothing written: the folder checked
// (run/run_folder.h, the policy of every task), the settings validated, those of a
// resumed run checked against its checkpoint, and the model to train opened:
//   a new run   the base (--base: HF folder, train run, preset) with its tokenizer
//   --resume    the checkpoint's shape and tokenizer; its weights are loaded by the run
//               session, so the base is not needed again (--base may be left out)
// What --resume may change: finetune.max_steps, the intervals (eval, log, checkpoint),
// finetune.threads, and what is written after training (max_new_tokens,
// write_responses). Anything else is a new run.
#pragma once
#include <memory>
#include <string>

#include "finetune/instruct_trainer.h"
#include "model/gpt.h"
#include "run/finetune_config.h"
#include "run/run_folder.h"
#include "tokenizer/tokenizer.h"

namespace tinylm::finetune {

struct FinetunePlan {
  FinetuneConfig config;  // validated; base filled in from the checkpoint on --resume
  RunFolderPlan folder;
  GPTConfig model_config;     // the GPT that trains (a classifier's body)
  std::unique_ptr<GPT> base;  // a new run: the weights to start from; null on --resume
  std::unique_ptr<Tokenizer> tokenizer;
  std::string base_kind;  // "hf", "run", "preset"
};

// InputError (nothing written) for bad settings, folder, base or resume.
FinetunePlan plan_finetune_run(const FinetuneConfig& config, const FinetuneOptions& options);

// InputError when a training step of `model` on batches of [batch_size, T] tokens would
// not fit in this machine's memory (report/memory.h's estimate, as `tinylm train`).
void require_step_fits(const GPTConfig& model, int64_t batch_size, int64_t T);

// The matrix products of options.device from now on at options.precision (InputError for
// one the device lacks: tf32 on the CPU); unless quiet, one line naming what computes
// them when that is not fp32 ("bf16 products: oneDNN brg:avx512_core_bf16 (AVX512_BF16)").
void use_precision(const FinetuneOptions& options);

}  // namespace tinylm::finetune
