// `tinylm lora merge`: a base model with a PEFT LoRA adapter folded in, written as a
// Hugging Face folder (GPT2LMHeadModel, or GPT2ForSequenceClassification when the base
// is a classifier, with the base's tokenizer files), so that tools without PEFT can load the
// fine-tuned model, written as every model folder is (export/model_folder.h). The base is
// opened by the caller (open/open_model.h: any source).
#pragma once
#include <string>

#include "model/classifier.h"
#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace tinylm {

struct MergeSummary {
  int64_t modules = 0;          // adapted linear layers folded in
  int64_t lora_parameters = 0;  // adapter values read
  bool classifier = false;      // the base was a classifier
};

// Folds the adapter folder into `base` (its weights change) and writes the folder `out`
// (checked first: export/model_folder.h). InputError when a merged weight is NaN or
// infinite (nothing is written). `tokenizer` (the base's; null: none written) puts its
// files into the folder as `tinylm export --format hf` does
// (tokenizer/folder_tokenizer_files.h): without them the merged model is read with
// GPT-2's tokenizer. Like the export, a BPE vocabulary with a pre-tokeniser other than
// GPT-2's is an InputError naming it (nothing is written).
MergeSummary merge_adapter(GPT& base, const std::string& adapter, const std::string& out,
                           const Tokenizer* tokenizer);
MergeSummary merge_adapter(SequenceClassifier& base, const std::string& adapter,
                           const std::string& out, const Tokenizer* tokenizer);

}  // namespace tinylm
