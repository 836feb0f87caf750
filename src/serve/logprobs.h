// Log-probabilities of tokens under the model's own distribution (log-softmax of the
// logits, before temperature, top-k and top-p): what the API's logprobs report.
#pragma once
#include <cstdint>
#include <vector>

namespace tinylm::serve {

struct TokenLogprob {
  int32_t id = 0;
  float logprob = 0.0f;
};

struct ScoredToken {
  float logprob = 0.0f;           // of the token given
  std::vector<TokenLogprob> top;  // the `top` most likely tokens (ties: lower id first)
};

// logits [V]; id the token to score; top >= 0 alternatives.
ScoredToken score_token(const float* logits, int64_t V, int32_t id, int top);

}  // namespace tinylm::serve
