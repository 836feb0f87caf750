// Closed-form parameter counts (report/param_table.h) against hand arithmetic and
// against the real model's num_parameters().
#include "report/param_table.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/gpt.h"

using namespace tinylm;
using report::param_table;

namespace {

// The course's addition model: 14 symbols, 32 wide, 2 pre-LN blocks, d_ff 64, GELU,
// FFN biases only, LayerNorm with bias, 13 learned positions, tied head.
GPTConfig addition_config() {
  GPTConfig c;
  c.vocab_size = 14, c.block_size = 13, c.n_layer = 2, c.n_head = 2, c.d_model = 32, c.d_ff = 64;
  c.qkv_bias = false, c.attn_proj_bias = false, c.ffn_bias = true, c.ln_bias = true;
  return c;
}

// nanoGPT's Tiny Shakespeare (char) model: 6 layers, 6 heads, 384 wide, bias=False.
GPTConfig shakespeare_config() {
  GPTConfig c;
  c.vocab_size = 65, c.block_size = 256, c.n_layer = 6, c.n_head = 6, c.d_model = 384;
  c.qkv_bias = c.attn_proj_bias = c.ffn_bias = c.ln_bias = false;
  return c;
}

}  // namespace

TEST(ParamTable, AdditionModel) {
  // wte 14*32 = 448; wpe 13*32 = 416
  // block: ln_1 32+32 = 64; c_attn 96*32 = 3,072 (no bias); c_proj 32*32 = 1,024 (no bias)
  //        ln_2 64; c_fc 64*32 + 64 = 2,112; c_proj 32*64 + 32 = 2,080  -> 8,416 per block
  // 2 blocks 16,832; ln_f 64; head tied 0
  // total 448 + 416 + 16,832 + 64 = 17,760
  const auto t = param_table(addition_config());
  EXPECT_EQ(t.token_embedding, 448);
  EXPECT_EQ(t.position_embedding, 416);
  EXPECT_EQ(t.per_block, 8416);
  EXPECT_EQ(t.total, 17760);
  EXPECT_EQ(t.excluding_position, 17760 - 416);
  EXPECT_EQ(t.excluding_embeddings, 17760 - 416 - 448);
  EXPECT_EQ(t.rows.back().note, "tied to token embedding, 0 extra");
}

TEST(ParamTable, Gpt2SmallAsHuggingFaceShipsIt) {
  // V = 50,257, C = 768, L = 12, block 1,024, every bias, tied head.
  // wte 50,257*768 = 38,597,376; wpe 1,024*768 = 786,432
  // block: ln 2*(768+768) = 3,072; c_attn 2,304*768 + 2,304 = 1,771,776
  //        c_proj 768*768 + 768 = 590,592; c_fc 3,072*768 + 3,072 = 2,362,368
  //        mlp.c_proj 768*3,072 + 768 = 2,360,064  -> 7,087,872 per block
  // 12 blocks 85,054,464; ln_f 1,536
  // total 38,597,376 + 786,432 + 85,054,464 + 1,536 = 124,439,808
  const auto t = param_table(GPTConfig::preset("gpt2-124m"));
  EXPECT_EQ(t.per_block, 7087872);
  EXPECT_EQ(t.total, 124439808);
  EXPECT_EQ(t.excluding_position, 124439808 - 786432);  // nanoGPT reports 123.65M
}

TEST(ParamTable, BookGpt2WithoutQkvBias) {
  // As above without the Q, K, V biases: 124,439,808 - 12*2,304 = 124,412,160 (tied);
  // untied adds a 50,257 x 768 head: 124,412,160 + 38,597,376 = 163,009,536.
  GPTConfig c = GPTConfig::preset("gpt2-124m");
  c.qkv_bias = false;
  EXPECT_EQ(param_table(c).total, 124412160);
  c.tie_head = false;
  EXPECT_EQ(param_table(c).total, 163009536);
  c.head_bias = true;  // + 50,257
  EXPECT_EQ(param_table(c).total, 163009536 + 50257);
}

TEST(ParamTable, NanoGptShakespeare) {
  // wte 65*384 = 24,960; wpe 256*384 = 98,304
  // block: ln 2*384 = 768; c_attn 1,152*384 = 442,368; c_proj 384*384 = 147,456
  //        c_fc 1,536*384 = 589,824; mlp.c_proj 589,824  -> 1,770,240 per block
  // 6 blocks 10,621,440; ln_f 384
  // total 24,960 + 98,304 + 10,621,440 + 384 = 10,745,088; minus wpe 10,646,784
  const auto t = param_table(shakespeare_config());
  EXPECT_EQ(t.per_block, 1770240);
  EXPECT_EQ(t.total, 10745088);
  EXPECT_EQ(t.excluding_position, 10646784);
  EXPECT_EQ(t.excluding_embeddings, 10646784 - 24960);
}

TEST(ParamTable, SinusoidalPositionsHaveNoParameters) {
  GPTConfig c = addition_config();
  c.position = PositionEncoding::Sinusoidal;
  const auto t = param_table(c);
  EXPECT_EQ(t.position_embedding, 0);
  EXPECT_EQ(t.total, 17760 - 416);
  EXPECT_EQ(t.excluding_position, t.total);
}

TEST(ParamTable, RowsSumToTotal) {
  const auto t = param_table(GPTConfig::preset("gpt2-355m"));
  int64_t sum = 0;
  for (const auto& r : t.rows) sum += r.total();
  EXPECT_EQ(sum, t.total);
  EXPECT_EQ(t.total, 354823168);  // HF's gpt2-medium num_parameters()
}

// Needs the model (links src/model and src/ops): the closed form equals what GPT holds.
TEST(ParamTable, MatchesRealModel) {
  std::vector<GPTConfig> configs = {addition_config(), shakespeare_config()};
  GPTConfig c = addition_config();
  c.tie_head = false, c.head_bias = true, c.qkv_bias = true, c.ln_bias = false;
  configs.push_back(c);
  c.position = PositionEncoding::Sinusoidal, c.d_ff = 0, c.pre_ln = false, c.attn_proj_bias = true;
  configs.push_back(c);
  GPTConfig gpt2_like = GPTConfig::preset("gpt2-124m");  // every bias, shrunk
  gpt2_like.vocab_size = 257, gpt2_like.block_size = 64, gpt2_like.n_layer = 3;
  gpt2_like.n_head = 4, gpt2_like.d_model = 64;
  configs.push_back(gpt2_like);
  // the llama family: grouped-query heads of another width, q/k norms, Qwen2's biases
  nlohmann::json llama = {{"arch", "llama"}, {"vocab_size", 50}, {"block_size", 16},
                          {"n_layer", 3},    {"n_head", 4},      {"n_kv_head", 2},
                          {"head_dim", 16},  {"d_model", 48},    {"d_ff", 96}};
  configs.push_back(GPTConfig::from_json(llama));
  llama["qk_norm"] = true, llama["tie_head"] = true, llama["attention_bias"] = true;
  configs.push_back(GPTConfig::from_json(llama));
  for (const auto& config : configs) {
    GPT model(config);
    EXPECT_EQ(param_table(config).total, model.num_parameters()) << config.to_json().dump();
  }
}
