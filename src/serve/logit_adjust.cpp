#include "serve/logit_adjust.h"

namespace tinylm::serve {

void adjust_logits(float* logits, int64_t V, const LogitAdjustments& a,
                   const std::unordered_map<int32_t, int64_t>& counts) {
  for (const auto& [id, value] : a.bias)
    if (id >= 0 && id < V) logits[id] += value;
  if (a.presence_penalty == 0 && a.frequency_penalty == 0) return;
  for (const auto& [id, count] : counts)
    if (id >= 0 && id < V && count > 0)
      logits[id] -= static_cast<float>(count) * a.frequency_penalty + a.presence_penalty;
}

}  // namespace tinylm::serve
