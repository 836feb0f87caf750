#include "model/gpt.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/gradcheck.h"
#include "model_gradcheck.h"
#include "util/error.h"

namespace tinylm {
namespace {

GPTConfig gpt_test_config() {
  GPTConfig c;
  c.vocab_size = 13, c.block_size = 8, c.n_layer = 2, c.n_head = 2, c.d_model = 8;
  return c;
}

// The whole model, every parameter, against finite differences of the loss.
TEST(GPT, GradientsMatchFiniteDifferences) {
  for (bool tied : {true, false}) {
    GPTConfig c = gpt_test_config();
    c.tie_head = tied;
    c.head_bias = !tied;
    GPT model(c);
    Rng rng(3);
    model.init(rng);
    testing::RandomBatch batch = testing::randomize(model, rng, 2, 5);
    batch.targets[3] = -100;  // an ignored position
    testing::expect_loss_gradients_close(model, batch, 16);
  }
}

// Without residual connections (pre-LN and post-LN) the gradients are still exact, and the
// output differs from the model with them.
TEST(GPT, NoResidualGradientsMatchFiniteDifferences) {
  for (bool pre_ln : {true, false}) {
    GPTConfig c = gpt_test_config();
    c.pre_ln = pre_ln;
    c.residual = false;
    GPT model(c);
    Rng rng(5);
    model.init(rng);
    const testing::RandomBatch batch = testing::randomize(model, rng, 2, 4);
    const auto without = static_cast<float>(testing::expect_loss_gradients_close(model, batch, 16));
    GPTConfig with_residual = c;
    with_residual.residual = true;
    GPT other(with_residual);
    for (size_t i = 0; i < model.parameters().size(); ++i)
      other.parameters()[i].param->value.copy_from(model.parameters()[i].param->value);
    EXPECT_GT(
        std::fabs(other.forward_loss(batch.ids.data(), batch.targets.data(), batch.B, batch.T) -
                  without),
        1e-4f);
    EXPECT_EQ(GPTConfig::from_json(c.to_json()).residual, false);
  }
}

// Dropout masks are keyed by sequence (nn::Context::first_row): the rows of a batch split
// in two draw, as batches of their own, what they draw in the whole batch, so a rank's
// part of a global batch is trained as one process trains it (docs/distributed.md).
TEST(GPT, DropoutFollowsTheSequenceNotTheBatch) {
  GPTConfig c = gpt_test_config();
  c.dropout = 0.3f;  // embeddings, attention weights, residual branches
  GPT model(c);
  Rng rng(4);
  model.init(rng);
  const int64_t B = 8, T = 6, V = c.vocab_size;
  std::vector<int32_t> ids(B * T);
  for (auto& id : ids) id = static_cast<int32_t>(rng.below(V));
  // the logits of rows [first, first + rows), keyed as rows from key_row on
  auto logits = [&](int64_t first, int64_t rows, int64_t key_row, bool training) {
    Rng dropout(9);  // every part starts from the same generator, as in a training step
    const nn::Context ctx{training, &dropout, key_row, rows};
    const Tensor y = model.forward(ids.data() + first * T, rows, T, ctx);
    return std::vector<float>(y.data(), y.data() + y.numel());
  };
  const std::vector<float> whole = logits(0, B, 0, true);
  for (int64_t first : {0, 4}) {
    const std::vector<float> part = logits(first, 4, first, true);
    for (int64_t i = 0; i < 4 * T * V; ++i)
      ASSERT_NEAR(part[i], whole[first * T * V + i], 1e-5) << "rows from " << first << ", " << i;
  }
  // the masks do differ from row to row, and dropout is on
  const std::vector<float> keyed_as_first = logits(4, 4, 0, true);
  EXPECT_NE(std::vector<float>(whole.begin() + 4 * T * V, whole.end()), keyed_as_first);
  EXPECT_NE(logits(0, B, 0, false), whole);
}

TEST(GPT, UniformLogitsGiveLossLnV) {
  GPTConfig c = gpt_test_config();
  c.tie_head = false;
  GPT model(c);
  Rng rng(1);
  model.init(rng);
  model.lm_head_weight.value.zero();  // every logit is 0 -> uniform distribution
  std::vector<int32_t> ids = {1, 2, 3, 4}, targets = {5, 6, 7, 8};
  EXPECT_NEAR(model.forward_loss(ids.data(), targets.data(), 1, 4), std::log(13.0), 1e-6);
}

TEST(GPT, CountsParametersOnceWhenTied) {
  GPTConfig c = gpt_test_config();
  GPT tied(c);
  c.tie_head = false;
  GPT untied(c);
  EXPECT_EQ(untied.num_parameters() - tied.num_parameters(), 13 * 8);
}

TEST(GPT, RejectsSequencesLongerThanTheContext) {
  GPT model(gpt_test_config());
  std::vector<int32_t> ids(9, 0);
  EXPECT_THROW(model.forward(ids.data(), 1, 9), InputError);
  ids[0] = 13;  // out of vocabulary
  EXPECT_THROW(model.forward(ids.data(), 1, 4), InputError);
}

TEST(GPTConfig, RejectsInconsistentFieldsByName) {
  const auto message = [](const nlohmann::json& j) {
    try {
      GPTConfig::from_json(j).validate();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json ok = {
      {"vocab_size", 10}, {"block_size", 4}, {"n_layer", 1}, {"n_head", 2}, {"d_model", 8}};
  EXPECT_EQ(message(ok), "no error");
  auto bad = ok;
  bad["d_model"] = 9;
  EXPECT_NE(message(bad).find("model.d_model"), std::string::npos);
  bad = ok;
  bad["activation"] = "swish";
  EXPECT_NE(message(bad).find("model.activation"), std::string::npos);
  bad = ok;
  bad["n_heads"] = 2;
  EXPECT_NE(message(bad).find("unknown field model.n_heads"), std::string::npos);
  bad = ok;
  bad["n_layer"] = "two";
  EXPECT_NE(message(bad).find("model.n_layer must be an integer"), std::string::npos);
  // 2^64 - 1 is out of range, not -1.
  bad = ok;
  bad["n_layer"] = UINT64_MAX;
  EXPECT_EQ(message(bad), "model.n_layer must be an integer (at most 9223372036854775807)");
  bad = ok;
  bad["position"] = "rotary";
  EXPECT_NE(message(bad).find("model.position"), std::string::npos);
}

TEST(GPTConfig, JsonRoundTrip) {
  GPTConfig c = GPTConfig::preset("gpt2-124m");
  c.activation = ops::Activation::Relu;
  c.position = PositionEncoding::Sinusoidal;
  c.pre_ln = false;
  const GPTConfig d = GPTConfig::from_json(c.to_json());
  EXPECT_EQ(d.to_json(), c.to_json());
}

// Each block is built from the model's config with its defaults resolved: d_ff 0 is
// 4 * d_model, attn_dropout < 0 is dropout; every other block field is carried over.
TEST(GPTConfig, BlockConfigResolvesTheDefaults) {
  GPTConfig c = gpt_test_config();
  c.dropout = 0.25f;
  nn::BlockConfig b = block_config(c);
  EXPECT_EQ(b.d_model, 8);
  EXPECT_EQ(b.n_head, 2);
  EXPECT_EQ(b.d_ff, 32);
  EXPECT_EQ(b.attn_dropout, 0.25f);
  EXPECT_EQ(b.dropout, 0.25f);

  c.d_ff = 12, c.attn_dropout = 0.0f, c.activation = ops::Activation::Relu, c.pre_ln = false;
  c.residual = false, c.qkv_bias = false, c.attn_proj_bias = false, c.ffn_bias = false;
  c.ln_bias = false, c.norm_eps = 1e-6f;
  b = block_config(c);
  EXPECT_EQ(b.d_ff, 12);
  EXPECT_EQ(b.attn_dropout, 0.0f);
  EXPECT_EQ(b.activation, ops::Activation::Relu);
  EXPECT_FALSE(b.pre_ln || b.residual || b.qkv_bias || b.attn_proj_bias || b.ffn_bias || b.ln_bias);
  EXPECT_EQ(b.norm_eps, 1e-6f);
}

}  // namespace
}  // namespace tinylm
