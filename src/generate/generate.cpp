#include "generate/generate.h"

#include <algorithm>

#include "util/error.h"

namespace tinylm {

void check_prompt(const GPT& model, const std::vector<int32_t>& prompt) {
  require(!prompt.empty(), "generation needs a prompt of at least one token");
  const int64_t V = model.config().vocab_size;
  for (int32_t id : prompt)
    require(id >= 0 && id < V, "prompt token id " + std::to_string(id) +
                                   " is outside the model's vocabulary (" + std::to_string(V) +
                                   " tokens)");
}

std::vector<int32_t> generate_steps(DecodeContext& decoder, const std::vector<int32_t>& prompt,
                                    const GenerateOptions& options, Rng& rng,
                                    const std::function<bool(int32_t, const float*)>& on_step) {
  GPT& model = decoder.model();
  check_prompt(model, prompt);
  validate(options.sampling);
  const int64_t block = model.config().block_size, V = model.config().vocab_size;
  std::vector<int32_t> ids = prompt, out;
  KVCache cache = decoder.new_cache();
  for (int64_t i = 0; i < options.max_new_tokens; ++i) {
    const int64_t T = std::min<int64_t>(static_cast<int64_t>(ids.size()), block);
    const float* last_logits;
    Tensor logits;
    if (!options.use_cache) {
      logits = model.forward(ids.data() + ids.size() - T, 1, T).to(Device::kCpu);
      last_logits = logits.data() + (T - 1) * V;
    } else {
      if (cache.pos == block) cache.clear();  // full: rebuild from the last block tokens
      logits = cache.pos == 0 ? decoder.forward(ids.data() + ids.size() - T, T, cache)
                              : decoder.forward(&ids.back(), 1, cache);
      last_logits = logits.data();
    }
    const int32_t next = sample_next(last_logits, V, options.sampling, rng);
    ids.push_back(next);
    out.push_back(next);
    if (on_step && !on_step(next, last_logits)) break;
    if (next == options.stop_id) break;
  }
  return out;
}

std::vector<int32_t> generate(DecodeContext& decoder, const std::vector<int32_t>& prompt,
                              const GenerateOptions& options, Rng& rng,
                              const std::function<bool(int32_t)>& on_token) {
  if (!on_token) return generate_steps(decoder, prompt, options, rng, nullptr);
  return generate_steps(decoder, prompt, options, rng,
                        [&](int32_t id, const float*) { return on_token(id); });
}

std::vector<int32_t> generate(GPT& model, const std::vector<int32_t>& prompt,
                              const GenerateOptions& options, Rng& rng,
                              const std::function<bool(int32_t)>& on_token) {
  DecodeContext decoder(model);
  return generate(decoder, prompt, options, rng, on_token);
}

}  // namespace tinylm
