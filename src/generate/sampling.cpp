#include "generate/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "util/error.h"

namespace tinylm {

void validate(const SamplingOptions& o) {
  require(o.temperature > 0 && std::isfinite(o.temperature),
          "--temperature must be a positive, finite number (use --greedy for argmax)");
  require(o.top_k >= 0, "--top-k must be >= 0 (0 keeps every token)");
  require(o.top_p >= 0 && o.top_p <= 1,
          "--top-p must be in [0, 1] (0 keeps the most likely token alone)");
}

int32_t argmax(const float* logits, int64_t V) {
  return static_cast<int32_t>(std::max_element(logits, logits + V) - logits);
}

SamplingCandidates sampling_candidates(const float* logits, int64_t V, const SamplingOptions& o) {
  if (o.greedy) return {{argmax(logits, V)}, {1.0}, 1.0};
  // Candidate ids, most likely first (stable: ties keep the lower id first).
  std::vector<int32_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  int64_t keep = (o.top_k > 0 && o.top_k < V) ? o.top_k : V;
  const auto by_logit = [&](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  if (keep < V) {
    std::partial_sort(order.begin(), order.begin() + keep, order.end(), by_logit);
  } else if (o.top_p < 1.0f) {
    std::sort(order.begin(), order.end(), by_logit);
  }
  order.resize(keep);

  // Softmax of logits / T over the candidates (max subtracted).
  float max_logit = -INFINITY;
  for (int32_t id : order) max_logit = std::max(max_logit, logits[id]);
  std::vector<double> probs(keep);
  double total = 0;
  for (int64_t i = 0; i < keep; ++i) {
    probs[i] = std::exp((static_cast<double>(logits[order[i]]) - max_logit) / o.temperature);
    total += probs[i];
  }
  if (o.top_p < 1.0f) {  // candidates are sorted: cut after the nucleus
    double cumulative = 0;
    int64_t n = 0;
    while (n < keep) {
      cumulative += probs[n++] / total;
      if (cumulative >= o.top_p) break;
    }
    keep = n;
    total = 0;
    for (int64_t i = 0; i < keep; ++i) total += probs[i];
  }
  order.resize(keep);
  probs.resize(keep);
  return {std::move(order), std::move(probs), total};
}

int32_t sample_next(const float* logits, int64_t V, const SamplingOptions& o, Rng& rng) {
  if (o.greedy) return argmax(logits, V);
  const SamplingCandidates c = sampling_candidates(logits, V, o);
  const double u = rng.uniform() * c.total;
  double cumulative = 0;
  for (size_t i = 0; i < c.ids.size(); ++i) {
    cumulative += c.weights[i];
    if (u < cumulative) return c.ids[i];
  }
  return c.ids.back();
}

}  // namespace tinylm
