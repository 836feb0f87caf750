// Freezing: trainable sets, no gradient buffers or optimizer state for frozen
// parameters, and gradients of the trainable ones unchanged by freezing the rest.
#include "run/trainable.h"

#include <gtest/gtest.h>

#include "common/gradcheck.h"
#include "common/input_error.h"
#include "optim/adamw.h"

namespace tinylm {
namespace {

GPTConfig small_config() {
  GPTConfig c;
  c.vocab_size = 13, c.block_size = 8, c.n_layer = 3, c.n_head = 2, c.d_model = 8;
  return c;
}

std::unique_ptr<GPT> random_model(uint64_t seed) {
  auto model = std::make_unique<GPT>(small_config());
  Rng rng(seed);
  for (auto& p : model->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  return model;
}

TEST(TrainableSet, ParsesTheIssueSpecs) {
  EXPECT_EQ(TrainableSet::parse("head").kind, TrainableKind::Head);
  EXPECT_EQ(TrainableSet::parse("all").kind, TrainableKind::All);
  EXPECT_EQ(TrainableSet::parse("lora").kind, TrainableKind::Lora);
  const TrainableSet last = TrainableSet::parse("last:2");
  EXPECT_EQ(last.kind, TrainableKind::LastBlocks);
  EXPECT_EQ(last.last_blocks, 2);
  EXPECT_EQ(last.to_string(), "last:2");
  for (const char* bad : {"last:", "last:-1", "last:x", "heads", "", "last:99999999999"})
    EXPECT_NE(testing::input_error([&] { TrainableSet::parse(bad); }), "") << bad;
}

TEST(TrainableSet, LastOneTrainsTheLastBlockTheFinalNormAndTheHead) {
  auto model = random_model(1);
  Parameter head({2, 8}, true);
  apply_trainable(*model, {{"score.weight", &head}}, TrainableSet::parse("last:1"));
  for (const auto& p : model->parameters()) {
    const bool expected = p.name.rfind("h.2.", 0) == 0 || p.name.rfind("ln_f.", 0) == 0;
    EXPECT_EQ(p.param->trainable(), expected) << p.name;
    EXPECT_EQ(p.param->grad.defined(), expected) << p.name << ": frozen means no gradient buffer";
  }
  EXPECT_TRUE(head.trainable());
  EXPECT_NE(
      testing::input_error([&] { apply_trainable(*model, {}, TrainableSet::parse("last:4")); }),
      "");
  apply_trainable(*model, {}, TrainableSet::parse("all"));
  for (const auto& p : model->parameters()) EXPECT_TRUE(p.param->trainable()) << p.name;
}

// Freezing must not change the gradients of what still trains.
TEST(Freezing, TrainableGradientsMatchTheFullBackward) {
  const int64_t B = 2, T = 5;
  std::vector<int32_t> ids = {1, 5, 7, 2, 0, 3, 3, 12, 9, 4};
  std::vector<int32_t> targets = {5, 7, 2, 0, 3, 3, 12, 9, 4, 1};
  auto full = random_model(7);
  full->zero_grad();
  const double full_loss = full->forward_loss(ids.data(), targets.data(), B, T);
  full->backward();

  for (const char* spec : {"last:1", "last:2", "last:0"}) {
    auto frozen = random_model(7);
    apply_trainable(*frozen, {}, TrainableSet::parse(spec));
    frozen->zero_grad();
    EXPECT_EQ(frozen->forward_loss(ids.data(), targets.data(), B, T), full_loss);
    frozen->backward();
    const ParameterList a = full->parameters(), b = frozen->parameters();
    for (size_t i = 0; i < a.size(); ++i) {
      if (!b[i].param->trainable()) continue;
      const Tensor& ga = a[i].param->grad;
      const Tensor& gb = b[i].param->grad;
      for (int64_t k = 0; k < ga.numel(); ++k)
        ASSERT_NEAR(gb[k], ga[k], 1e-6f * (1 + std::abs(ga[k]))) << spec << " " << a[i].name;
    }
  }
}

// Only the tied head (= the embedding) trains: backward reaches the bottom, still exact.
TEST(Freezing, AdamWKeepsNoStateForFrozenParameters) {
  auto model = random_model(3);
  apply_trainable(*model, {}, TrainableSet::parse("last:1"));
  const ParameterList params = model->parameters();
  const ParameterCounts counts = count_parameters(params);
  AdamW opt(params, AdamWConfig{});
  EXPECT_EQ(opt.params().size(), trainable_only(params).size());
  int64_t state = 0;
  for (const Tensor& m : opt.first_moments()) state += m.numel();
  EXPECT_EQ(state, counts.trainable);
  EXPECT_EQ(counts.trainable + counts.frozen, model->num_parameters());

  std::vector<Tensor> before;
  for (const auto& p : params) before.push_back(p.param->value.clone());
  std::vector<int32_t> ids = {1, 2, 3, 4}, targets = {2, 3, 4, 5};
  model->zero_grad();
  model->forward_loss(ids.data(), targets.data(), 1, 4);
  model->backward();
  clip_gradients(params, 1.0);
  opt.step(1e-2f);
  for (size_t i = 0; i < params.size(); ++i) {
    bool changed = false;
    for (int64_t k = 0; k < before[i].numel(); ++k)
      changed |= before[i][k] != params[i].param->value[k];
    EXPECT_EQ(changed, params[i].param->trainable()) << params[i].name;
  }
}

TEST(Freezing, TrainOnlyRejectsUnknownNames) {
  auto model = random_model(2);
  train_only(model->parameters(), {"h.1.ln_1.weight"}, "reference.json: trainable");
  EXPECT_EQ(count_parameters(model->parameters()).trainable, 8);
  EXPECT_NE(testing::input_error([&] {
              train_only(model->parameters(), {"h.9.ln_1.weight"}, "reference.json: trainable");
            }).find("h.9.ln_1.weight"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm
