// LoRA: parameter counts, PEFT's initialisation, gradients against finite differences
// with the base frozen, dropout, merge (with the base's tokenizer), PEFT folders in and
// out, bad adapters, and the gpt2-micro-lora fixture through verify_lora.
#include "lora/lora.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/gradcheck.h"
#include "common/input_error.h"
#include "export/merge.h"
#include "io/safetensors.h"
#include "lora/classifier_lora.h"
#include "lora/peft.h"
#include "model/classifier.h"
#include "model/hf_classifier.h"
#include "run/trainable.h"
#include "tokenizer/char_tokenizer.h"
#include "tokenizer/load.h"
#include "util/files.h"
#include "util/source_dir.h"
#include "verify/verify_lora.h"

namespace tinylm::finetune {
namespace {

const std::string kLoraFixture =
    std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-micro-lora";

GPTConfig lora_base_config() {
  GPTConfig c;
  c.vocab_size = 13, c.block_size = 8, c.n_layer = 2, c.n_head = 2, c.d_model = 8;
  return c;
}

std::unique_ptr<GPT> random_model(uint64_t seed = 4) {
  auto model = std::make_unique<GPT>(lora_base_config());
  Rng rng(seed);
  for (auto& p : model->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  return model;
}

LoraConfig config(int64_t r, std::vector<std::string> targets, float alpha = 8.0f) {
  LoraConfig c;
  c.r = r, c.alpha = alpha, c.targets = std::move(targets);
  return c;
}

const std::vector<int32_t> kLoraIds = {1, 4, 7, 2, 9, 3, 3, 9, 2, 11};
const std::vector<int32_t> kTargets = {4, 7, 2, 9, 3, 3, 9, 2, 11, 0};

// Adapters of `c` with random A and B (so both carry signal) on a frozen base: their
// gradients against finite differences, `samples` entries each; the base gets none.
void expect_adapter_gradients_close(GPT& model, const LoraConfig& c, Rng& rng, int samples) {
  for (const auto& p : model.parameters()) p.param->set_trainable(false);
  LoraSet lora(model, nullptr, c, rng);
  for (const auto& p : lora.parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  for (const auto& p : lora.parameters()) p.param->grad.zero();
  model.forward_loss(kLoraIds.data(), kTargets.data(), 2, 5);
  model.backward();
  for (const auto& p : model.parameters()) EXPECT_FALSE(p.param->grad.defined()) << p.name;
  const auto loss = [&] { return model.forward_loss(kLoraIds.data(), kTargets.data(), 2, 5); };
  for (const auto& p : lora.parameters()) {
    const Tensor analytic = p.param->grad.clone();
    testing::expect_grad_close(p.name, p.param->value, analytic, loss, samples, 1e-2f, 2e-2);
  }
}

struct PeftRoundTrip {
  nlohmann::json config;            // adapter_config.json
  std::unique_ptr<LoraSet> loaded;  // the adapters read back onto the base
};

// Adapters of `c` with random A and B, saved as a PEFT folder in dir (which stays), then
// loaded onto the base again: the same logits, bit for bit.
PeftRoundTrip expect_peft_round_trip(GPT& model, const LoraConfig& c, const std::string& dir,
                                     const std::string& base_name, Rng& rng) {
  std::filesystem::remove_all(dir);
  Tensor adapted;
  {
    LoraSet lora(model, nullptr, c, rng);
    for (const auto& p : lora.parameters())
      p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
    adapted = model.forward(kLoraIds.data(), 2, 5).clone();
    save_peft_adapter(lora, dir, PeftInfo{"CAUSAL_LM", base_name, nullptr});
  }
  PeftRoundTrip trip{nlohmann::json::parse(read_file(dir + "/adapter_config.json")),
                     load_peft_adapter(model, nullptr, dir)};
  const Tensor back = model.forward(kLoraIds.data(), 2, 5);
  for (int64_t i = 0; i < back.numel(); ++i) EXPECT_EQ(back[i], adapted[i]) << i;
  return trip;
}

// GPT-2 small with rank 16 on every projection: PEFT's count, from the config alone (no
// 124M allocation).
TEST(Lora, Gpt2SmallRank16CountsPeftsFigure) {
  const GPTConfig gpt2 = GPTConfig::preset("gpt2-124m");
  EXPECT_EQ(lora_parameter_count(gpt2, 0, config(16, {"c_attn", "c_proj", "c_fc"})), 2359296);
  // c_attn alone: 12 * 16 * (768 + 2304)
  EXPECT_EQ(lora_parameter_count(gpt2, 0, config(16, {"c_attn"})), 12 * 16 * (768 + 2304));
  // with a 2-label head, r = 2 fits it: + 2 * (768 + 2)
  EXPECT_EQ(lora_parameter_count(gpt2, 2, config(2, {"head"})), 2 * (768 + 2));
}

TEST(Lora, AttachedCountMatchesTheConfigCount) {
  auto model = random_model();
  Rng rng(1);
  const LoraConfig c = config(2, {"c_proj", "c_fc"});
  LoraSet lora(*model, nullptr, c, rng);
  EXPECT_EQ(lora.num_parameters(), lora_parameter_count(model->config(), 0, c));
  EXPECT_EQ(lora.attached().size(), 2u * 3u);  // attn.c_proj, mlp.c_fc, mlp.c_proj per block
  EXPECT_EQ(lora.parameters()[0].name, "transformer.h.0.attn.c_proj.lora_A.weight");
}

TEST(Lora, StartsAsTheBaseWithPeftsKaimingUniformA) {
  auto model = random_model();
  const Tensor base = model->forward(kLoraIds.data(), 2, 5).clone();
  Rng rng(3);
  LoraSet lora(*model, nullptr, config(4, {"c_attn", "c_fc"}), rng);
  const Tensor adapted = model->forward(kLoraIds.data(), 2, 5);
  for (int64_t i = 0; i < base.numel(); ++i) ASSERT_EQ(adapted[i], base[i]);  // B = 0
  for (auto& a : lora.attached()) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(a.target.in));
    float largest = 0;
    for (int64_t i = 0; i < a.adapter->A.value.numel(); ++i)
      largest = std::max(largest, std::abs(a.adapter->A.value[i]));
    EXPECT_LE(largest, bound);
    EXPECT_GT(largest, 0.5f * bound);
    for (int64_t i = 0; i < a.adapter->B.value.numel(); ++i) EXPECT_EQ(a.adapter->B.value[i], 0.0f);
  }
}

TEST(Lora, RejectsBadRanksAndTargets) {
  const GPTConfig c = lora_base_config();
  EXPECT_NE(testing::input_error([&] { lora_targets(c, 0, config(0, {"c_attn"})); }).find("lora.r"),
            std::string::npos);
  EXPECT_NE(
      testing::input_error([&] { lora_targets(c, 0, config(25, {"c_attn"})); }).find("larger"),
      std::string::npos);
  EXPECT_NE(testing::input_error([&] { lora_targets(c, 3, config(9, {"head"})); }).find("score"),
            std::string::npos);
  EXPECT_NE(testing::input_error([&] { lora_targets(c, 0, config(2, {"q_proj"})); }).find("q_proj"),
            std::string::npos);
  EXPECT_NE(testing::input_error([&] { lora_targets(c, 0, config(2, {"head"})); }).find("head"),
            std::string::npos);
  EXPECT_EQ(config(4, {"c_attn"}, 8.0f).scaling(), 2.0f);
  LoraConfig rs = config(4, {"c_attn"}, 8.0f);
  rs.rslora = true;
  EXPECT_EQ(rs.scaling(), 4.0f);
}

// Adapter gradients (A and B, B random so both carry signal), base frozen, LM and classifier.
TEST(Lora, GradientsMatchFiniteDifferencesWithTheBaseFrozen) {
  auto model = random_model();
  Rng rng(8);
  expect_adapter_gradients_close(*model, config(2, {"c_attn", "c_proj", "c_fc"}), rng, 12);

  ClassifierConfig cc;
  cc.num_labels = 3, cc.pooling = Pooling::Mean, cc.pad_token_id = 12;
  SequenceClassifier clf(random_model(6), cc);
  clf.init_head(rng, 0.3f);
  attach_lora(clf, config(3, {"c_fc", "head"}), rng);
  apply_trainable(clf, TrainableSet::parse("lora"));
  EXPECT_FALSE(clf.score.weight.trainable());  // the head carries an adapter: its base is frozen
  for (const auto& p : lora_of(clf)->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  const std::vector<int32_t> labels = {2, 0};
  clf.zero_grad();
  clf.forward_loss(kLoraIds.data(), labels.data(), 2, 5);
  clf.backward();
  const auto clf_loss = [&] { return clf.forward_loss(kLoraIds.data(), labels.data(), 2, 5); };
  for (const auto& p : trainable_only(clf.parameters())) {
    const Tensor analytic = p.param->grad.clone();
    testing::expect_grad_close(p.name, p.param->value, analytic, clf_loss, 12, 1e-2f, 2e-2);
  }
  EXPECT_EQ(count_parameters(clf.parameters()).trainable, lora_of(clf)->num_parameters());
}

TEST(Lora, DropoutOnlyWhenTraining) {
  auto model = random_model();
  Rng rng(2);
  LoraConfig c = config(2, {"c_fc"});
  c.dropout = 0.5f;
  LoraSet lora(*model, nullptr, c, rng);
  for (const auto& p : lora.parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.5f));
  const Tensor eval1 = model->forward(kLoraIds.data(), 2, 5).clone();
  Rng dropout_rng(3);
  const Tensor train =
      model->forward(kLoraIds.data(), 2, 5, nn::Context{true, &dropout_rng}).clone();
  const Tensor eval2 = model->forward(kLoraIds.data(), 2, 5);
  double diff = 0;
  for (int64_t i = 0; i < eval1.numel(); ++i) {
    ASSERT_EQ(eval1[i], eval2[i]);
    diff += std::abs(train[i] - eval1[i]);
  }
  EXPECT_GT(diff, 1e-3);
}

// The adapter's dropout is keyed by sequence, as nn::Dropout: row 1 of the batch draws
// the same mask as a batch of its own keyed as row 1 (data parallel: docs/distributed.md).
TEST(Lora, DropoutFollowsTheSequenceNotTheBatch) {
  auto model = random_model();
  Rng rng(2);
  LoraConfig c = config(2, {"c_attn", "c_fc"});
  c.dropout = 0.5f;
  LoraSet lora(*model, nullptr, c, rng);
  for (const auto& p : lora.parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.5f));
  Rng whole_rng(3), part_rng(3);
  const Tensor whole =
      model->forward(kLoraIds.data(), 2, 5, nn::Context{true, &whole_rng, 0, 2}).clone();
  const Tensor second =
      model->forward(kLoraIds.data() + 5, 1, 5, nn::Context{true, &part_rng, 1, 1});
  const int64_t row = second.numel();
  for (int64_t i = 0; i < row; ++i) ASSERT_NEAR(second[i], whole[row + i], 1e-5) << i;
}

TEST(Lora, MergeFoldsTheAdapterIntoTheBase) {
  auto model = random_model();
  Rng rng(5);
  LoraSet lora(*model, nullptr, config(3, {"c_attn", "c_proj", "c_fc"}), rng);
  for (const auto& p : lora.parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  const Tensor adapted = model->forward(kLoraIds.data(), 2, 5).clone();
  lora.merge();
  EXPECT_TRUE(lora.attached().empty());
  EXPECT_FALSE(model->h[0].attn.c_attn.adapter);
  const Tensor merged = model->forward(kLoraIds.data(), 2, 5);
  for (int64_t i = 0; i < merged.numel(); ++i)
    ASSERT_NEAR(merged[i], adapted[i], 1e-4f * (1 + std::abs(adapted[i])));
}

TEST(Peft, SaveLoadRoundTrip) {
  auto model = random_model();
  Rng rng(5);
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_roundtrip";
  const PeftRoundTrip trip =
      expect_peft_round_trip(*model, config(2, {"c_attn", "c_proj"}, 4.0f), dir, "gpt2", rng);
  const nlohmann::json& cfg = trip.config;
  EXPECT_EQ(cfg["peft_type"], "LORA");
  EXPECT_EQ(cfg["r"], 2);
  EXPECT_EQ(cfg["fan_in_fan_out"], true);
  EXPECT_EQ(cfg["bias"], "none");
  EXPECT_EQ(cfg["base_model_name_or_path"], "gpt2");
  const SafeTensors file = load_safetensors(dir + "/adapter_model.safetensors");
  EXPECT_EQ(file.get("base_model.model.transformer.h.1.attn.c_attn.lora_A.weight").shape,
            (Shape{2, 8}));
  EXPECT_EQ(file.get("base_model.model.transformer.h.1.mlp.c_proj.lora_B.weight").shape,
            (Shape{8, 2}));
  EXPECT_EQ(trip.loaded->config().scaling(), 2.0f);
  std::filesystem::remove_all(dir);
}

// ---- The llama family: PEFT's q_proj ... down_proj on "model.layers.N" ----

std::unique_ptr<GPT> random_llama(uint64_t seed = 4) {
  GPTConfig c = GPTConfig::from_json({{"arch", "llama"},
                                      {"vocab_size", 13},
                                      {"block_size", 8},
                                      {"n_layer", 2},
                                      {"n_head", 4},
                                      {"n_kv_head", 2},
                                      {"d_model", 8},
                                      {"head_dim", 6},
                                      {"d_ff", 12}});
  auto model = std::make_unique<GPT>(c);
  Rng rng(seed);
  for (auto& p : model->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  return model;
}

const std::vector<std::string> kLlamaTargets = {"q_proj",    "k_proj",  "v_proj",   "o_proj",
                                                "gate_proj", "up_proj", "down_proj"};

TEST(Lora, LlamaTargetsArePeftsModuleNames) {
  auto model = random_llama();
  // per layer r (in + out): q 8 -> 24, v 8 -> 12
  EXPECT_EQ(lora_parameter_count(model->config(), 0, config(2, {"q_proj", "v_proj"})),
            2 * 2 * ((8 + 24) + (8 + 12)));
  Rng rng(1);
  LoraSet lora(*model, nullptr, config(2, kLlamaTargets), rng);
  EXPECT_EQ(lora.attached().size(), 2u * 7u);
  EXPECT_EQ(lora.parameters()[0].name, "model.layers.0.self_attn.q_proj.lora_A.weight");
  EXPECT_EQ(lora.attached().back().target.module, "model.layers.1.mlp.down_proj");
  EXPECT_EQ(lora.num_parameters(),
            lora_parameter_count(model->config(), 0, config(2, kLlamaTargets)));
  EXPECT_NE(testing::input_error([&] { lora_targets(model->config(), 0, config(2, {"c_attn"})); })
                .find("unknown target 'c_attn' (llama models take q_proj, k_proj, v_proj, o_proj, "
                      "gate_proj, up_proj, down_proj, head, or all-linear)"),
            std::string::npos);
}

TEST(Lora, LlamaGradientsMatchFiniteDifferencesWithTheBaseFrozen) {
  auto model = random_llama();
  Rng rng(8);
  expect_adapter_gradients_close(*model, config(2, kLlamaTargets), rng, 8);
}

// all-linear (the run settings' default): every linear layer of the blocks, in both
// families, and PEFT's target_modules list them.
TEST(Lora, AllLinearIsEveryLinearLayerOfTheBlocks) {
  const GPTConfig gpt2 = GPTConfig::preset("gpt2-124m");
  EXPECT_EQ(lora_parameter_count(gpt2, 0, config(16, {"all-linear"})), 2359296);
  auto llama = random_llama();
  EXPECT_EQ(lora_targets(llama->config(), 0, config(2, {"all-linear"})).size(), 2u * 7u);
  EXPECT_EQ(lora_parameter_count(llama->config(), 0, config(2, {"all-linear"})),
            lora_parameter_count(llama->config(), 0, config(2, kLlamaTargets)));
  Rng rng(5);
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_all_linear";
  const PeftRoundTrip trip =
      expect_peft_round_trip(*llama, config(2, {"all-linear"}, 4.0f), dir, "", rng);
  EXPECT_EQ(trip.config["target_modules"], nlohmann::json(kLlamaTargets));
  std::filesystem::remove_all(dir);
}

// PEFT folders of a llama base: Linear layers (fan_in_fan_out false), the modules' names.
TEST(Peft, LlamaSaveLoadRoundTrip) {
  auto model = random_llama();
  Rng rng(5);
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_llama";
  const PeftRoundTrip trip =
      expect_peft_round_trip(*model, config(2, {"q_proj", "down_proj"}, 4.0f), dir, "", rng);
  const nlohmann::json& cfg = trip.config;
  EXPECT_EQ(cfg["fan_in_fan_out"], false);
  EXPECT_EQ(cfg["target_modules"], nlohmann::json({"q_proj", "down_proj"}));
  const SafeTensors file = load_safetensors(dir + "/adapter_model.safetensors");
  EXPECT_EQ(file.get("base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight").shape,
            (Shape{24, 2}));
  std::filesystem::remove_all(dir);
}

// The merged folder carries the base's tokenizer (tinylm_tokenizer.json): without it the
// folder is read with GPT-2's, and a model trained on a char vocabulary decodes wrong text.
// The classifier's folder likewise; no tokenizer given, none written.
TEST(Peft, MergeWritesTheBasesTokenizer) {
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_merge_tokenizer";
  std::filesystem::remove_all(dir);
  const CharTokenizer chars = CharTokenizer::from_corpus("the cat sat");  // 7 < 13 ids
  auto model = random_model();
  Rng rng(6);
  {
    LoraSet lora(*model, nullptr, config(2, {"c_attn"}, 4.0f), rng);
    save_peft_adapter(lora, dir + "/adapter", PeftInfo{"CAUSAL_LM", "", nullptr});
  }
  merge_adapter(*random_model(), dir + "/adapter", dir + "/merged", &chars);
  const std::string stored = dir + "/merged/" + kTinylmTokenizerFile;
  ASSERT_TRUE(file_exists(stored));
  const auto back = tokenizer_from_json(nlohmann::json::parse(read_file(stored)));
  EXPECT_EQ(back->kind(), "char");
  EXPECT_EQ(back->encode("a cat"), chars.encode("a cat"));
  EXPECT_EQ(back->decode(chars.encode("sat tea")), "sat tea");

  merge_adapter(*random_model(), dir + "/adapter", dir + "/bare", nullptr);
  EXPECT_FALSE(file_exists(dir + "/bare/" + kTinylmTokenizerFile));

  ClassifierConfig cc;
  cc.num_labels = 2, cc.pooling = Pooling::Mean, cc.pad_token_id = 12;
  SequenceClassifier clf(random_model(3), cc);
  save_hf_classifier(clf, dir + "/clf-base");
  attach_lora(clf, config(2, {"c_attn"}), rng);
  save_peft_adapter(*lora_of(clf), dir + "/clf-adapter",
                    PeftInfo{"SEQ_CLS", "", &clf.score.weight});
  merge_adapter(*load_hf_classifier(dir + "/clf-base"), dir + "/clf-adapter", dir + "/clf", &chars);
  EXPECT_EQ(read_file(dir + "/clf/" + kTinylmTokenizerFile), read_file(stored));
  std::filesystem::remove_all(dir);
}

// Adapters that do not fit the base: each a clear InputError naming the problem.
TEST(Peft, RejectsAdaptersThatDoNotMatchTheBase) {
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_bad";
  const auto error_with =
      [&](const std::function<void(nlohmann::json&, std::vector<std::pair<std::string, Tensor>>&)>&
              edit) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        nlohmann::json cfg = {{"peft_type", "LORA"},    {"r", 2},
                              {"lora_alpha", 4},        {"target_modules", {"c_attn"}},
                              {"fan_in_fan_out", true}, {"bias", "none"}};
        std::vector<std::pair<std::string, Tensor>> tensors;
        for (int i = 0; i < 2; ++i) {
          const std::string p =
              "base_model.model.transformer.h." + std::to_string(i) + ".attn.c_attn.";
          tensors.emplace_back(p + "lora_A.weight", Tensor::zeros({2, 8}));
          tensors.emplace_back(p + "lora_B.weight", Tensor::zeros({24, 2}));
        }
        edit(cfg, tensors);
        write_file_atomic(dir + "/adapter_config.json", cfg.dump());
        save_safetensors(dir + "/adapter_model.safetensors", tensors, {});
        auto model = random_model();
        return testing::input_error([&] { load_peft_adapter(*model, nullptr, dir); });
      };
  using Tensors = std::vector<std::pair<std::string, Tensor>>;
  EXPECT_EQ(error_with([](nlohmann::json&, Tensors&) {}), "");
  EXPECT_NE(error_with([](nlohmann::json& c, Tensors&) { c["r"] = 0; }).find("r"),
            std::string::npos);
  EXPECT_NE(
      error_with([](nlohmann::json& c, Tensors&) { c["peft_type"] = "IA3"; }).find("peft_type"),
      std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json& c, Tensors&) {
              c["target_modules"] = {"c_fc"};
            }).find("target_modules"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json& c, Tensors&) {
              c["target_modules"] = {"c_attn", "c_fc"};
            }).find("c_fc"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json& c, Tensors&) { c["use_dora"] = true; }).find("DoRA"),
            std::string::npos);
  EXPECT_NE(
      error_with([](nlohmann::json& c, Tensors&) { c.erase("lora_alpha"); }).find("lora_alpha"),
      std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json&, Tensors& t) {
              t[1].second = Tensor::zeros({48, 2});
            }).find("lora_B"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json&, Tensors& t) { t.pop_back(); }).find("no lora_B"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json&, Tensors& t) {
              t[0].first = "base_model.model.transformer.h.5.attn.c_attn.lora_A.weight";
            }).find("h.5"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json&, Tensors& t) {
              t[0].first = "base_model.model.lm_head.lora_A.weight";
            }).find("tied"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json&, Tensors& t) { t.clear(); }).find("no LoRA tensors"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json&, Tensors& t) {  // a saved head, and the base has none
              t.emplace_back("base_model.model.score.weight", Tensor::zeros({2, 8}));
            })
                .find("has a classification head (score.weight) but the base has none"),
            std::string::npos);
  EXPECT_NE(error_with([](nlohmann::json& c, Tensors& t) {  // r = 25 > max(in 8, out 24)
              c["r"] = 25;
              t[0].second = Tensor::zeros({25, 8});
              t[1].second = Tensor::zeros({24, 25});
              t[2].second = Tensor::zeros({25, 8});
              t[3].second = Tensor::zeros({24, 25});
            })
                .find("larger"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// A classifier with LoRA on c_attn and on its head, and a fully trained head saved as
// PEFT's modules_to_save: the adapter folder and `lora merge` reproduce its logits.
TEST(Peft, ClassifierAdapterAndMergeReproduceTheLogits) {
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_clf";
  std::filesystem::remove_all(dir);
  ClassifierConfig cc;
  cc.num_labels = 2, cc.pooling = Pooling::LastNonPad, cc.pad_token_id = 12;
  Rng rng(11);
  SequenceClassifier clf(random_model(3), cc);
  clf.init_head(rng, 0.3f);
  save_hf_classifier(clf, dir + "/base");
  attach_lora(clf, config(2, {"c_attn", "head"}), rng);
  for (const auto& p : lora_of(clf)->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  const Tensor adapted = clf.forward(kLoraIds.data(), 2, 5).clone();
  save_peft_adapter(*lora_of(clf), dir + "/adapter", PeftInfo{"SEQ_CLS", "", nullptr});
  EXPECT_EQ(
      nlohmann::json::parse(read_file(dir + "/adapter/adapter_config.json"))["target_modules"],
      nlohmann::json({"c_attn", "score"}));

  auto loaded = load_hf_classifier(dir + "/base");
  auto lora = load_peft_adapter(loaded->body(), &loaded->score, dir + "/adapter");
  EXPECT_EQ(lora->attached().size(), 3u);
  const Tensor back = loaded->forward(kLoraIds.data(), 2, 5);
  for (int64_t i = 0; i < back.numel(); ++i) ASSERT_EQ(back[i], adapted[i]);

  auto base = load_hf_classifier(dir + "/base");
  const MergeSummary s = merge_adapter(*base, dir + "/adapter", dir + "/merged", nullptr);
  EXPECT_TRUE(s.classifier);
  EXPECT_EQ(s.modules, 3);
  auto merged = load_hf_classifier(dir + "/merged");
  const Tensor m = merged->forward(kLoraIds.data(), 2, 5);
  for (int64_t i = 0; i < m.numel(); ++i)
    EXPECT_NEAR(m[i], adapted[i], 1e-5f * (1 + std::abs(adapted[i])));
  EXPECT_NE(testing::input_error([&] {
              merge_adapter(*load_hf_classifier(dir + "/base"), dir + "/adapter", dir + "/merged",
                            nullptr);
            }).find("overwrite"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// The length texts were padded to, and the pooling, decide which position is read: the
// merged folder keeps the base's, or it classifies differently from the run.
TEST(Peft, MergeKeepsTheClassifiersMaxLengthAndPooling) {
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_clf_len";
  std::filesystem::remove_all(dir);
  ClassifierConfig cc;
  cc.num_labels = 2, cc.pooling = Pooling::Mean, cc.pad_token_id = 12;
  Rng rng(13);
  SequenceClassifier clf(random_model(3), cc);
  save_hf_classifier(clf, dir + "/base", 6);
  attach_lora(clf, config(2, {"c_attn"}), rng);
  save_peft_adapter(*lora_of(clf), dir + "/adapter", PeftInfo{"SEQ_CLS", "", &clf.score.weight});

  auto base = load_hf_classifier(dir + "/base");
  EXPECT_EQ(base->config().max_length, 6);
  merge_adapter(*base, dir + "/adapter", dir + "/merged", nullptr);
  EXPECT_EQ(hf_classifier_max_length(dir + "/merged"), 6);
  EXPECT_EQ(load_hf_classifier(dir + "/merged")->config().pooling, Pooling::Mean);
  std::filesystem::remove_all(dir);
}

// Under `lora` a head without an adapter trains fully and is saved as modules_to_save.
TEST(Peft, FullyTrainedHeadTravelsWithTheAdapter) {
  const std::string dir = ::testing::TempDir() + "/tinylm_peft_head";
  std::filesystem::remove_all(dir);
  ClassifierConfig cc;
  cc.num_labels = 3, cc.pooling = Pooling::Mean, cc.pad_token_id = 12;
  Rng rng(12);
  SequenceClassifier clf(random_model(3), cc);
  save_hf_classifier(clf, dir + "/base");  // the head is still zeros here
  clf.init_head(rng, 0.3f);
  attach_lora(clf, config(2, {"c_fc"}), rng);
  apply_trainable(clf, TrainableSet::parse("lora"));
  EXPECT_TRUE(clf.score.weight.trainable());
  for (const auto& p : lora_of(clf)->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  const Tensor adapted = clf.forward(kLoraIds.data(), 2, 5).clone();
  save_peft_adapter(*lora_of(clf), dir + "/adapter", PeftInfo{"SEQ_CLS", "", &clf.score.weight});
  const auto cfg = nlohmann::json::parse(read_file(dir + "/adapter/adapter_config.json"));
  EXPECT_EQ(cfg["modules_to_save"], nlohmann::json({"score"}));
  EXPECT_EQ(cfg["task_type"], "SEQ_CLS");

  auto loaded = load_hf_classifier(dir + "/base");
  auto lora = load_peft_adapter(loaded->body(), &loaded->score, dir + "/adapter");
  const Tensor back = loaded->forward(kLoraIds.data(), 2, 5);
  for (int64_t i = 0; i < back.numel(); ++i) ASSERT_EQ(back[i], adapted[i]);
  std::filesystem::remove_all(dir);
}

TEST(VerifyLora, FixturePasses) {
  const auto results = verify_lora(kLoraFixture);
  ASSERT_GE(results.size(), 6u);
  for (const auto& r : results)
    EXPECT_TRUE(r.pass) << r.name << " error " << r.error << " " << r.detail;
}

}  // namespace
}  // namespace tinylm::finetune
