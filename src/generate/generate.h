// Autoregressive generation: append one token at a time, each chosen from the logits of
// the last position. When the sequence outgrows the model's context, only the last
// block_size tokens are fed (as nanoGPT does). With the KV cache, each step feeds one new
// token; when the cache is full it is rebuilt from the last block_size tokens (learned
// absolute positions cannot slide), so cached and uncached generation choose the same
// tokens.
#pragma once
#include <functional>
#include <vector>

#include "decode/decode_context.h"
#include "generate/sampling.h"

namespace tinylm {

// The most tokens one generation may ask for (sample.max_new_tokens, --max-new-tokens).
inline constexpr int64_t kMaxNewTokens = 1000000;

struct GenerateOptions {
  int64_t max_new_tokens = 32;
  SamplingOptions sampling;
  int32_t stop_id = -1;   // stop after emitting this id (e.g. <|endoftext|>); -1: never
  bool use_cache = true;  // KV cache; false recomputes the whole window at every step
};

// InputError for a prompt generate() refuses: empty, or an id outside the model's
// vocabulary (a model smaller than its tokenizer). For checks before anything is shown.
void check_prompt(const GPT& model, const std::vector<int32_t>& prompt);

// Returns the new ids (not the prompt). on_token(id) is called as each id is chosen
// (for streaming) and may return false to stop early. The KV cache path runs in `decoder`
// (its weights: decode/decode_weights.h); use_cache = false runs the model's own forward
// (float32 weights).
std::vector<int32_t> generate(DecodeContext& decoder, const std::vector<int32_t>& prompt,
                              const GenerateOptions& options, Rng& rng,
                              const std::function<bool(int32_t)>& on_token = nullptr);
// The same in a float32 decoding context made for this one generation.
std::vector<int32_t> generate(GPT& model, const std::vector<int32_t>& prompt,
                              const GenerateOptions& options, Rng& rng,
                              const std::function<bool(int32_t)>& on_token = nullptr);
// The same, with the logits each id was chosen from: on_step(id, logits [vocab_size])
// (before temperature, top-k and top-p), for the log-probabilities of each step.
std::vector<int32_t> generate_steps(DecodeContext& decoder, const std::vector<int32_t>& prompt,
                                    const GenerateOptions& options, Rng& rng,
                                    const std::function<bool(int32_t, const float*)>& on_step);

}  // namespace tinylm
