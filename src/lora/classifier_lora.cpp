// LoRA on a sequence classifier (see classifier_lora.h).
#include "lora/classifier_lora.h"

#include <memory>

#include "lora/peft.h"
#include "util/error.h"

namespace tinylm {

LoraSet& attach_lora(SequenceClassifier& model, const LoraConfig& lora, Rng& rng) {
  require(!model.adapters(), "LoRA adapters are already attached");
  auto set = std::make_unique<LoraSet>(model.body(), &model.score, lora, rng);
  LoraSet& attached = *set;
  model.attach_adapters(std::move(set));
  return attached;
}

LoraSet* lora_of(SequenceClassifier& model) {
  return dynamic_cast<LoraSet*>(model.adapters());
}

void merge_lora(SequenceClassifier& model) {
  LoraSet* lora = lora_of(model);
  if (!lora) return;
  lora->merge();
  model.drop_adapters();
}

void save_peft_classifier_adapter(SequenceClassifier& model, const std::string& dir,
                                  const std::string& base) {
  LoraSet* lora = lora_of(model);
  require(lora != nullptr, "the classifier has no LoRA adapters to save");
  save_peft_adapter(*lora, dir,
                    {"SEQ_CLS", base, model.score.adapter ? nullptr : &model.score.weight});
}

}  // namespace tinylm
