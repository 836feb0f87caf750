// training_config_model (`tinylm info --config`): a config without model.vocab_size gets
// the vocabulary of the data's tokenizer, the one a run of it would train with; a config
// that gives it, a preset or a bare model object is read as it is.
#include "train/config_model.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "run/train_config.h"
#include "train/training_data.h"
#include "util/error.h"
#include "util/files.h"
#include "util/source_dir.h"
#include "util/utf8.h"

namespace tinylm {
namespace {

const std::string kCorpus = std::string(tinylm::source_dir()) + "/data/the-verdict.txt";

nlohmann::json config_on(const nlohmann::json& data) {
  return {{"model", {{"block_size", 16}, {"n_layer", 1}, {"n_head", 2}, {"d_model", 8}}},
          {"data", data}};
}

TEST(ConfigModel, VocabularyFromTheDataAsTrainingLearnsIt) {
  const nlohmann::json j = config_on({{"path", kCorpus}, {"tokenizer", "char"}});
  const ConfigModel m = training_config_model(j, "cfg.json");
  EXPECT_EQ(m.vocab_from, "char");
  const TrainingData data(TrainConfig::from_json(j), nullptr);  // what a run loads
  EXPECT_EQ(m.model.vocab_size, data.tokenizer().vocab_size());
  const std::vector<char32_t> chars = utf8_decode(read_file(kCorpus));
  EXPECT_EQ(m.model.vocab_size,
            static_cast<int64_t>(std::set<char32_t>(chars.begin(), chars.end()).size()));
  EXPECT_EQ(m.model.n_layer, 1);
  EXPECT_EQ(m.model.d_model, 8);

  const ConfigModel gpt2 =
      training_config_model(config_on({{"path", kCorpus}, {"tokenizer", "gpt2"}}), "cfg.json");
  EXPECT_EQ(gpt2.model.vocab_size, 50257);
  EXPECT_EQ(gpt2.vocab_from, "gpt2");
  const ConfigModel addition = training_config_model(config_on({{"task", "addition"}}), "cfg.json");
  EXPECT_EQ(addition.model.vocab_size, 14);
}

TEST(ConfigModel, AGivenVocabularyAPresetOrABareModelIsReadAsItIs) {
  nlohmann::json j = config_on({{"path", "/nonexistent/corpus.txt"}});  // never read
  j["model"]["vocab_size"] = 77;
  const ConfigModel given = training_config_model(j, "cfg.json");
  EXPECT_EQ(given.model.vocab_size, 77);
  EXPECT_EQ(given.vocab_from, "");
  const ConfigModel preset = training_config_model(
      {{"model", {{"preset", "gpt2-124m"}}}, {"data", {{"path", "x"}}}}, "p.json");
  EXPECT_EQ(preset.model.n_layer, 12);
  EXPECT_EQ(preset.vocab_from, "");
  const ConfigModel bare = training_config_model(
      {{"vocab_size", 10}, {"block_size", 4}, {"n_layer", 2}, {"n_head", 1}, {"d_model", 4}},
      "m.json");
  EXPECT_EQ(bare.model.n_layer, 2);
}

TEST(ConfigModel, ErrorsNameTheFileOrTheData) {
  nlohmann::json j = config_on({{"path", kCorpus}});
  j["model"]["vocab_size"] = 20;
  j["model"]["n_head"] = 3;  // d_model 8 is not a multiple
  try {
    training_config_model(j, "cfg.json");
    FAIL() << "n_head 3 with d_model 8 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cfg.json: model.", 0), 0u) << e.what();
  }
  EXPECT_THROW(training_config_model(config_on({{"path", "/nonexistent/corpus.txt"}}), "cfg.json"),
               InputError);
}

}  // namespace
}  // namespace tinylm
