// tinylm verify DIR for reference.json "task": "lora" (gpt2-micro-lora): a base GPT-2
// (config.json + model.safetensors) and a PEFT adapter folder (reference.json's
// "adapter"), checked against reference.safetensors:
//   scaling  the adapter's alpha / r against reference.json's "scaling" (if given)
//   logits   [B, T, V] with the adapter                      relative <= 1e-5
//   loss     mean cross-entropy against targets              relative <= 1e-5
//   grad     every adapter tensor, base frozen (grad.<PEFT key>)  relative <= 1e-4
//   merged   base weights with the adapters folded in (merged.<HF name>, [in, out]),
//            every other tensor unchanged                    relative <= 1e-5
//   adamw    per-step loss and gradient norm, and the adapter tensors after the steps
//            (after_adamw.<PEFT key>); the base bit-identical  relative <= 1e-4
#pragma once
#include <string>
#include <vector>

#include "verify/verify_lm.h"

namespace tinylm::finetune {

std::vector<CheckResult> verify_lora(const std::string& dir);

}  // namespace tinylm::finetune
