// Base + PEFT adapter -> merged Hugging Face folder (see merge.h).
#include "export/merge.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "export/model_folder.h"
#include "lora/peft.h"
#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "model/hf_lm.h"
#include "util/error.h"

namespace tinylm {

namespace {

// InputError naming the first weight that is NaN or infinite.
void require_finite(const ParameterList& params) {
  for (const auto& p : params) {
    const float* v = p.param->value.data();
    const int64_t n = p.param->value.numel();
    if (std::all_of(v, v + n, [](float x) { return std::isfinite(x); })) continue;
    throw InputError("the merged weight " + p.name +
                     " is NaN or infinite (nothing was written): check the adapter's values "
                     "and lora_alpha");
  }
}

// Writes the folder `out` (export/model_folder.h): `write` fills it, given the
// end-of-text id its config names (the tokenizer's, GPT-2's for a base read with GPT-2's).
void write_merged_folder(const std::string& out, const Tokenizer* tokenizer,
                         int64_t model_max_length,
                         const std::function<void(const std::string&, int32_t)>& write) {
  const int32_t eot = tokenizer ? tokenizer->eot_id() : kGpt2EndOfText;
  write_model_folder(out, tokenizer, model_max_length,
                     [&](const std::string& dir) { write(dir, eot); });
}

// Reads the adapter onto `body` (and `head`), folds it in and removes it.
MergeSummary fold_adapter(GPT& body, nn::Linear* head, const std::string& adapter) {
  auto lora = load_peft_adapter(body, head, adapter);
  MergeSummary summary;
  summary.modules = static_cast<int64_t>(lora->attached().size());
  summary.lora_parameters = lora->num_parameters();
  lora->merge();
  return summary;
}

}  // namespace

MergeSummary merge_adapter(GPT& base, const std::string& adapter, const std::string& out,
                           const Tokenizer* tokenizer) {
  checked_model_folder(out);
  const MergeSummary summary = fold_adapter(base, nullptr, adapter);
  require_finite(base.parameters());
  write_merged_folder(out, tokenizer, base.config().block_size,
                      [&](const std::string& dir, int32_t eot) {
                        save_hf_lm(base, dir, eot);
                        write_hf_generation_config(eot, dir);
                      });
  return summary;
}

MergeSummary merge_adapter(SequenceClassifier& base, const std::string& adapter,
                           const std::string& out, const Tokenizer* tokenizer) {
  checked_model_folder(out);
  MergeSummary summary = fold_adapter(base.body(), &base.score, adapter);
  summary.classifier = true;
  require_finite(base.parameters());
  // The base's max_length travels (pooling does with the config): without it the merged
  // folder would read texts unpadded and pool another position than the run did.
  write_merged_folder(out, tokenizer, base.body().config().block_size,
                      [&](const std::string& dir, int32_t eot) {
                        save_hf_classifier(base, dir, base.config().max_length, eot);
                      });
  return summary;
}

}  // namespace tinylm
