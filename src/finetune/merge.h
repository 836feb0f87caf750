// `tinylm lora merge`: a base model with a PEFT LoRA adapter folded in, written as a
// Hugging Face folder (GPT2LMHeadModel, or GPT2ForSequenceClassification when the base
// is a classifier), so that tools without PEFT can load the fine-tuned model. The base
// is opened by the caller (open/open_model.h: any source).
#pragma once
#include <string>

#include "finetune/classifier.h"
#include "model/gpt.h"

namespace tinylm::finetune {

struct MergeSummary {
  int64_t modules = 0;          // adapted linear layers folded in
  int64_t lora_parameters = 0;  // adapter values read
  bool classifier = false;      // the base was a classifier
};

// Folds the adapter folder into `base` (its weights change) and writes `out`. out must
// not exist or be an empty folder (InputError otherwise: nothing is overwritten); the
// folder is written beside it under a temporary name and renamed.
MergeSummary merge_adapter(GPT& base, const std::string& adapter, const std::string& out);
MergeSummary merge_adapter(SequenceClassifier& base, const std::string& adapter,
                           const std::string& out);

}  // namespace tinylm::finetune
