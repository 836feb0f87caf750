#include "train/lora_adapters.h"

#include "lora/lora.h"

namespace tinylm {

report::LoraAdapters lora_adapters_of(const GPTConfig& model, const LoraConfig& lora) {
  report::LoraAdapters a;
  a.r = lora.r;
  a.dropout = lora.dropout;
  std::string targets;
  for (const auto& t : lora.targets) targets += (targets.empty() ? "" : ", ") + t;
  a.description = "LoRA r " + std::to_string(lora.r) + " on " + targets;
  for (const LoraTarget& t : lora_targets(model, 0, lora))
    a.layers.push_back({t.module, t.in, t.out});
  return a;
}

}  // namespace tinylm
