// tinylm verify DIR for reference.json "task": "classify" (GPT2ForSequenceClassification
// fixtures such as gpt2-micro-classify):
//   logits   pooled logits [B, num_labels]            relative <= 1e-5
//   loss     mean cross-entropy against labels        relative <= 1e-5
//   grad     gradients of exactly the "trainable" tensors, everything else frozen (no
//            gradient buffer); worst tensor reported     relative <= 1e-4
//   adamw    per-step loss and gradient norm, and the trainable tensors after the steps
//            (betas, eps, weight decay, clipping read from reference.json); the frozen
//            tensors must be bit-identical afterwards    relative <= 1e-4
// The pooling ("pooling") and pad id ("pad_token_id", else config.json's) come from
// reference.json.
#pragma once
#include <string>
#include <vector>

#include "verify/verify_lm.h"

namespace tinylm::finetune {

std::vector<CheckResult> verify_classify(const std::string& dir);

}  // namespace tinylm::finetune
