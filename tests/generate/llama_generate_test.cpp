// The llama family decoding with KV caches (decode/): the cache holds the kv heads only,
// keys and queries are rotated to their positions and normalised (Qwen3) before caching.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "decode/decode_context.h"
#include "generate/generate.h"
#include "model/hf_lm.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

const std::string kFixtures = std::string(source_dir()) + "/tests/fixtures/";

// Decoding with KV caches holding only the kv heads (RoPE at each position, q/k norms)
// continues as the references' full recomputation does; and the logits of a cached
// prompt, then one step, match the uncached forward's.
TEST(LlamaDecode, CachedGreedyMatchesTheReferenceContinuations) {
  for (const char* fixture : {"llama-micro", "qwen3-micro", "llama-tiny"}) {
    std::unique_ptr<GPT> model = load_hf_lm(kFixtures + fixture);
    const nlohmann::json ref =
        nlohmann::json::parse(std::ifstream(kFixtures + fixture + "/reference.json"));
    const auto prompt = ref["greedy"]["prompt_ids"].get<std::vector<int32_t>>();
    const auto expected = ref["greedy"]["output_ids"].get<std::vector<int32_t>>();
    GenerateOptions opts;
    opts.max_new_tokens = static_cast<int64_t>(expected.size());
    opts.sampling.greedy = true;
    Rng rng(0);
    EXPECT_EQ(generate(*model, prompt, opts, rng), expected) << fixture;

    DecodeContext decoder(*model);
    KVCache cache(model->config());
    const int64_t T = static_cast<int64_t>(prompt.size());
    decoder.forward(prompt.data(), T - 1, cache);
    const Tensor last = decoder.forward(prompt.data() + T - 1, 1, cache).clone();
    const Tensor full = model->forward(prompt.data(), 1, T);
    const int64_t V = model->config().vocab_size;
    for (int64_t v = 0; v < V; ++v)
      ASSERT_NEAR(last[v], full[(T - 1) * V + v], 1e-4) << fixture << " id " << v;
  }
}

// Batched decoding (two sequences at different positions in one forward) gives each
// sequence the logits it gets alone, with every decode weight type.
TEST(LlamaDecode, BatchedStepsMatchSingleSequences) {
  std::unique_ptr<GPT> model = load_hf_lm(kFixtures + "qwen3-micro");
  const std::vector<int32_t> a = {7, 260, 33, 481, 12}, b = {3, 9};
  for (auto type : {decode::DecodeWeights::kF32, decode::DecodeWeights::kQ8_0}) {
    DecodeContext decoder(*model, type);
    KVCache ca(model->config()), cb(model->config()), alone(model->config());
    decoder.forward(a.data(), 4, ca);
    decoder.forward(b.data(), 1, cb);
    const std::vector<int32_t> next = {a[4], b[1]};
    const std::vector<int64_t> counts = {1, 1};
    KVCache* caches[] = {&ca, &cb};
    const Tensor both = decoder.forward(next.data(), counts, caches).clone();
    decoder.forward(a.data(), 4, alone);
    const Tensor single = decoder.forward(a.data() + 4, 1, alone);
    for (int64_t v = 0; v < 512; ++v) ASSERT_NEAR(both[v], single[v], 1e-5) << v;
  }
}

}  // namespace
}  // namespace tinylm
