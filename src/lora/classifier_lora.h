// LoRA on a sequence classifier (model/classifier.h): adapters on its GPT body and, when
// targeted ("head"), on its `score` head, owned by the classifier; and their PEFT file.
#pragma once
#include <string>

#include "lora/lora.h"
#include "model/classifier.h"
#include "util/rng.h"

namespace tinylm {

// Attaches adapters on lora.targets to the classifier (A from rng, B zeros).
// InputError when it carries adapters already.
LoraSet& attach_lora(SequenceClassifier& model, const LoraConfig& lora, Rng& rng);

// The classifier's LoRA adapters; null when none are attached.
LoraSet* lora_of(SequenceClassifier& model);

// Folds the adapters into the base weights and removes them (nothing without adapters).
void merge_lora(SequenceClassifier& model);

// Writes the classifier's LoRA adapters as PEFT saves a SEQ_CLS adapter (lora/peft.h):
// task_type SEQ_CLS, base_model_name_or_path `base`, and the head saved whole
// (modules_to_save ["score"]) unless it carries an adapter itself. InputError without
// adapters.
void save_peft_classifier_adapter(SequenceClassifier& model, const std::string& dir,
                                  const std::string& base);

}  // namespace tinylm
