// Opening a model from any source, by its row of the table (see open_model.h).
#include "open/open_model.h"

#include "backend/registry.h"
#include "util/error.h"

namespace tinylm {

OpenedModel open_model(const ModelSourceInfo& source, const OpenOptions& options) {
  OpenedModel m;
  m.source = source;
  model_source_row(source.kind).open(m, options);
  return m;
}

OpenedModel open_model(const std::string& src, const OpenOptions& options) {
  return open_model(identify_model_source(src, options.option), options);
}

GPT& OpenedModel::language_model(const std::string& verb) {
  if (lm) return *lm;
  throw InputError(source.option + " " + source.path + " is " + describe(source) + "; " + verb +
                   " needs a language model (use tinylm classify for a classifier)");
}

SequenceClassifier& OpenedModel::classifier_model(const std::string& verb) {
  if (classifier) return *classifier;
  throw InputError(source.option + " " + source.path + " is " + describe(source) + "; " + verb +
                   " needs a classifier: a classify fine-tuning run or a Hugging Face "
                   "GPT2ForSequenceClassification folder" +
                   (source.task == "instruct" ? " (use tinylm respond for an instruct run)" : ""));
}

void OpenedModel::merge_adapters() {
  if (!lora) return;
  lora->merge();
  lora.reset();
}

void OpenedModel::to(Device device) {
  if (device == Device::kCpu) return;
  require_device(device);
  require(lm != nullptr, [&] {
    return title() + ": a classifier runs on the CPU only (--device " + device_name(device) +
           " takes language models)";
  });
  merge_adapters();
  lm->to(device);
}

std::string OpenedModel::title() const {
  return source.path + " (" + describe(source) + ")";
}

}  // namespace tinylm
