// Small GPTs with random weights for the inspection tests (trace, attention maps, the
// greedy trace): weights large enough (0.3 instead of GPT-2's 0.02) that attention is far
// from uniform and every path carries signal. A sinusoidal table stays as it is.
#pragma once
#include <cstdint>
#include <vector>

#include "common/gradcheck.h"
#include "model/gpt.h"

namespace tinylm::testing {

inline GPT random_gpt(const GPTConfig& c, uint64_t seed) {
  GPT model(c);
  Rng rng(seed);
  model.init(rng);
  for (auto& p : model.parameters()) {
    if (p.name.rfind("wpe.", 0) == 0 && c.position == PositionEncoding::Sinusoidal) continue;
    p.param->value.copy_from(random_tensor(p.param->value.shape(), rng, 0.3f));
  }
  return model;
}

inline std::vector<int32_t> random_ids(int64_t T, int64_t V, Rng& rng) {
  std::vector<int32_t> ids(T);
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(V));
  return ids;
}

}  // namespace tinylm::testing
