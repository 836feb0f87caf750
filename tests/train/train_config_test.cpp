// The train config's LoRA and init_from fields: defaults, how a "lora" section selects
// LoRA, validation, and a lossless round trip through to_json (what checkpoints keep).
#include "run/train_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "util/error.h"

namespace tinylm {
namespace {

nlohmann::json minimal() {
  return {{"model", {{"block_size", 8}, {"n_layer", 1}, {"n_head", 1}, {"d_model", 8}}},
          {"data", {{"path", "corpus.txt"}}}};
}

std::string input_error(const nlohmann::json& j) {
  try {
    TrainConfig::from_json(j).validate();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TrainConfig, LoraDefaultsAndWhatSelectsIt) {
  const TrainConfig plain = TrainConfig::from_json(minimal());
  EXPECT_EQ(plain.train.trainable, "all");
  EXPECT_EQ(plain.train.init_from, "");
  EXPECT_EQ(plain.lora.r, 16);
  EXPECT_FLOAT_EQ(plain.lora.alpha, 16.0f);
  EXPECT_EQ(plain.lora.targets, (std::vector<std::string>{"all-linear"}));

  nlohmann::json j = minimal();
  j["lora"] = {{"r", 4}, {"dropout", 0.1}};
  const TrainConfig lora = TrainConfig::from_json(j);
  EXPECT_EQ(lora.train.trainable, "lora");  // a lora section alone asks for LoRA
  EXPECT_EQ(lora.lora.r, 4);
  j["train"] = {{"trainable", "all"}};
  EXPECT_EQ(TrainConfig::from_json(j).train.trainable, "all");  // unless told otherwise
}

// A config may say what it is ("kind": "train", as RUN/config.json does), and nothing else.
TEST(TrainConfig, KindIsTrainOrAbsent) {
  nlohmann::json j = {{"model", {{"block_size", 8}, {"n_layer", 1}, {"n_head", 1}, {"d_model", 8}}},
                      {"data", {{"task", "addition"}}}};
  EXPECT_EQ(TrainConfig::from_json(j).to_json()["kind"], "train");
  j["kind"] = "train";
  EXPECT_NO_THROW(TrainConfig::from_json(j));
  j["kind"] = "classify";
  EXPECT_NE(testing::input_error([&] { TrainConfig::from_json(j); }).find("kind"),
            std::string::npos);
}

TEST(TrainConfig, RoundTripsThroughJson) {
  nlohmann::json j = minimal();
  j["train"] = {{"init_from", "runs/base"}, {"trainable", "lora"}};
  j["lora"] = {{"r", 2}, {"alpha", 3.5}, {"targets", {"c_fc"}}, {"dropout", 0.1}};
  const TrainConfig c = TrainConfig::from_json(j);
  const nlohmann::json saved = c.to_json();
  EXPECT_EQ(saved["lora"]["dropout"], 0.1);  // written as the user wrote it
  EXPECT_EQ(TrainConfig::from_json(saved).to_json(), saved);
  EXPECT_EQ(saved["train"]["init_from"], "runs/base");
}

TEST(TrainConfig, RejectsBadLoraSettings) {
  nlohmann::json j = minimal();
  j["train"] = {{"trainable", "half"}};
  EXPECT_NE(input_error(j).find("train.trainable"), std::string::npos);
  j["train"] = {{"trainable", "lora"}};
  j["lora"] = {{"r", 0}};
  EXPECT_NE(input_error(j).find("lora.r"), std::string::npos);
  j["lora"] = {{"alpha", -1}};
  EXPECT_NE(input_error(j).find("lora.alpha"), std::string::npos);
  j["lora"] = {{"targets", nlohmann::json::array()}};
  EXPECT_NE(input_error(j).find("lora.targets"), std::string::npos);
  j["lora"] = {{"rank", 4}};
  EXPECT_NE(input_error(j).find("lora.rank"), std::string::npos);
  j["train"] = {{"trainable", "all"}};  // settings LoRA does not use are not checked
  j["lora"] = {{"r", 0}};
  EXPECT_EQ(input_error(j), "");
}

}  // namespace
}  // namespace tinylm
