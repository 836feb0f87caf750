// The llama family through a GGUF file and back (model/gguf_llama.h): llama.cpp's llama
// (q and k rows permuted to adjacent pairs, Llama 3 scaling as rope_freqs), qwen3 (q/k
// norms, a head width apart from d_model / n_head) and qwen2 (q/k/v biases), each read
// back bit for bit at F32. (tests/export/llama_cpp/run.sh has llama.cpp itself read them.)
#include "model/gguf_llama.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/gradcheck.h"
#include "model/gguf_lm.h"
#include "model/hf_lm.h"
#include "util/error.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

const std::string kGgufFixtures = std::string(source_dir()) + "/tests/fixtures/";

std::unique_ptr<GPT> through_file(GPT& model) {
  const std::string bytes = serialize_gguf(model_to_gguf(model, GgmlType::kF32, "test"));
  return model_from_gguf(parse_gguf(bytes, "test.gguf"));
}

void expect_same_model(GPT& a, GPT& b) {
  EXPECT_EQ(a.config().to_json(), b.config().to_json());
  auto pa = a.parameters(), pb = b.parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i)
    for (int64_t j = 0; j < pa[i].param->value.numel(); ++j)
      ASSERT_EQ(pa[i].param->value[j], pb[i].param->value[j]) << pa[i].name << " " << j;
}

std::string arch_of(GPT& model) {
  return model_to_gguf(model, GgmlType::kF32, "t").get_string("general.architecture");
}

TEST(GgufLlama, FixturesRoundTripBitForBit) {
  for (const char* fixture : {"llama-micro", "qwen3-micro", "llama-tiny"}) {
    std::unique_ptr<GPT> model = load_hf_lm(kGgufFixtures + fixture);
    std::unique_ptr<GPT> back = through_file(*model);
    expect_same_model(*model, *back);
  }
  std::unique_ptr<GPT> qwen3 = load_hf_lm(kGgufFixtures + "qwen3-micro");
  EXPECT_EQ(arch_of(*qwen3), "qwen3");
  std::unique_ptr<GPT> llama = load_hf_lm(kGgufFixtures + "llama-tiny");
  const Gguf g = model_to_gguf(*llama, GgmlType::kF32, "t");
  EXPECT_EQ(g.get_string("general.architecture"), "llama");
  EXPECT_EQ(g.get_integer("llama.attention.head_count_kv"), 1);
  EXPECT_EQ(g.get_integer("llama.rope.dimension_count"), 16);
  // rope_freqs: frequency 0 kept, 1 smoothed (divided by 2.442), 2..7 divided by 8
  const Tensor freqs = g.tensor("rope_freqs.weight").to_float();
  EXPECT_FLOAT_EQ(freqs[0], 1.0f);
  EXPECT_NEAR(freqs[1], 2.442f, 2e-3);
  EXPECT_FLOAT_EQ(freqs[7], 8.0f);
}

// llama.cpp's llama rotates adjacent pairs: head h's row i (first half) is stored at
// 2i, row i + D/2 at 2i + 1. k's heads are the kv heads.
TEST(GgufLlama, LlamaPermutesQueryAndKeyRowsWithinEachHead) {
  std::unique_ptr<GPT> model = load_hf_lm(kGgufFixtures + "llama-micro");  // H 4, KV 2, D 12
  const Gguf g = model_to_gguf(*model, GgmlType::kF32, "t");
  const Tensor q = g.tensor("blk.0.attn_q.weight").to_float();
  const Tensor k = g.tensor("blk.0.attn_k.weight").to_float();
  const Tensor& hq = model->h[0].attn.q_proj.weight.value;
  const Tensor& hk = model->h[0].attn.k_proj.weight.value;
  const int64_t C = 48, D = 12;
  for (auto [stored, hf, heads] : {std::tuple{&q, &hq, 4}, std::tuple{&k, &hk, 2}})
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < D / 2; ++i)
        for (int64_t c = 0; c < C; ++c) {
          ASSERT_EQ((*stored)[(h * D + 2 * i) * C + c], (*hf)[(h * D + i) * C + c]);
          ASSERT_EQ((*stored)[(h * D + 2 * i + 1) * C + c], (*hf)[(h * D + i + D / 2) * C + c]);
        }
  // v is not rotated: stored as it is
  const Tensor v = g.tensor("blk.0.attn_v.weight").to_float();
  for (int64_t j = 0; j < v.numel(); ++j) ASSERT_EQ(v[j], model->h[0].attn.v_proj.weight.value[j]);
}

TEST(GgufLlama, Qwen2BiasesRoundTrip) {
  GPTConfig c = GPTConfig::from_json({{"arch", "llama"},
                                      {"vocab_size", 40},
                                      {"block_size", 16},
                                      {"n_layer", 2},
                                      {"n_head", 4},
                                      {"n_kv_head", 2},
                                      {"d_model", 32},
                                      {"d_ff", 48},
                                      {"attention_bias", true}});
  GPT model(c);
  Rng rng(3);
  for (auto& p : model.parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.2f));
  EXPECT_EQ(arch_of(model), "qwen2");
  std::unique_ptr<GPT> back = through_file(model);
  expect_same_model(model, *back);
}

TEST(GgufLlama, RefusesForeignScalingAndStrayTensors) {
  std::unique_ptr<GPT> model = load_hf_lm(kGgufFixtures + "llama-tiny");
  Gguf g = model_to_gguf(*model, GgmlType::kF32, "t");
  Gguf foreign = g;
  std::erase_if(foreign.metadata, [](const auto& kv) { return kv.first.starts_with("tinylm."); });
  EXPECT_THROW(model_from_gguf(foreign), InputError);
  Gguf stray = g;
  stray.tensors.push_back(
      gguf_tensor("blk.9.attn_q.weight", Tensor::zeros({4, 4}), GgmlType::kF32));
  EXPECT_THROW(model_from_gguf(stray), InputError);
}

}  // namespace
}  // namespace tinylm
