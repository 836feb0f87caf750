#include "train/lora_adapters.h"

#include "lora/lora.h"

namespace tinylm {

report::LoraAdapters lora_adapters_of(const TrainConfig& c) {
  report::LoraAdapters a;
  a.r = c.lora.r;
  a.dropout = c.lora.dropout;
  std::string targets;
  for (const auto& t : c.lora.targets) targets += (targets.empty() ? "" : ", ") + t;
  a.description = "LoRA r " + std::to_string(c.lora.r) + " on " + targets;
  for (const LoraTarget& t : lora_targets(c.model, 0, c.lora))
    a.layers.push_back({t.module, t.in, t.out});
  return a;
}

}  // namespace tinylm
