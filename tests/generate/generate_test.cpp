#include "generate/generate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "decode/decode_weights.h"
#include "model/hf_gpt2.h"
#include "ops/matmul.h"
#include "util/error.h"
#include "util/source_dir.h"

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
  DecodeContext decoder(model);
  KVCache cache(model.config());
  decoder.forward(ids.data(), 3, cache);  // prefill 3, then one at a time
  for (int64_t t = 3; t < 8; ++t) {
    const Tensor last = decoder.forward(ids.data() + t, 1, cache);
    for (int64_t v = 0; v < 17; ++v) EXPECT_NEAR(last[v], full[t * 17 + v], 1e-5);
  }
}

// Decode weights (decode/decode_weights.h) on the GPT-2 fixture's weights: a long prompt
// (more rows than a copy serves) runs the blocks on the float32 weights (packed,
// decode/prompt_weights.h: the same numbers, summed in another order than sgemm's, so equal
// to rounding) and its last row through the head's copy; a short prompt and every decode
// step read the copies and stay within `tolerance` (relative L2) of the float32 logits;
// a float32 context after them gives the float32 results back bit for bit.
void expect_decode_close_to_float32(decode::DecodeWeights type, double tolerance) {
  std::unique_ptr<GPT> model =
      load_hf_gpt2(std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-tiny");
  const int64_t V = model->config().vocab_size;
  Rng rng(5);
  std::vector<int32_t> ids(ops::kRowInvariantMaxRows + 8);
  for (int32_t& id : ids) id = static_cast<int32_t>(rng.below(V));
  // Logits after a prompt of `prompt` ids, then after each following id.
  const auto decode_ids = [&](decode::DecodeWeights weights, int64_t prompt,
                              std::vector<std::vector<float>>& steps) {
    DecodeContext decoder(*model, weights);
    KVCache cache(model->config());
    const Tensor first = decoder.forward(ids.data(), prompt, cache);
    steps.emplace_back(first.data(), first.data() + V);
    for (size_t t = prompt; t < ids.size(); ++t) {
      const Tensor logits = decoder.forward(ids.data() + t, 1, cache);
      steps.emplace_back(logits.data(), logits.data() + V);
    }
  };
  const int64_t long_prompt = ops::kRowInvariantMaxRows + 1, short_prompt = 4;
  std::vector<std::vector<float>> f32_long, f32_short, long_, short_, back;
  const decode::DecodeWeights f32 = decode::DecodeWeights::kF32;
  decode_ids(f32, long_prompt, f32_long);
  decode_ids(f32, short_prompt, f32_short);
  decode_ids(type, long_prompt, long_);
  decode_ids(type, short_prompt, short_);
  decode_ids(f32, short_prompt, back);
  EXPECT_EQ(back, f32_short);
  const auto relative_l2 = [&](const std::vector<float>& got, const std::vector<float>& want) {
    double diff = 0, norm = 0;
    for (int64_t v = 0; v < V; ++v) {
      diff += std::pow(static_cast<double>(got[v]) - want[v], 2);
      norm += std::pow(static_cast<double>(want[v]), 2);
    }
    return std::sqrt(diff / norm);
  };
  // A long prompt's blocks keep the float32 weights: float32 rounding apart from the
  // float32 body's last row put through a copy of the head (a 16-bit copy in the blocks
  // would be 1e-3 or more away).
  const Tensor hidden = model->forward_hidden(ids.data(), 1, long_prompt);  // [1, T, C]
  const int64_t C = model->config().d_model;
  decode::DecodeCopy head;
  head.make(model->head_weight().value, type);
  std::vector<float> body_f32_head_copy(V);
  head.forward(hidden.data() + (long_prompt - 1) * C,
               model->config().head_bias ? model->lm_head_bias.value.data() : nullptr,
               body_f32_head_copy.data(), 1);
  EXPECT_LT(relative_l2(long_[0], body_f32_head_copy), 1e-6);
  const auto expect_close = [&](const std::vector<std::vector<float>>& got,
                                const std::vector<std::vector<float>>& want, size_t from) {
    for (size_t s = from; s < want.size(); ++s) {
      EXPECT_NE(got[s], want[s]) << "step " << s << " did not read the copies";
      EXPECT_LT(relative_l2(got[s], want[s]), tolerance) << "step " << s;
    }
  };
  expect_close(long_, f32_long, 0);
  expect_close(short_, f32_short, 0);
}

TEST(Generate, Bf16DecodeStaysCloseToFloat32) {
  expect_decode_close_to_float32(decode::DecodeWeights::kBf16, 1e-2);
}

TEST(Generate, F16DecodeStaysCloseToFloat32) {
  expect_decode_close_to_float32(decode::DecodeWeights::kF16, 2e-3);
}

// Q8_0: 8-bit weights and 8-bit activations per block of 32 (3.5 % at most measured on
// this random-weight fixture, whose logits are small).
TEST(Generate, Q8DecodeStaysCloseToFloat32) {
  expect_decode_close_to_float32(decode::DecodeWeights::kQ8_0, 5e-2);
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
  // top-p 0 (OpenAI's and Hugging Face's range starts at 0): the most likely token alone.
  nucleus.top_p = 0.0f;
  EXPECT_NO_THROW(validate(nucleus));
  EXPECT_EQ(sampling_candidates(logits.data(), 4, nucleus).ids, std::vector<int32_t>{1});

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
  bad.top_p = -0.1f;
  EXPECT_THROW(validate(bad), InputError);
}

}  // namespace
}  // namespace tinylm
