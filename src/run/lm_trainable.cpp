#include "run/lm_trainable.h"

#include "util/error.h"

namespace tinylm::finetune {

LoraConfig lora_config(const LoraSettings& settings) {
  LoraConfig lora;
  lora.r = settings.r;
  lora.alpha = static_cast<float>(settings.alpha);
  lora.targets = settings.targets;
  lora.dropout = static_cast<float>(settings.dropout);
  return lora;
}

Trainables set_lm_trainable(GPT& model, const FinetuneConfig& config, Rng& rng) {
  return choose_lm_trainables(model, TrainableSet::parse(config.finetune.trainable),
                              lora_config(config.lora), rng, "finetune.trainable");
}

}  // namespace tinylm::finetune
