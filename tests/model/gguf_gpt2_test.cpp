// A GPT through a GGUF file and back: bit-identical logits for F32; for F16, BF16 and Q8_0
// the logits of the model whose matrices went through that type; the names and layout
// llama.cpp's gpt2 expects; zero biases and sinusoidal tables written as the same
// function; the options llama.cpp cannot run refused by name; bad files refused.
#include "model/gguf_gpt2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/gradcheck.h"
#include "util/error.h"

namespace tinylm {
namespace {

GPTConfig small_config() {
  GPTConfig c;
  c.vocab_size = 37, c.block_size = 16, c.n_layer = 2, c.n_head = 2, c.d_model = 32;
  return c;
}

std::unique_ptr<GPT> random_model(const GPTConfig& c, uint64_t seed) {
  auto model = std::make_unique<GPT>(c);
  Rng rng(seed);
  model->init(rng);
  for (auto& p : model->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.2f));
  return model;
}

std::vector<float> logits_of(GPT& model) {
  const std::vector<int32_t> ids = {1, 5, 36, 0, 7, 7, 12, 3, 30, 2};
  return model.forward(ids.data(), 2, 5).to_vector();
}

std::unique_ptr<GPT> through_file(GPT& model, GgmlType type) {
  const std::string bytes = serialize_gguf(gpt_to_gguf(model, type, "test"));
  return gpt_from_gguf(parse_gguf(bytes, "test.gguf"));
}

TEST(GgufGpt2, Float32IsBitIdentical) {
  for (bool tied : {true, false}) {
    GPTConfig c = small_config();
    c.tie_head = tied;
    auto model = random_model(c, 1);
    auto back = through_file(*model, GgmlType::kF32);
    EXPECT_EQ(back->config().tie_head, tied);
    EXPECT_EQ(logits_of(*back), logits_of(*model)) << "tied " << tied;
  }
}

TEST(GgufGpt2, OtherTypesGiveTheModelWithItsMatricesRounded) {
  for (GgmlType type : {GgmlType::kF16, GgmlType::kBF16, GgmlType::kQ8_0}) {
    auto model = random_model(small_config(), 2);
    auto back = through_file(*model, type);
    // The same rounding applied by hand to the matrices only.
    for (auto& [name, p] : model->parameters()) {
      const bool matrix = p->value.ndim() == 2 && name != "wpe.weight";
      if (!matrix) continue;
      const std::string bytes = ggml_from_float(type, p->value.data(), p->value.numel());
      ggml_to_float(type, bytes.data(), p->value.numel(), p->value.data());
    }
    EXPECT_EQ(logits_of(*back), logits_of(*model)) << ggml_type_name(static_cast<uint32_t>(type));
  }
}

TEST(GgufGpt2, NamesLayoutAndTypesAreLlamaCpps) {
  auto model = random_model(small_config(), 3);
  const Gguf g = gpt_to_gguf(*model, GgmlType::kQ8_0, "tiny");
  EXPECT_EQ(g.get_string("general.architecture"), "gpt2");
  EXPECT_EQ(g.get_integer("general.file_type"), 7);
  EXPECT_EQ(g.get_integer("general.quantization_version"), 2);     // quantized tensors: ggml's
  EXPECT_EQ(g.metadata[3].first, "general.quantization_version");  // after file_type
  for (GgmlType type : {GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16})  // none quantized
    EXPECT_EQ(gpt_to_gguf(*model, type, "tiny").find("general.quantization_version"), nullptr);
  EXPECT_EQ(g.get_integer("gpt2.feed_forward_length"), 128);
  const GgufTensor& qkv = g.tensor("blk.1.attn_qkv.weight");
  EXPECT_EQ(qkv.ne, (std::vector<int64_t>{32, 96}));  // {in, out}
  EXPECT_EQ(qkv.type, GgmlType::kQ8_0);
  EXPECT_EQ(g.tensor("blk.1.ffn_down.weight").ne, (std::vector<int64_t>{128, 32}));
  EXPECT_EQ(g.tensor("token_embd.weight").ne, (std::vector<int64_t>{32, 37}));
  for (const char* f32 :
       {"position_embd.weight", "blk.0.attn_norm.bias", "output_norm.weight", "blk.0.ffn_up.bias"})
    EXPECT_EQ(g.tensor(f32).type, GgmlType::kF32) << f32;
  EXPECT_THROW(g.tensor("output.weight"), InputError);  // tied: no head tensor
}

TEST(GgufGpt2, Q8RowsThatAreNotWholeBlocksFallBackToF16) {
  GPTConfig c = small_config();
  c.d_model = 24, c.n_head = 2;  // rows of 24 and 96 values
  auto model = random_model(c, 4);
  const Gguf g = gpt_to_gguf(*model, GgmlType::kQ8_0, "odd");
  EXPECT_EQ(g.tensor("blk.0.attn_qkv.weight").type, GgmlType::kF16);   // rows of 24
  EXPECT_EQ(g.tensor("blk.0.ffn_down.weight").type, GgmlType::kQ8_0);  // rows of 96
  EXPECT_NO_THROW(through_file(*model, GgmlType::kQ8_0));
}

TEST(GgufGpt2, MissingBiasesAndSinusoidalPositionsAreTheSameFunction) {
  GPTConfig c = small_config();
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = false;
  c.position = PositionEncoding::Sinusoidal;
  auto model = random_model(c, 5);
  auto back = through_file(*model, GgmlType::kF32);
  EXPECT_EQ(logits_of(*back), logits_of(*model));
}

TEST(GgufGpt2, WhatLlamaCppCannotRunIsRefusedByName) {
  const auto refused = [](GPTConfig c, const std::string& option) {
    auto model = random_model(c, 6);
    try {
      gpt_to_gguf(*model, GgmlType::kF32, "x");
      ADD_FAILURE() << option << " was exported";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  };
  GPTConfig c = small_config();
  c.pre_ln = false;
  refused(c, "model.pre_ln");
  c = small_config();
  c.residual = false;
  refused(c, "model.residual");
  c = small_config();
  c.activation = ops::Activation::Relu;
  refused(c, "model.activation");
  c = small_config();
  c.tie_head = false, c.head_bias = true;
  refused(c, "model.head_bias");
}

TEST(GgufGpt2, BadFilesAreRefusedByName) {
  auto model = random_model(small_config(), 7);
  Gguf g = gpt_to_gguf(*model, GgmlType::kF32, "x");
  Gguf other = g;
  other.metadata[0].second = GgufValue::string("llama");
  EXPECT_THROW(gpt_from_gguf(other), InputError);
  Gguf missing = g;
  missing.tensors.pop_back();  // output_norm.bias
  try {
    gpt_from_gguf(missing);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("output_norm.bias"), std::string::npos) << e.what();
  }
  Gguf wrong = g;
  for (auto& [key, value] : wrong.metadata)
    if (key == "gpt2.embedding_length") value = GgufValue::u32(64);
  EXPECT_THROW(gpt_from_gguf(wrong), InputError);
  // Keys a model cannot run with: an epsilon that is not finite, no feed-forward width.
  for (const auto& [key, bad] :
       {std::pair{"gpt2.attention.layer_norm_epsilon", GgufValue::f32(INFINITY)},
        std::pair{"gpt2.feed_forward_length", GgufValue::u32(0)}}) {
    Gguf broken = g;
    for (auto& [k, value] : broken.metadata)
      if (k == key) value = bad;
    EXPECT_THROW(gpt_from_gguf(broken), InputError) << key;
  }
}

}  // namespace
}  // namespace tinylm
