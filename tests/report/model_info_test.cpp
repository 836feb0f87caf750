// The `tinylm info` report (report/model_info.h): config loading, text and JSON.
#include "report/model_info.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "report/text_table.h"
#include "util/error.h"

using namespace tinylm;
using namespace tinylm::report;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("tinylm_info_" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST(ModelInfo, LoadsNestedOrBareModelConfig) {
  const std::string model =
      R"({"vocab_size": 65, "block_size": 256, "n_layer": 6, "n_head": 6, "d_model": 384,
          "bias": false})";
  const GPTConfig bare = load_model_config(write_temp("bare.json", model));
  const GPTConfig nested =
      load_model_config(write_temp("nested.json", R"({"model": )" + model + R"(, "train": {}})"));
  EXPECT_EQ(param_table(bare).total, 10745088);
  EXPECT_EQ(param_table(nested).total, 10745088);
}

TEST(ModelInfo, BadConfigsAreInputErrors) {
  EXPECT_THROW(load_model_config("/nonexistent/config.json"), InputError);
  EXPECT_THROW(load_model_config(write_temp("broken.json", "{ not json")), InputError);
  try {
    load_model_config(write_temp("unknown.json", R"({"model": {"n_layers": 2}})"));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.n_layers"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_model_config(write_temp("invalid.json", R"({"vocab_size": 10})")),
               InputError);  // block_size etc. missing -> validate() fails
}

TEST(ModelInfo, TextAndJsonAgree) {
  const ModelInfo info = model_info(GPTConfig::preset("gpt2-124m"), 1, 1024);
  const std::string text = render_text(info);
  EXPECT_NE(text.find("124,439,808"), std::string::npos);
  EXPECT_NE(text.find("tied to token embedding, 0 extra"), std::string::npos);
  EXPECT_NE(text.find("excluding position embeddings"), std::string::npos);
  const nlohmann::json j = to_json(info);
  EXPECT_EQ(j["parameters"]["total"], 124439808);
  EXPECT_EQ(j["parameters"]["excluding_position_embeddings"], 124439808 - 786432);
  EXPECT_EQ(j["flops"]["train_per_step"].get<int64_t>(), info.flops.train_per_step);
  EXPECT_EQ(j["memory"]["training_peak_bytes"].get<int64_t>(), info.memory.training_peak());
  EXPECT_EQ(j["batch"], 1);
  EXPECT_EQ(j["seq"], 1024);
}

// A LoRA run's tables: the model's parameters frozen, the adapters trainable, and the
// whole (frozen + trainable) as the run report's summary counts it.
TEST(ModelInfo, LoraRunCountsFrozenAndTrainable) {
  LoraAdapters lora;
  lora.r = 4;
  lora.description = "LoRA r 4 on c_attn";
  for (int l = 0; l < 12; ++l)
    lora.layers.push_back({"transformer.h." + std::to_string(l) + ".attn.c_attn", 768, 2304});
  const int64_t Na = 12 * 4 * (768 + 2304);  // 147,456
  const ModelInfo info = model_info(GPTConfig::preset("gpt2-124m"), 1, 1024, &lora);
  const std::string text = render_text(info);
  EXPECT_NE(text.find("frozen: the model above"), std::string::npos) << text;
  EXPECT_NE(text.find("147,456"), std::string::npos);
  EXPECT_NE(text.find(with_commas(124439808 + Na)), std::string::npos);  // all parameters
  EXPECT_EQ(info.memory.gradients, 4 * Na);
  const nlohmann::json j = to_json(info);
  EXPECT_EQ(j["lora"]["trainable_parameters"], Na);
  EXPECT_EQ(j["lora"]["frozen_parameters"], 124439808);
}
