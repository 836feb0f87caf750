#include "open/merge_source.h"

#include "open/open_model.h"
#include "util/error.h"

namespace tinylm {

finetune::MergeSummary merge_adapter_into(const std::string& base_source,
                                          const std::string& adapter, const std::string& out) {
  require(!out.empty(), "--out: empty path");
  OpenOptions options;
  options.option = "--base";
  OpenedModel base = open_model(base_source, options);
  if (base.classifier) return finetune::merge_adapter(*base.classifier, adapter, out);
  base.merge_adapters();  // an instruct run's own LoRA first
  return finetune::merge_adapter(*base.lm, adapter, out);
}

}  // namespace tinylm
