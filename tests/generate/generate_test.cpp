#include "generate/generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "model/hf_gpt2.h"
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

// bf16 decode weights: the prompt (several positions) is computed exactly as before, each
// decode step's logits stay within 1 % (relative L2) of the float32 ones on the GPT-2
// fixture's weights, and dropping the copies gives the float32 results back bit for bit.
TEST(Generate, Bf16DecodeStaysCloseToFloat32) {
  std::unique_ptr<GPT> model =
      load_hf_gpt2(std::string(TINYLM_SOURCE_DIR) + "/tests/fixtures/gpt2-tiny");
  const int64_t V = model->config().vocab_size;
  const std::vector<int32_t> ids = {464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 13};
  const auto decode = [&](std::vector<std::vector<float>>& steps) {
    KVCache cache(model->config());
    const Tensor prompt = model->forward_cached(ids.data(), 4, cache);
    steps.emplace_back(prompt.data(), prompt.data() + V);
    for (size_t t = 4; t < ids.size(); ++t) {
      const Tensor logits = model->forward_cached(ids.data() + t, 1, cache);
      steps.emplace_back(logits.data(), logits.data() + V);
    }
  };
  std::vector<std::vector<float>> f32, bf16, back;
  decode(f32);
  model->set_bf16_decode(true);
  decode(bf16);
  model->set_bf16_decode(false);
  decode(back);
  EXPECT_EQ(back, f32);
  EXPECT_EQ(bf16[0], f32[0]);  // the prompt keeps the float32 weights
  for (size_t s = 1; s < f32.size(); ++s) {
    double diff = 0, norm = 0;
    for (int64_t v = 0; v < V; ++v) {
      diff += std::pow(static_cast<double>(bf16[s][v]) - f32[s][v], 2);
      norm += std::pow(static_cast<double>(f32[s][v]), 2);
    }
    EXPECT_GT(diff, 0) << "step " << s << " did not use the bf16 weights";
    EXPECT_LT(std::sqrt(diff / norm), 1e-2) << "step " << s;
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
