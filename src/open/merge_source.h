// `tinylm lora merge --base SRC --adapter DIR --out OUT`: the base opened from any source
// (open_model.h), the adapter folded in (finetune/merge.h), a Hugging Face folder
// written: GPT2ForSequenceClassification for a classifier base, else GPT2LMHeadModel.
#pragma once
#include <string>

#include "finetune/merge.h"

namespace tinylm {

finetune::MergeSummary merge_adapter_into(const std::string& base_source,
                                          const std::string& adapter, const std::string& out);

}  // namespace tinylm
