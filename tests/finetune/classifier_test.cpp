// Sequence classification: every pooling against a hand computation and finite
// differences, the frozen backward, HF folder round trip, and the gpt2-micro-classify
// fixture through verify_classify.
#include "model/classifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/gradcheck.h"
#include "common/input_error.h"
#include "model/hf_classifier.h"
#include "run/trainable.h"
#include "util/files.h"
#include "util/source_dir.h"
#include "verify/verify_classify.h"

namespace tinylm::finetune {
namespace {

const std::string kFixture =
    std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-micro-classify";

GPTConfig small_config() {
  GPTConfig c;
  c.vocab_size = 13, c.block_size = 8, c.n_layer = 2, c.n_head = 2, c.d_model = 8;
  return c;
}

std::unique_ptr<SequenceClassifier> random_classifier(Pooling pooling, bool bias,
                                                      uint64_t seed = 5) {
  ClassifierConfig cc;
  cc.num_labels = 3, cc.head_bias = bias, cc.pooling = pooling, cc.pad_token_id = 12;
  auto clf = std::make_unique<SequenceClassifier>(std::make_unique<GPT>(small_config()), cc);
  Rng rng(seed);
  for (auto& p : clf->parameters())
    p.param->value.copy_from(testing::random_tensor(p.param->value.shape(), rng, 0.3f));
  return clf;
}

// Right-padded with the pad id 12; the last row is unpadded.
const std::vector<int32_t> kIds = {1, 4, 7, 12, 12, 12,  //
                                   3, 3, 9, 2,  11, 12,  //
                                   5, 6, 0, 8,  10, 2};
const std::vector<int32_t> kLabels = {2, 0, 1};
constexpr int64_t kB = 3, kT = 6;

TEST(Pooling, ParsesNames) {
  EXPECT_EQ(parse_pooling("last_non_pad"), Pooling::LastNonPad);
  EXPECT_EQ(pooling_name(parse_pooling("mean")), "mean");
  EXPECT_NE(testing::input_error([] { parse_pooling("first"); }).find("first"), std::string::npos);
}

// Each pooling by hand: the logits of the classifier equal score(pooled hidden state).
TEST(Classifier, PoolingsReadTheRightPositions) {
  for (Pooling pooling : {Pooling::Last, Pooling::LastNonPad, Pooling::Mean}) {
    auto clf = random_classifier(pooling, true);
    const Tensor logits = clf->forward(kIds.data(), kB, kT).clone();
    const Tensor hidden = clf->body().forward_hidden(kIds.data(), kB, kT).clone();
    const int64_t C = 8;
    const std::vector<std::vector<int64_t>> positions =
        pooling == Pooling::Last ? std::vector<std::vector<int64_t>>{{5}, {5}, {5}}
        : pooling == Pooling::LastNonPad
            ? std::vector<std::vector<int64_t>>{{2}, {4}, {5}}
            : std::vector<std::vector<int64_t>>{{0, 1, 2}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4, 5}};
    for (int64_t b = 0; b < kB; ++b) {
      for (int64_t l = 0; l < 3; ++l) {
        double expected = clf->score.bias.value[l];
        for (int64_t c = 0; c < C; ++c) {
          double pooled = 0;
          for (int64_t t : positions[b]) pooled += hidden[(b * kT + t) * C + c];
          pooled /= static_cast<double>(positions[b].size());
          expected += pooled * clf->score.weight.value[l * C + c];
        }
        EXPECT_NEAR(logits[b * 3 + l], expected, 1e-5) << pooling_name(pooling) << " b=" << b;
      }
    }
  }
}

TEST(Classifier, LastNonPadOfAllPaddingIsPositionZeroAndMeanRejectsIt) {
  std::vector<int32_t> ids(6, 12);
  auto clf = random_classifier(Pooling::LastNonPad, false);
  const Tensor logits = clf->forward(ids.data(), 1, 6).clone();
  auto last = random_classifier(Pooling::Last, false);
  std::vector<int32_t> one = {12};
  const Tensor first = last->forward(one.data(), 1, 1);  // position 0 alone, causal
  for (int l = 0; l < 3; ++l) EXPECT_NEAR(logits[l], first[l], 1e-6);
  auto mean = random_classifier(Pooling::Mean, false);
  EXPECT_NE(testing::input_error([&] { mean->forward(ids.data(), 1, 6); }).find("only padding"),
            std::string::npos);
}

// Every pooling, every trainable tensor (all trainable) against finite differences.
TEST(Classifier, GradientsMatchFiniteDifferencesForEveryPooling) {
  for (Pooling pooling : {Pooling::Last, Pooling::LastNonPad, Pooling::Mean}) {
    auto clf = random_classifier(pooling, true);
    clf->zero_grad();
    clf->forward_loss(kIds.data(), kLabels.data(), kB, kT);
    clf->backward();
    const auto loss = [&] { return clf->forward_loss(kIds.data(), kLabels.data(), kB, kT); };
    for (auto& p : clf->parameters()) {
      const Tensor analytic = p.param->grad.clone();
      testing::expect_grad_close(pooling_name(pooling) + " " + p.name, p.param->value, analytic,
                                 loss, 12, 1e-2f, 2e-2);
    }
  }
}

// Freezing: last:1 gives the same gradients for what trains; head alone never enters the body.
TEST(Classifier, FrozenBackwardKeepsTheTrainableGradients) {
  for (Pooling pooling : {Pooling::Last, Pooling::LastNonPad, Pooling::Mean}) {
    auto full = random_classifier(pooling, false, 9);
    full->zero_grad();
    full->forward_loss(kIds.data(), kLabels.data(), kB, kT);
    full->backward();
    for (const char* spec : {"last:1", "head"}) {
      auto part = random_classifier(pooling, false, 9);
      apply_trainable(*part, TrainableSet::parse(spec));
      part->zero_grad();
      part->forward_loss(kIds.data(), kLabels.data(), kB, kT);
      part->backward();
      const ParameterList a = full->parameters(), b = part->parameters();
      int64_t trained = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!b[i].param->trainable()) continue;
        ++trained;
        for (int64_t k = 0; k < a[i].param->grad.numel(); ++k)
          ASSERT_NEAR(b[i].param->grad[k], a[i].param->grad[k], 1e-6f) << spec << " " << a[i].name;
      }
      EXPECT_EQ(trained, std::string(spec) == "head" ? 1 : 12 + 2 + 1) << spec;
    }
  }
}

TEST(Classifier, RejectsLabelsOutOfRange) {
  auto clf = random_classifier(Pooling::Last, false);
  std::vector<int32_t> labels = {0, 3, 1};
  EXPECT_NE(testing::input_error([&] { clf->forward_loss(kIds.data(), labels.data(), kB, kT); }),
            "");
}

TEST(HfClassifier, SaveLoadRoundTripKeepsLabelsPoolingAndLogits) {
  auto clf = random_classifier(Pooling::Mean, false);
  const std::string dir = ::testing::TempDir() + "/tinylm_clf_roundtrip";
  std::filesystem::remove_all(dir);
  save_hf_classifier(*clf, dir);
  auto back = load_hf_classifier(dir);
  EXPECT_EQ(back->config().num_labels, 3);
  EXPECT_EQ(back->config().pad_token_id, 12);
  EXPECT_EQ(back->config().pooling, Pooling::Mean);
  EXPECT_EQ(back->config().label(2), "LABEL_2");
  const Tensor a = clf->forward(kIds.data(), kB, kT).clone();
  const Tensor b = back->forward(kIds.data(), kB, kT);
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a[i], b[i]);
  const auto config = nlohmann::json::parse(read_file(dir + "/config.json"));
  EXPECT_EQ(config["architectures"][0], "GPT2ForSequenceClassification");
  EXPECT_EQ(config["label2id"]["LABEL_1"], 1);
  auto with_bias = random_classifier(Pooling::Mean, true);
  EXPECT_NE(
      testing::input_error([&] { save_hf_classifier(*with_bias, dir + "_bias"); }).find("bias"),
      std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(HfClassifier, ConfigFieldsAreCheckedByName) {
  const auto error = [](const char* text) {
    return testing::input_error(
        [&] { classifier_config_from_hf(nlohmann::json::parse(text), "c.json"); });
  };
  EXPECT_NE(error(R"({"id2label": {"0": "a", "2": "b"}})").find("id2label"), std::string::npos);
  EXPECT_NE(error(R"({"num_labels": "2"})").find("num_labels"), std::string::npos);
  EXPECT_NE(error(R"({"num_labels": 2, "pad_token_id": "x"})").find("pad_token_id"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"id2label": {"0": "a", "1": "b"}, "label2id": {"a": 1, "b": 0}})").find("label2id"),
      std::string::npos);
  EXPECT_NE(error(R"([])").find("object"), std::string::npos);
  EXPECT_EQ(error(R"({"num_labels": 2, "eos_token_id": 7})"), "");
  EXPECT_EQ(classifier_config_from_hf(
                nlohmann::json::parse(R"({"num_labels": 2, "eos_token_id": 7})"), "c")
                .pad_token_id,
            7);
}

TEST(VerifyClassify, FixturePasses) {
  const auto results = verify_classify(kFixture);
  ASSERT_GE(results.size(), 5u);
  for (const auto& r : results)
    EXPECT_TRUE(r.pass) << r.name << " error " << r.error << " " << r.detail;
}

// The same fixture with the other pooling must fail the logits check: the pooling is read,
// not assumed.
TEST(VerifyClassify, OtherPoolingIsReallyUsed) {
  const std::string dir = ::testing::TempDir() + "/tinylm_clf_pooling";
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kFixture, dir);
  auto info = nlohmann::json::parse(read_file(dir + "/reference.json"));
  info["pooling"] = "last";
  write_file_atomic(dir + "/reference.json", info.dump());
  const auto results = verify_classify(dir);
  EXPECT_FALSE(results[0].pass) << results[0].name;
  std::filesystem::remove_all(dir);
}

TEST(VerifyClassify, BadReferenceJsonNamesTheField) {
  const std::string dir = ::testing::TempDir() + "/tinylm_clf_bad";
  const auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    std::filesystem::remove_all(dir);
    std::filesystem::copy(kFixture, dir);
    auto info = nlohmann::json::parse(read_file(dir + "/reference.json"));
    edit(info);
    write_file_atomic(dir + "/reference.json", info.dump());
    return testing::input_error([&] { verify_classify(dir); });
  };
  EXPECT_NE(with([](auto& j) { j = nlohmann::json::array(); }).find("object"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j.erase("pooling"); }).find("pooling"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j["pooling"] = 3; }).find("pooling"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j["trainable"] = nlohmann::json::array(); }).find("trainable"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["trainable"][0] = "transformer.h.9.ln_1.weight"; }).find("h.9"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["loss"] = "high"; }).find("loss"), std::string::npos);
  EXPECT_NE(with([](auto& j) { j["adamw"]["betas"] = {0.9}; }).find("adamw.betas"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["adamw"].erase("eps"); }).find("adamw: missing field \"eps\""),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["adamw"]["weight_decay"] = "some"; }).find("weight_decay"),
            std::string::npos);
  EXPECT_NE(with([](auto& j) { j["adamw"]["per_step"][1] = 4; }).find("per_step[1]"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::finetune
