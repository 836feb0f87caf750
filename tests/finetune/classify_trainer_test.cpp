// finetune_classify on a tiny GPT (preset shape, random init) and a tiny labelled file
// written here: the run folder, accuracies and confusion matrix, which tensors the
// trainable sets change, LoRA export, exact resume, and the bad inputs.
#include "finetune/classify_trainer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "finetune/finetune_test_util.h"
#include "io/safetensors.h"
#include "model/hf_classifier.h"
#include "open/base_model.h"
#include "open/classify_run.h"
#include "run/finetune_config.h"
#include "util/files.h"

namespace tinylm::finetune {
namespace {

namespace fs = std::filesystem;
using testing::input_error;

FinetuneConfig tiny_config(const std::string& data, const std::string& trainable = "all") {
  FinetuneConfig c = FinetuneConfig::from_json(testing::tiny_classify_settings(), "classify");
  c.finetune.trainable = trainable;
  c.base = "gpt2-124m";
  c.data = data;
  return c;
}

// The body tensors of a run's checkpoint, by name.
std::map<std::string, Tensor> checkpoint_tensors(const std::string& dir) {
  const SafeTensors f = load_safetensors(dir + "/last.safetensors");
  std::map<std::string, Tensor> m;
  for (const auto& name : f.names)
    if (name.rfind("model.", 0) == 0) m[name.substr(6)] = f.get(name).to_float();
  return m;
}

bool same(const Tensor& a, const Tensor& b) {
  if (a.numel() != b.numel()) return false;
  for (int64_t i = 0; i < a.numel(); ++i)
    if (a.data()[i] != b.data()[i]) return false;
  return true;
}

TEST(FinetuneClassify, LearnsReportsAndExports) {
  const std::string dir = testing::temp_path("classify-run");
  const std::string data = testing::write_spam_file(dir + "-data.tsv", 60);
  ASSERT_EQ(finetune_classify(tiny_config(data), {dir, false, true, -1}), 0);
  for (const char* f : {"config.json", "tokenizer.json", "log.jsonl", "last.safetensors",
                        "report.html", "results.json", "hf/config.json", "hf/model.safetensors"})
    EXPECT_TRUE(file_exists(dir + "/" + f)) << f;
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/results.json"));
  // 20 spam, 40 ham -> balanced 20 + 20 -> 28 / 4 / 8
  const auto& m = r["confusion"]["test"];
  EXPECT_EQ(m[0][0].get<int>() + m[0][1].get<int>() + m[1][0].get<int>() + m[1][1].get<int>(), 8);
  EXPECT_EQ(r["confusion"]["labels"], (nlohmann::json{"ham", "spam"}));
  EXPECT_GE(r["accuracy_after"]["train"].get<double>(), 0.9);  // the words give it away
  EXPECT_GT(r["accuracy_after"]["train"].get<double>(),
            r["accuracy_before"]["train"].get<double>());
  EXPECT_NE(read_file(dir + "/log.jsonl").find("val_accuracy"), std::string::npos);

  // The run reads back; the exported transformers folder gives the same logits.
  ClassifyRun run = load_classify_run(dir, "test");
  auto hf = load_hf_classifier(dir + "/hf");
  const std::vector<int32_t> ids =
      encode_padded(*run.tokenizer, "win a prize", run.max_length, run.pad_id);
  const Tensor a = run.model->forward(ids.data(), 1, run.max_length);
  const std::vector<float> logits(a.data(), a.data() + 2);
  const Tensor b = hf->forward(ids.data(), 1, run.max_length);
  EXPECT_NEAR(logits[0], b.data()[0], 1e-5);
  EXPECT_NEAR(logits[1], b.data()[1], 1e-5);
  EXPECT_EQ(hf->config().labels, (std::vector<std::string>{"ham", "spam"}));
  fs::remove_all(dir);
  fs::remove(data);
}

TEST(FinetuneClassify, TrainableSetsChangeOnlyWhatTheyName) {
  const std::string data =
      testing::write_spam_file(testing::temp_path("classify-sets") + ".tsv", 30);
  FinetuneConfig c = tiny_config(data);
  const BaseModel base = load_base_model(c.base, c.model, 0.0, c.finetune.seed);
  std::map<std::string, Tensor> initial;
  for (const auto& p : base.model->parameters()) initial[p.name] = p.param->value;
  for (const std::string set : {"head", "last:1"}) {
    const std::string dir =
        testing::temp_path("classify-" + std::string(set == "head" ? "head" : "last1"));
    ASSERT_EQ(finetune_classify(tiny_config(data, set), {dir, false, true, -1}), 0);
    const auto trained = checkpoint_tensors(dir);
    for (const auto& [name, value] : initial) {
      const bool in_last_block = name.rfind("h.1.", 0) == 0 || name.rfind("ln_f.", 0) == 0;
      if (set == "last:1" && in_last_block) {
        EXPECT_FALSE(same(trained.at(name), value)) << set << " " << name;
      } else {
        EXPECT_TRUE(same(trained.at(name), value)) << set << " " << name;
      }
    }
    // AdamW state only for what trains
    const SafeTensors f = load_safetensors(dir + "/last.safetensors");
    EXPECT_TRUE(f.has("optim.m.score.weight"));
    EXPECT_FALSE(f.has("optim.m.wte.weight"));
    EXPECT_EQ(f.has("optim.m.h.1.mlp.c_fc.weight"), set == "last:1");
    fs::remove_all(dir);
  }
  fs::remove(data);
}

TEST(FinetuneClassify, LoraTrainsAdaptersAndExportsPeftAndMerged) {
  const std::string dir = testing::temp_path("classify-lora");
  const std::string data = testing::write_spam_file(dir + "-data.tsv", 30);
  FinetuneConfig c = tiny_config(data, "lora");
  c.lora.r = 2;
  c.lora.alpha = 4;
  c.lora.targets = {"c_attn", "c_fc"};
  ASSERT_EQ(finetune_classify(c, {dir, false, true, -1}), 0);
  EXPECT_TRUE(file_exists(dir + "/adapter/adapter_config.json"));
  EXPECT_TRUE(file_exists(dir + "/adapter/adapter_model.safetensors"));
  EXPECT_TRUE(file_exists(dir + "/hf/model.safetensors"));
  const auto trained = checkpoint_tensors(dir);
  EXPECT_TRUE(trained.count("transformer.h.0.attn.c_attn.lora_A.weight"));
  const BaseModel base = load_base_model(c.base, c.model, 0.0, c.finetune.seed);
  for (const auto& p : base.model->parameters())
    EXPECT_TRUE(same(trained.at(p.name), p.param->value)) << p.name;
  // The run (base + adapters) and the merged export agree.
  ClassifyRun run = load_classify_run(dir, "test");
  auto hf = load_hf_classifier(dir + "/hf");
  const std::vector<int32_t> ids =
      encode_padded(*run.tokenizer, "free prize", run.max_length, run.pad_id);
  const Tensor a = run.model->forward(ids.data(), 1, run.max_length);
  const float a0 = a.data()[0], a1 = a.data()[1];
  const Tensor b = hf->forward(ids.data(), 1, run.max_length);
  EXPECT_NEAR(a0, b.data()[0], 1e-4);
  EXPECT_NEAR(a1, b.data()[1], 1e-4);
  // That GPT2ForSequenceClassification folder is a base too: its body, a new head.
  const BaseModel body = load_base_model(dir + "/hf", {}, 0.0, 1);
  std::map<std::string, Tensor> hf_body;
  for (const auto& p : hf->body().parameters()) hf_body[p.name] = p.param->value;
  for (const auto& p : body.model->parameters())
    EXPECT_TRUE(same(hf_body.at(p.name), p.param->value)) << p.name;
  FinetuneConfig again = tiny_config(data, "head");
  again.base = dir + "/hf";
  again.finetune.max_steps = 1;
  again.model = nlohmann::json::object();  // the folder has its shape
  EXPECT_EQ(finetune_classify(again, {dir + "-again", false, true, -1}), 0);
  fs::remove_all(dir);
  fs::remove_all(dir + "-again");
  fs::remove(data);
}

// Stopped after 4 steps and resumed, a run ends bit-identical to one that never stopped,
// dropout included (the model's, and LoRA's on the adapters' inputs).
TEST(FinetuneClassify, ResumeIsExact) {
  const std::string whole = testing::temp_path("classify-whole"),
                    split = testing::temp_path("classify-split");
  const std::string data = testing::write_spam_file(whole + "-data.tsv", 30);
  for (const std::string trainable : {"last:1", "lora"}) {
    FinetuneConfig c = tiny_config(data, trainable);
    c.finetune.dropout = 0.1;
    c.lora.r = 2;
    c.lora.dropout = 0.2;
    ASSERT_EQ(finetune_classify(c, {whole, false, true, -1}), 0);
    ASSERT_EQ(finetune_classify(c, {split, false, true, 4}), 0);
    ASSERT_EQ(finetune_classify(c, {split, true, true, -1}), 0);
    const auto a = checkpoint_tensors(whole), b = checkpoint_tensors(split);
    for (const auto& [name, t] : a) EXPECT_TRUE(same(t, b.at(name))) << trainable << " " << name;
    EXPECT_EQ(nlohmann::json::parse(read_file(whole + "/results.json")),
              nlohmann::json::parse(read_file(split + "/results.json")))
        << trainable;
    for (const auto& d : {whole, split}) fs::remove_all(d);
  }
  fs::remove(data);
}

TEST(FinetuneClassify, BadDataIsRefusedBeforeWriting) {
  const std::string dir = testing::temp_path("classify-bad");
  const std::string data = dir + "-data";
  FinetuneConfig c = tiny_config(data + ".jsonl");
  write_file_atomic(
      data + ".jsonl",
      "{\"label\": \"ham\", \"body\": \"hi\"}\n{\"label\": \"spam\", \"body\": \"win\"}\n");
  EXPECT_NE(input_error([&] {
              finetune_classify(c, {dir, false, true, -1});
            }).find("text"),
            std::string::npos);
  c = tiny_config(data + ".tsv");
  write_file_atomic(data + ".tsv", "ham\thello\nspam\t \n");
  EXPECT_NE(input_error([&] {
              finetune_classify(c, {dir, false, true, -1});
            }).find("empty text"),
            std::string::npos);
  write_file_atomic(data + ".tsv", "ham\thello\nspam\twin\neggs\tbacon\n");
  c.finetune.labels = {"ham", "spam"};
  EXPECT_NE(input_error([&] {
              finetune_classify(c, {dir, false, true, -1});
            }).find("unknown label 'eggs'"),
            std::string::npos);
  c.finetune.labels = {};
  c.finetune.trainable = "last:7";
  testing::write_spam_file(data + ".tsv", 30);
  EXPECT_NE(input_error([&] {
              finetune_classify(c, {dir, false, true, -1});
            }).find("last:7"),
            std::string::npos);
  c.finetune.trainable = "all";
  c.finetune.pooling = "first";
  EXPECT_NE(input_error([&] {
              finetune_classify(c, {dir, false, true, -1});
            }).find("first"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
  fs::remove(data + ".tsv");
  fs::remove(data + ".jsonl");
}

}  // namespace
}  // namespace tinylm::finetune
