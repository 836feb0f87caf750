// `tinylm lora merge`: a base model with a PEFT LoRA adapter folded in, written as a
// Hugging Face folder (GPT2LMHeadModel, or GPT2ForSequenceClassification when the base
// is one), so that tools without PEFT can load the fine-tuned model.
#pragma once
#include <string>

namespace tinylm::finetune {

struct MergeSummary {
  int64_t modules = 0;          // adapted linear layers folded in
  int64_t lora_parameters = 0;  // adapter values read
  bool classifier = false;      // the base was a GPT2ForSequenceClassification folder
};

// base: a Hugging Face GPT-2 folder (GPT2LMHeadModel or GPT2ForSequenceClassification),
// a tinylm run folder / checkpoint, or a preset name (randomly initialised).
// out must not exist or be an empty folder (InputError otherwise: nothing is
// overwritten); the folder is written beside it under a temporary name and renamed.
MergeSummary merge_adapter(const std::string& base, const std::string& adapter,
                           const std::string& out);

}  // namespace tinylm::finetune
