// Choosing the next token from a row of logits [V].
//   greedy:       argmax (lowest id on ties)
//   temperature:  softmax(logits / T)
//   top-k:        keep the k largest logits (k = 0: all)
//   top-p:        keep the smallest set of most likely tokens whose probability sums to
//                 at least p (nucleus sampling; p = 1: all)
// Sampling draws one uniform number from rng per token, so a seed fixes the output.
#pragma once
#include <cstdint>
#include <vector>

#include "util/rng.h"

namespace tinylm {

struct SamplingOptions {
  bool greedy = false;
  float temperature = 1.0f;
  int64_t top_k = 0;
  float top_p = 1.0f;
};

// Throws InputError naming the flag for temperature <= 0, top_k < 0, top_p outside [0, 1].
void validate(const SamplingOptions& o);

int32_t argmax(const float* logits, int64_t V);

// The tokens sampling may choose and their weights, after temperature, top-k and top-p:
// P(ids[i]) = weights[i] / total (greedy: the argmax alone). With top-k or top-p the ids
// come most likely first; without either they stay in vocabulary order (all V of them:
// sorting would cost every sampled token a sort of the vocabulary).
struct SamplingCandidates {
  std::vector<int32_t> ids;
  std::vector<double> weights;
  double total = 0.0;
};
SamplingCandidates sampling_candidates(const float* logits, int64_t V, const SamplingOptions& o);
// Draws from sampling_candidates (one uniform number; none for greedy).
int32_t sample_next(const float* logits, int64_t V, const SamplingOptions& o, Rng& rng);

}  // namespace tinylm
