#include "finetune/lm_trainable.h"

#include "finetune/trainable.h"
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

std::unique_ptr<LoraSet> set_lm_trainable(GPT& model, const FinetuneConfig& config, Rng& rng) {
  const TrainableSet set = TrainableSet::parse(config.finetune.trainable);
  const bool tied = model.config().tie_head;
  require(set.kind != TrainableKind::Head || !tied,
          "finetune.trainable 'head': the model's LM head is tied to the token embedding; "
          "train last:N, all or lora instead");
  ParameterList head;  // an untied LM head (and its bias) trains under head and last:N
  if (!tied) head.push_back({"lm_head.weight", &model.lm_head_weight});
  if (model.config().head_bias) head.push_back({"lm_head.bias", &model.lm_head_bias});
  std::unique_ptr<LoraSet> lora;
  if (set.kind == TrainableKind::Lora) {
    lora = std::make_unique<LoraSet>(model, nullptr, lora_config(config.lora), rng);
    head.clear();  // under lora every base weight is frozen
  }
  apply_trainable(model, head, set);
  if (lora)
    for (const auto& p : lora->parameters()) p.param->set_trainable(true);
  return lora;
}

}  // namespace tinylm::finetune
