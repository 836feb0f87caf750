// What an instruction fine-tuning run trains in its GPT language model
// (finetune.trainable, the same names as for a classifier; decided by run/trainable.h):
//   all      every weight (the course's chapter 7)
//   last:N   the last N blocks, the final LayerNorm and an untied LM head. A tied head
//            is the token embedding, which stays frozen (as in `last:N` of a classifier,
//            nothing below the blocks trains).
//   head     an untied LM head alone; refused for a tied head (it is the embedding)
//   lora     adapters on lora.targets (c_attn, c_proj, c_fc; the LM head cannot carry
//            one), every base weight frozen
#pragma once

#include <memory>

#include "lora/lora.h"
#include "model/gpt.h"
#include "run/finetune_config.h"
#include "run/trainable.h"
#include "util/rng.h"

namespace tinylm {

// Freezes / unfreezes `model` per config.finetune.trainable; under lora, attaches the
// adapters first (A from rng, B zeros; they must be destroyed before the model).
// InputError naming the setting for a spec the model cannot take (head with a tied head,
// last:N beyond the blocks, a LoRA target on the LM head).
Trainables set_lm_trainable(GPT& model, const FinetuneConfig& config, Rng& rng);

}  // namespace tinylm
