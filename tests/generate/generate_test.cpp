#include "generate/generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "util/error.h"

namespace tinylm {
namespace {

GPT random_model(bool pre_ln) {
  GPTConfig c;
  c.vocab_size = 17, c.block_size = 12, c.n_layer = 2, c.n_head = 2, c.d_model = 16;
  c.pre_ln = pre_ln;
  GPT model(c);
  Rng rng(5);
  model.init(rng);
  for (auto& p : model.parameters())
    for (int64_t i = 0; i < p.param->value.numel(); ++i) p.param->value[i] += 0.2f * rng.normal();
  return model;
}

// The KV cache gives the same tokens as full recomputation, also past the context length
// (prompt 5 + 20 new > block 12) and when sampling.
TEST(Generate, CachedAndUncachedChooseTheSameTokens) {
  for (bool pre_ln : {true, false}) {
    GPT model = random_model(pre_ln);
    for (bool greedy : {true, false}) {
      GenerateOptions opts;
      opts.max_new_tokens = 20;
      opts.sampling.greedy = greedy;
      opts.sampling.top_k = 5;
      Rng r1(9), r2(9);
      opts.use_cache = true;
      const auto cached = generate(model, {1, 2, 3, 4, 5}, opts, r1);
      opts.use_cache = false;
      const auto full = generate(model, {1, 2, 3, 4, 5}, opts, r2);
      EXPECT_EQ(cached, full) << "pre_ln " << pre_ln << " greedy " << greedy;
      EXPECT_EQ(cached.size(), 20u);
    }
  }
}

TEST(Generate, CachedLogitsMatchFullForward) {
  GPT model = random_model(true);
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9, 2, 6};
  const Tensor full = model.forward(ids.data(), 1, 8).clone();
  KVCache cache(model.config());
  model.forward_cached(ids.data(), 3, cache);  // prefill 3, then one at a time
  for (int64_t t = 3; t < 8; ++t) {
    const Tensor last = model.forward_cached(ids.data() + t, 1, cache);
    for (int64_t v = 0; v < 17; ++v) EXPECT_NEAR(last[v], full[t * 17 + v], 1e-5);
  }
}

TEST(Sampling, GreedyTopKTopPAndTemperature) {
  const std::vector<float> logits = {1.0f, 3.0f, 2.0f, -1.0f};
  Rng rng(1);
  SamplingOptions greedy;
  greedy.greedy = true;
  EXPECT_EQ(sample_next(logits.data(), 4, greedy, rng), 1);

  SamplingOptions top1;
  top1.top_k = 1;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(sample_next(logits.data(), 4, top1, rng), 1);

  // top-k 2 only ever picks ids 1 and 2, in proportion e^3 : e^2.
  SamplingOptions top2;
  top2.top_k = 2;
  std::map<int, int> counts;
  for (int i = 0; i < 20000; ++i) counts[sample_next(logits.data(), 4, top2, rng)]++;
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_NEAR(counts[1] / 20000.0, std::exp(3.0) / (std::exp(3.0) + std::exp(2.0)), 0.02);

  // top-p 0.5: the most likely token alone holds > 0.5 of the mass.
  SamplingOptions nucleus;
  nucleus.top_p = 0.5f;
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sample_next(logits.data(), 4, nucleus, rng), 1);

  // A very low temperature approaches greedy.
  SamplingOptions cold;
  cold.temperature = 1e-3f;
  for (int i = 0; i < 50; ++i) EXPECT_EQ(sample_next(logits.data(), 4, cold, rng), 1);

  SamplingOptions bad;
  bad.temperature = 0;
  EXPECT_THROW(validate(bad), InputError);
  bad = {};
  bad.top_p = 1.5f;
  EXPECT_THROW(validate(bad), InputError);
}

}  // namespace
}  // namespace tinylm
