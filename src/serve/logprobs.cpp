#include "serve/logprobs.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tinylm::serve {

ScoredToken score_token(const float* logits, int64_t V, int32_t id, int top) {
  const float max = *std::max_element(logits, logits + V);
  double sum = 0.0;
  for (int64_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(logits[v] - max));
  const double log_sum = static_cast<double>(max) + std::log(sum);
  ScoredToken s;
  s.logprob = static_cast<float>(logits[id] - log_sum);
  std::vector<int32_t> ids(static_cast<size_t>(V));
  std::iota(ids.begin(), ids.end(), 0);
  const int64_t k = std::min<int64_t>(top, V);
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  });
  for (int64_t i = 0; i < k; ++i)
    s.top.push_back({ids[i], static_cast<float>(logits[ids[i]] - log_sum)});
  return s;
}

}  // namespace tinylm::serve
