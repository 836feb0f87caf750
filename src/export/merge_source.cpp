#include "export/merge_source.h"

#include "export/model_folder.h"
#include "hub/hub_cache.h"
#include "lora/classifier_lora.h"
#include "open/open_model.h"
#include "util/error.h"

namespace tinylm {

namespace {

// A run that trained LoRA opens with its adapters in its weights (a train run's merged
// on load, a fine-tuning run's attached): merging an adapter into it applies LoRA a
// second time. Refused, pointing at the run's own base.
void refuse_lora_run(OpenedModel& base, const std::string& source) {
  std::string from;
  if (base.train_config && base.train_config->train.trainable == "lora")
    from = base.train_config->train.init_from;
  else if (base.finetune_config && (base.lora || (base.classifier && lora_of(*base.classifier))))
    from = base.finetune_config->base;
  else
    return;
  throw InputError("--base " + source + " is a run that trained LoRA adapters: its weights " +
                   "already hold them (tinylm folds them in when it opens the run), so merging " +
                   "an adapter into it would apply LoRA twice; merge into the model the run " +
                   "started from" + (from.empty() ? "" : " (--base " + from + ")"));
}

}  // namespace

MergeSummary merge_adapter_into(const std::string& base_source, const std::string& adapter,
                                const std::string& given_out) {
  const std::string out = checked_model_folder(given_out);  // before the base is read
  OpenOptions options;
  options.option = "--base";
  OpenedModel base = open_model(base_source, options);
  refuse_lora_run(base, base_source);
  const std::string folder = hub::folder_or_cached(adapter);  // a repo id: from the cache
  // The base's tokenizer goes with the merged model: tinylm reads it back with it.
  const Tokenizer* tokenizer = base.tokenizer.get();
  if (base.classifier) return merge_adapter(*base.classifier, folder, out, tokenizer);
  return merge_adapter(*base.lm, folder, out, tokenizer);
}

}  // namespace tinylm
