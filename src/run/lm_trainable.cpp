#include "run/lm_trainable.h"

#include "util/error.h"

namespace tinylm {

Trainables set_lm_trainable(GPT& model, const FinetuneConfig& config, Rng& rng) {
  return choose_lm_trainables(model, TrainableSet::parse(config.finetune.trainable), config.lora,
                              rng, "finetune.trainable");
}

}  // namespace tinylm
