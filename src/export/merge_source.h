// `tinylm lora merge --base SRC --adapter DIR --out OUT`: the base opened from any source
// (open_model.h), the adapter folded in (export/merge.h), a Hugging Face folder
// written: GPT2ForSequenceClassification for a classifier base, else GPT2LMHeadModel,
// with the base's tokenizer files.
// OUT is checked before the base is read. A base that is a run which trained LoRA (a
// train run with train.trainable "lora", a fine-tuning run with LoRA, or a checkpoint of
// one) is refused: its weights already hold its adapters, so a merge would apply LoRA twice.
#pragma once
#include <string>

#include "export/merge.h"

namespace tinylm {

MergeSummary merge_adapter_into(const std::string& base_source, const std::string& adapter,
                                const std::string& out);

}  // namespace tinylm
