// The OpenAI API's changes to the logits before a token is chosen (greedy or sampled):
// logit_bias adds its value to the token's logit, and each token generated so far is
// pushed down by the presence penalty once and by the frequency penalty per time it came:
//   l[j] += bias[j] - c[j] * frequency_penalty - (c[j] > 0 ? presence_penalty : 0)
// with c[j] the count of token j among the generated tokens (not the prompt's), as
// OpenAI's documentation writes it. The log-probabilities the API reports stay the
// model's own (logprobs.h).
#pragma once
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tinylm::serve {

struct LogitAdjustments {
  std::vector<std::pair<int32_t, float>> bias;  // (token id, added to its logit)
  float presence_penalty = 0.0f, frequency_penalty = 0.0f;
  bool any() const { return !bias.empty() || presence_penalty != 0 || frequency_penalty != 0; }
};

// logits [V] in place; counts: token id -> times generated so far.
void adjust_logits(float* logits, int64_t V, const LogitAdjustments& a,
                   const std::unordered_map<int32_t, int64_t>& counts);

}  // namespace tinylm::serve
