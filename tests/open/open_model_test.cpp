// Every model source opens through the one resolver (open/open_model.h), and each kind
// comes back with what its verbs need: weights equal to the kind's own loader, the
// tokenizer, the run's settings; the wrong kind for a verb is a plain InputError.
#include "open/open_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "common/scoped_env.h"
#include "export/merge_source.h"
#include "finetune/classify_trainer.h"
#include "finetune/finetune_test_util.h"
#include "finetune/instruct_trainer.h"
#include "hub/hub_cache_builder.h"
#include "model/hf_classifier.h"
#include "model/hf_gpt2.h"
#include "model/openai_folder_writer.h"
#include "open/base_model.h"
#include "open/loaded_run.h"
#include "run/run_folder.h"
#include "tokenizer/bpe_tokenizer.h"
#include "train/trainer.h"
#include "util/files.h"
#include "util/json_read.h"
#include "util/source_dir.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;
using testing::input_error;

const std::string kFixtures = std::string(tinylm::source_dir()) + "/tests/fixtures";

OpenOptions named(const std::string& option) {
  OpenOptions o;
  o.option = option;
  return o;
}

void expect_same_weights(GPT& a, GPT& b) {
  ParameterList pa = a.parameters(), pb = b.parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    const Tensor &x = pa[i].param->value, &y = pb[i].param->value;
    ASSERT_EQ(x.numel(), y.numel()) << pa[i].name;
    for (int64_t j = 0; j < x.numel(); ++j) ASSERT_EQ(x[j], y[j]) << pa[i].name;
  }
}

// A 4-step run of the addition recipe (tiny batches), written to `dir`.
void train_tiny_addition_run(const std::string& dir) {
  nlohmann::json j = read_json_file(std::string(tinylm::source_dir()) + "/configs/addition.json");
  j["train"]["batch_size"] = 8;
  j["train"]["max_steps"] = 4;
  j["train"]["eval_interval"] = 2;
  j["train"]["eval_iters"] = 1;
  j["train"]["threads"] = 1;
  TrainOptions options;
  options.out_dir = dir;
  options.quiet = true;
  ASSERT_EQ(train(TrainConfig::from_json(j), options), 0);
}

TEST(OpenModel, HuggingFaceFolderGivesTheLanguageModelAndGpt2Bpe) {
  const std::string dir = kFixtures + "/gpt2-tiny";
  OpenedModel m = open_model(dir);
  EXPECT_EQ(m.source.kind, ModelSourceKind::HfLanguageModel);
  ASSERT_TRUE(m.lm);
  EXPECT_FALSE(m.classifier);
  EXPECT_EQ(m.tokenizer->kind(), "gpt2");
  EXPECT_FALSE(m.train_config || m.finetune_config);
  expect_same_weights(m.language_model("test"), *load_hf_gpt2(dir));
  EXPECT_NE(input_error([&] { m.classifier_model("tinylm classify"); }).find("needs a classifier"),
            std::string::npos);
}

TEST(OpenModel, HuggingFaceClassifierFolderGivesTheClassifier) {
  const std::string dir = kFixtures + "/gpt2-micro-classify";
  OpenedModel m = open_model(dir);
  EXPECT_EQ(m.source.kind, ModelSourceKind::HfClassifier);
  ASSERT_TRUE(m.classifier);
  EXPECT_EQ(m.pad_id, 511);
  EXPECT_EQ(m.max_length, 0);
  expect_same_weights(m.gpt(), load_hf_classifier(dir)->body());
  const std::string e = input_error([&] { m.language_model("tinylm sample"); });
  EXPECT_NE(e.find("tinylm sample needs a language model"), std::string::npos) << e;
  EXPECT_NE(e.find("tinylm classify"), std::string::npos) << e;
}

TEST(OpenModel, TrainRunFolderAndCheckpointFile) {
  const std::string dir = testing::temp_path("open-train-run");
  train_tiny_addition_run(dir);
  OpenedModel run = open_model(dir, named("--run"));
  EXPECT_EQ(run.source.kind, ModelSourceKind::TrainRun);
  ASSERT_TRUE(run.train_config);
  EXPECT_TRUE(run.is_addition());
  EXPECT_EQ(run.step, 4);
  EXPECT_EQ(run.tokenizer->kind(), "addition");
  LoadedRun direct = load_run(dir);
  expect_same_weights(*run.lm, *direct.model);
  EXPECT_EQ(run.checkpoint, direct.checkpoint);

  OpenedModel file = open_model(dir + "/last.safetensors");
  EXPECT_EQ(file.source.kind, ModelSourceKind::Checkpoint);
  EXPECT_EQ(file.step, 4);
  EXPECT_EQ(model_config_of(file.source).n_layer, 2);
  fs::remove_all(dir);
}

TEST(OpenModel, FineTuningRunsGiveTheirModelAndSettings) {
  const std::string dir = testing::temp_path("open-finetune");
  FinetuneConfig c = FinetuneConfig::from_json(testing::tiny_classify_settings(), "classify");
  c.base = "gpt2-124m";
  c.data = testing::write_spam_file(dir + "-spam.tsv", 30);
  c.finetune.epochs = 1;
  ASSERT_EQ(finetune::finetune_classify(c, {dir + "/cls", false, true, -1}), 0);
  FinetuneConfig i = FinetuneConfig::from_json(testing::tiny_instruct_settings(), "instruct");
  i.base = "gpt2-124m";
  i.data = testing::write_instruction_file(dir + "-instruct.json", 12);
  i.finetune.epochs = 1;
  ASSERT_EQ(finetune::finetune_instruct(i, {dir + "/ins", false, true, -1}), 0);

  OpenedModel cls = open_model(dir + "/cls");
  EXPECT_EQ(cls.source.kind, ModelSourceKind::FinetuneRun);
  EXPECT_TRUE(cls.source.is_classifier());
  ASSERT_TRUE(cls.classifier && cls.finetune_config);
  EXPECT_EQ(cls.finetune_config->task, "classify");
  EXPECT_GT(cls.max_length, 0);
  EXPECT_EQ(cls.classifier->config().labels, (std::vector<std::string>{"ham", "spam"}));
  // the run's exported Hugging Face classifier holds the same body
  OpenedModel hf = open_model(dir + "/cls/hf");
  EXPECT_EQ(hf.source.kind, ModelSourceKind::HfClassifier);
  expect_same_weights(hf.gpt(), cls.gpt());

  OpenedModel ins = open_model(dir + "/ins");
  EXPECT_EQ(ins.source.task, "instruct");
  ASSERT_TRUE(ins.lm && ins.finetune_config);
  EXPECT_EQ(ins.finetune_config->finetune.max_new_tokens, 6);
  EXPECT_NE(input_error([&] { ins.classifier_model("tinylm classify"); }).find("tinylm respond"),
            std::string::npos);
  // the shape alone, as `tinylm info` reads it (not the empty preset overrides)
  EXPECT_EQ(model_config_of(ins.source).vocab_size, 50257);
  EXPECT_EQ(model_config_of(cls.source).d_model, 16);
  // a fine-tuning checkpoint file names its folder
  EXPECT_NE(
      input_error([&] { open_model(dir + "/ins/last.safetensors"); }).find("give its run folder"),
      std::string::npos);
  fs::remove_all(dir);
  fs::remove(dir + "-spam.tsv");
  fs::remove(dir + "-instruct.json");
}

TEST(OpenModel, PresetsAndWhatIsNoModel) {
  const ModelSourceInfo preset = identify_model_source("gpt2-124m", "--model");
  EXPECT_EQ(preset.kind, ModelSourceKind::Preset);
  EXPECT_EQ(model_config_of(preset).n_layer, 12);
  EXPECT_NE(input_error([&] { open_model("gpt2-tiniest"); }).find("gpt2-124m"), std::string::npos);
  EXPECT_NE(input_error([&] { open_model(""); }).find("no model given"), std::string::npos);
  const std::string dir = testing::temp_path("open-nothing");
  fs::create_directories(dir);
  write_file_atomic(dir + "/notes.txt", "mine");
  const std::string e = input_error([&] { open_model(dir, named("--base")); });
  EXPECT_NE(e.find("--base " + dir + ": not a Hugging Face GPT-2 folder"), std::string::npos) << e;
  EXPECT_NE(input_error([&] { open_model(dir + "/notes.txt"); }).find("not a model file"),
            std::string::npos);
  EXPECT_EQ(read_file(dir + "/notes.txt"), "mine");
  fs::remove_all(dir);
}

// A repo id or GPT-2 short name that is no path opens its snapshot in the Hugging Face
// cache (files as links to blobs, as huggingface_hub writes them), the same weights as the
// folder itself; one the cache lacks names the download that fetches it.
TEST(OpenModel, ARepoIdOpensFromTheHuggingFaceCache) {
  const std::string cache = testing::fresh_cache_dir("open");
  testing::ScopedEnv env("HF_HUB_CACHE", cache.c_str());
  const std::string fixture = kFixtures + "/gpt2-tiny";
  const testing::HubCacheRepo repo{cache, "me/tiny", "0123456789abcdef0123456789abcdef01234567"};
  repo.put_file("config.json", fixture + "/config.json", "etag-config");
  repo.put_file("model.safetensors", fixture + "/model.safetensors",
                "2b1b7e0f5d3c9a8e7f6d5c4b3a29181706f5e4d3c2b1a09f8e7d6c5b4a392817");
  repo.set_ref("main");
  OpenedModel cached = open_model("me/tiny", named("--model"));
  EXPECT_EQ(cached.source.kind, ModelSourceKind::HfLanguageModel);
  EXPECT_EQ(cached.source.path, repo.snapshot());
  OpenedModel direct = open_model(fixture);
  expect_same_weights(*cached.lm, *direct.lm);
  const std::string missing = input_error([&] { open_model("gpt2-large", named("--base")); });
  EXPECT_NE(missing.find("--base gpt2-large: no such file or folder, and no Hugging Face repo"),
            std::string::npos)
      << missing;
  EXPECT_NE(missing.find(cache), std::string::npos) << missing;
  EXPECT_NE(missing.find("`tinylm download gpt2-large` fetches it"), std::string::npos) << missing;
  EXPECT_NE(input_error([&] { open_model("someone/else"); }).find("`tinylm download someone/else`"),
            std::string::npos);
  // a folder of that name in the working folder wins over the cache
  EXPECT_EQ(identify_model_source(fixture, "--model").path, fixture);
  fs::remove_all(cache);
}

// OpenAI's original GPT-2 folder opens with its own vocabulary files and the weights the
// Hugging Face folder of the same model has.
TEST(OpenModel, OpenAisFolderOpensWithItsVocabulary) {
  OpenedModel hf = open_model(kFixtures + "/gpt2-tiny");
  const std::string dir = testing::temp_path("open-openai");
  testing::write_openai_gpt2(*hf.lm, dir, default_gpt2_dir());
  OpenedModel openai = open_model(dir, named("--model"));
  EXPECT_EQ(openai.source.kind, ModelSourceKind::OpenAiCheckpoint);
  EXPECT_EQ(describe(openai.source), "OpenAI's GPT-2 checkpoint");
  expect_same_weights(*openai.lm, *hf.lm);
  EXPECT_EQ(openai.tokenizer->encode("Hello, world"), hf.tokenizer->encode("Hello, world"));
  EXPECT_EQ(model_config_of(openai.source).d_model, hf.lm->config().d_model);
  fs::remove_all(dir);
}

TEST(OpenModel, LoraMergeTakesAnySource) {
  const std::string base = kFixtures + "/gpt2-micro-lora";
  const std::string out = testing::temp_path("open-merge");
  const MergeSummary s = merge_adapter_into(base, base + "/adapter", out);
  EXPECT_FALSE(s.classifier);
  EXPECT_GT(s.modules, 0);
  OpenedModel merged = open_model(out);
  EXPECT_EQ(merged.source.kind, ModelSourceKind::HfLanguageModel);
  fs::remove_all(out);
}

// Every kind of source is one row of the one table, with each of its parts.
TEST(ModelSourceTable, OneRowPerKindWithEveryPart) {
  const ModelSourceKind kinds[] = {
      ModelSourceKind::HfLanguageModel, ModelSourceKind::HfClassifier,    ModelSourceKind::TrainRun,
      ModelSourceKind::Checkpoint,      ModelSourceKind::FinetuneRun,     ModelSourceKind::Preset,
      ModelSourceKind::GgufFile,        ModelSourceKind::OpenAiCheckpoint};
  EXPECT_EQ(model_source_table().size(), std::size(kinds));
  for (ModelSourceKind kind : kinds) {
    int rows = 0;
    for (const ModelSourceRow& row : model_source_table()) rows += row.kind == kind;
    EXPECT_EQ(rows, 1) << static_cast<int>(kind);
    const ModelSourceRow& row = model_source_row(kind);
    EXPECT_TRUE(row.recognise && row.describe && row.shape && row.open);
    EXPECT_NE(std::string(row.base_name), "");
  }
}

// A train run's config.json says it is one ("kind": "train"), and a run folder from before
// that field is still told by its sections; a run starts from it (train.init_from, --base)
// through the same opener as every verb.
TEST(ModelSourceTable, ATrainRunNamesItsKindAndIsABase) {
  const std::string dir = testing::temp_path("open-kind");
  train_tiny_addition_run(dir);
  nlohmann::json config = read_json_file(dir + "/config.json");
  EXPECT_EQ(config["kind"], "train");
  EXPECT_EQ(run_config_kind(dir), "train");
  EXPECT_EQ(finetune_task_of(dir), "");
  config.erase("kind");
  write_file_atomic(dir + "/config.json", config.dump(2));
  EXPECT_EQ(run_config_kind(dir), "train");

  BaseModel base = load_base_model(dir, nlohmann::json::object(), -1.0, 1, "train.init_from");
  EXPECT_EQ(base.kind, "run");
  OpenedModel opened = open_model(dir);
  expect_same_weights(*base.model, *opened.lm);
  EXPECT_EQ(base.tokenizer->kind(), opened.tokenizer->kind());
  fs::remove_all(dir);
}

// A Hugging Face folder is a base with the weights every verb opens; a preset base takes
// the run's "model" fields.
TEST(ModelSourceTable, AFolderBaseIsWhatVerbsOpenAndAPresetTakesFields) {
  const std::string dir = kFixtures + "/gpt2-tiny";
  OpenedModel lm = open_model(dir);
  BaseModel base = load_base_model(dir, nlohmann::json::object(), -1.0, 1);
  expect_same_weights(*base.model, *lm.lm);

  const nlohmann::json fields = {{"n_layer", 1}, {"n_head", 2}, {"d_model", 16}, {"block_size", 8}};
  BaseModel preset = load_base_model("gpt2-124m", fields, 0.0, 7);
  EXPECT_EQ(preset.kind, "preset");
  EXPECT_EQ(preset.model->config().n_layer, 1);
  EXPECT_EQ(preset.model->config().d_model, 16);
  EXPECT_NE(input_error([] {
              load_base_model("no-such-preset", {{"n_layer", 1}}, 0.0, 7);
            }).find("not a folder, and"),
            std::string::npos);
}

}  // namespace
}  // namespace tinylm
