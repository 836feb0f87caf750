// finetune_instruct on a tiny GPT (preset shape, random init) and tiny instruction data
// written here: the run folder's files, the loss going down, exact resume, and the
// checks on --out, --resume and the data.
#include "finetune/instruct_trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_error.h"
#include "finetune/finetune_test_util.h"
#include "finetune/respond.h"
#include "io/safetensors.h"
#include "lora/lora.h"
#include "open/base_model.h"
#include "open/instruct_run.h"
#include "run/finetune_config.h"
#include "run/lm_trainable.h"
#include "util/files.h"
#include "util/source_dir.h"

namespace tinylm::finetune {
namespace {

namespace fs = std::filesystem;
using testing::input_error;

FinetuneConfig instruct_config(const std::string& data) {
  FinetuneConfig c = FinetuneConfig::from_json(testing::tiny_instruct_settings(), "instruct");
  c.base = "gpt2-124m";
  c.data = data;
  return c;
}

std::vector<nlohmann::json> log_lines(const std::string& dir) {
  std::istringstream in(read_file(dir + "/log.jsonl"));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

TEST(FinetuneConfig, CourseDefaultsPerTask) {
  const FinetuneConfig i = FinetuneConfig::from_json(nlohmann::json::object(), "instruct");
  EXPECT_EQ(i.finetune.epochs, 2);
  EXPECT_DOUBLE_EQ(i.finetune.lr, 5e-5);
  EXPECT_DOUBLE_EQ(i.finetune.weight_decay, 0.1);
  EXPECT_EQ(i.finetune.batch_size, 8);
  EXPECT_FALSE(i.finetune.mask_prompt);
  EXPECT_EQ(i.finetune.allowed_max_length, 1024);
  EXPECT_EQ(i.finetune.trainable, "all");
  const FinetuneConfig c = FinetuneConfig::from_json(nlohmann::json::object(), "classify");
  EXPECT_EQ(c.finetune.epochs, 5);
  EXPECT_EQ(c.finetune.trainable, "last:1");
  EXPECT_EQ(c.finetune.pooling, "last");
  EXPECT_DOUBLE_EQ(c.finetune.train_fraction, 0.7);
  EXPECT_TRUE(c.finetune.balance);
}

TEST(FinetuneConfig, ALoraSectionWithoutATrainableSetSelectsLora) {
  const nlohmann::json lora = {{"lora", {{"r", 4}}}};
  EXPECT_EQ(FinetuneConfig::from_json(lora, "classify").finetune.trainable, "lora");
  nlohmann::json all = lora;
  all["finetune"] = {{"trainable", "all"}};
  EXPECT_EQ(FinetuneConfig::from_json(all, "classify").finetune.trainable, "all");
}

TEST(FinetuneConfig, RejectsUnknownFieldsAndReadsLists) {
  EXPECT_NE(input_error([] {
              FinetuneConfig::from_json({{"finetune", {{"lrr", 1}}}}, "instruct");
            }).find("finetune.lrr"),
            std::string::npos);
  EXPECT_NE(input_error([] {
              FinetuneConfig::from_json({{"train", {}}}, "instruct");
            }).find("train"),
            std::string::npos);
  EXPECT_NE(input_error([] { FinetuneConfig::from_json({}, "summarize"); }).find("summarize"),
            std::string::npos);
  EXPECT_NE(input_error([] {
              FinetuneConfig::from_json({{"lora", {{"r", 0}}}}, "classify");
            }).find("lora.r"),
            std::string::npos);
  const FinetuneConfig c =
      FinetuneConfig::from_json({{"lora", {{"targets", "c_attn,c_fc"}}}}, "classify");
  EXPECT_EQ(c.lora.targets, (std::vector<std::string>{"c_attn", "c_fc"}));
  // to_json -> from_saved gives the same settings
  FinetuneConfig d = instruct_config("x.json");
  EXPECT_EQ(FinetuneConfig::from_saved(d.to_json(), "t").to_json(), d.to_json());
}

// As train.min_lr: a cosine floor above lr is refused; negative still means constant.
TEST(FinetuneConfig, MinLrMustNotExceedLr) {
  const auto settings = [](double min_lr) {
    return nlohmann::json{{"finetune", {{"lr", 1e-3}, {"min_lr", min_lr}}}};
  };
  EXPECT_NE(input_error([&] {
              FinetuneConfig::from_json(settings(1), "classify");
            }).find("finetune.min_lr must be in [0, finetune.lr]"),
            std::string::npos);
  EXPECT_EQ(FinetuneConfig::from_json(settings(1e-3), "classify").finetune.min_lr, 1e-3);
  EXPECT_EQ(FinetuneConfig::from_json(settings(-1), "instruct").finetune.min_lr, -1);
}

// label_column / text_column are names or 0-based indices (docs/finetune-data.md): a JSON
// integer is read as the index its digits name.
TEST(FinetuneConfig, ColumnsMayBeIntegerIndices) {
  const FinetuneConfig c = FinetuneConfig::from_json(
      {{"finetune", {{"label_column", 1}, {"text_column", 0}}}}, "classify");
  EXPECT_EQ(c.finetune.label_column, "1");
  EXPECT_EQ(c.finetune.text_column, "0");
  EXPECT_EQ(FinetuneConfig::from_saved(c.to_json(), "t").finetune.label_column, "1");
  EXPECT_NE(input_error([] {
              FinetuneConfig::from_json({{"finetune", {{"text_column", -1}}}}, "classify");
            }).find("finetune.text_column"),
            std::string::npos);
  EXPECT_NE(input_error([] {
              FinetuneConfig::from_json({{"finetune", {{"label_column", 1.5}}}}, "classify");
            }).find("finetune.label_column"),
            std::string::npos);
}

TEST(FinetuneInstruct, WritesTheRunFolderAndLearns) {
  const std::string dir = testing::temp_path("instruct-run");
  const std::string data = testing::write_instruction_file(dir + "-data.json", 24);
  ASSERT_EQ(finetune_instruct(instruct_config(data), {dir, false, true, -1}), 0);
  for (const char* f : {"config.json", "tokenizer.json", "log.jsonl", "last.safetensors",
                        "report.html", "results.json", "test-responses.json"})
    EXPECT_TRUE(file_exists(dir + "/" + f)) << f;
  // 24 entries: 20 train / 2 test / 2 val; batch 2 -> 10 steps per epoch, 2 epochs.
  const auto lines = log_lines(dir);
  double first_eval = -1, last_eval = -1;
  int64_t last_step = 0;
  for (const auto& l : lines) {
    last_step = std::max(last_step, l["step"].get<int64_t>());
    if (l.contains("train_loss")) {
      if (first_eval < 0) first_eval = l["train_loss"];
      last_eval = l["train_loss"];
    }
  }
  EXPECT_EQ(last_step, 20);
  EXPECT_LT(last_eval, first_eval);
  const nlohmann::json responses = nlohmann::json::parse(read_file(dir + "/test-responses.json"));
  ASSERT_EQ(responses.size(), 2u);
  const nlohmann::json entries = nlohmann::json::parse(read_file(data));
  EXPECT_EQ(responses[0]["instruction"], entries[20]["instruction"]);  // test = entries 20, 21
  EXPECT_TRUE(responses[0]["model_response"].is_string());
  // The saved run reads back and responds as the saved responses say.
  InstructRun run = load_instruct_run(dir, "test");
  EXPECT_EQ(run.step, 20);
  InstructionEntry e;
  e.instruction = entries[20]["instruction"];
  e.input = entries[20].value("input", "");
  EXPECT_EQ(respond(*run.model, *run.tokenizer, e, 6), responses[0]["model_response"]);
  const nlohmann::json results = nlohmann::json::parse(read_file(dir + "/results.json"));
  EXPECT_GT(results["test_loss"].get<double>(), 0);
  fs::remove_all(dir);
  fs::remove(data);
}

TEST(FinetuneInstruct, ResumeIsExact) {
  const std::string whole = testing::temp_path("instruct-whole"),
                    split = testing::temp_path("instruct-split");
  const std::string data = testing::write_instruction_file(whole + "-data.json", 14);
  FinetuneConfig c = instruct_config(data);
  c.finetune.dropout = 0.1;  // the dropout generator must be restored too
  c.finetune.write_responses = false;
  ASSERT_EQ(finetune_instruct(c, {whole, false, true, -1}), 0);
  ASSERT_EQ(finetune_instruct(c, {split, false, true, 7}), 0);  // stops mid-epoch 2 (6 per epoch)
  EXPECT_FALSE(file_exists(split + "/results.json"));
  ASSERT_EQ(finetune_instruct(c, {split, true, true, -1}), 0);
  const SafeTensors a = load_safetensors(whole + "/last.safetensors");
  const SafeTensors b = load_safetensors(split + "/last.safetensors");
  for (const auto& name : a.names) {
    const Tensor ta = a.get(name).to_float(), tb = b.get(name).to_float();
    ASSERT_EQ(ta.numel(), tb.numel()) << name;
    for (int64_t i = 0; i < ta.numel(); ++i) ASSERT_EQ(ta.data()[i], tb.data()[i]) << name;
  }
  const auto la = log_lines(whole), lb = log_lines(split);
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) {
    EXPECT_EQ(la[i].value("loss", -1.0), lb[i].value("loss", -1.0)) << i;
    EXPECT_EQ(la[i].value("val_loss", -1.0), lb[i].value("val_loss", -1.0)) << i;
  }
  for (const auto& d : {whole, split}) fs::remove_all(d);
  fs::remove(data);
}

// True if the checkpoint's weight `name` equals `value` bit for bit.
bool unchanged(const SafeTensors& file, const std::string& name, const Tensor& value) {
  const Tensor saved = file.get("model." + name).to_float();
  if (saved.numel() != value.numel()) return false;
  for (int64_t i = 0; i < saved.numel(); ++i)
    if (saved.data()[i] != value.data()[i]) return false;
  return true;
}

TEST(FinetuneInstruct, TrainsOnlyWhatTrainableNames) {
  const std::string dir = testing::temp_path("instruct-trainable");
  const std::string data = testing::write_instruction_file(dir + "-data.json", 14);
  FinetuneConfig c = instruct_config(data);
  c.model["n_layer"] = 2;
  c.finetune.write_responses = false;
  // The weights every run starts from (the preset, seeded as the trainer seeds it).
  const BaseModel base = load_base_model(c.base, c.model, c.finetune.dropout, c.finetune.seed);
  const ParameterList start = base.model->parameters();

  c.finetune.trainable = "last:1";  // block 1 and ln_f train; the tied embedding does not
  ASSERT_EQ(finetune_instruct(c, {dir, false, true, -1}), 0);
  {
    const SafeTensors saved = load_safetensors(dir + "/last.safetensors");
    for (const auto& p : start) {
      const bool trains = p.name.rfind("h.1.", 0) == 0 || p.name.rfind("ln_f.", 0) == 0;
      EXPECT_EQ(unchanged(saved, p.name, p.param->value), !trains) << p.name;
    }
    const nlohmann::json results = nlohmann::json::parse(read_file(dir + "/results.json"));
    EXPECT_EQ(results["trainable"], "last:1");
  }
  fs::remove_all(dir);

  c.finetune.trainable = "lora";  // only the adapters train; they are saved for PEFT
  c.lora.r = 2;
  c.lora.targets = {"c_attn", "c_fc"};
  c.finetune.write_responses = true;
  ASSERT_EQ(finetune_instruct(c, {dir, false, true, -1}), 0);
  {
    const SafeTensors saved = load_safetensors(dir + "/last.safetensors");
    for (const auto& p : start) EXPECT_TRUE(unchanged(saved, p.name, p.param->value)) << p.name;
    const Tensor b = saved.get("model.transformer.h.1.mlp.c_fc.lora_B.weight").to_float();
    double norm = 0;
    for (int64_t i = 0; i < b.numel(); ++i) norm += std::abs(b.data()[i]);
    EXPECT_GT(norm, 0);  // B starts at zeros and learned something
    const nlohmann::json results = nlohmann::json::parse(read_file(dir + "/results.json"));
    EXPECT_EQ(results["trainable_parameters"].get<int64_t>(),
              lora_parameter_count(base.model->config(), 0, c.lora));
    const nlohmann::json adapter =
        nlohmann::json::parse(read_file(dir + "/adapter/adapter_config.json"));
    EXPECT_EQ(adapter["task_type"], "CAUSAL_LM");
    EXPECT_EQ(adapter["r"], 2);
  }
  // The saved run reads back with its adapters and answers as during training.
  InstructRun run = load_instruct_run(dir, "test");
  ASSERT_NE(run.lora, nullptr);
  const nlohmann::json responses = nlohmann::json::parse(read_file(dir + "/test-responses.json"));
  InstructionEntry e;
  e.instruction = responses[0]["instruction"];
  e.input = responses[0].value("input", "");
  EXPECT_EQ(respond(*run.model, *run.tokenizer, e, 6), responses[0]["model_response"]);
  fs::remove_all(dir);

  // What a tied LM head cannot take: training it alone, or an adapter on it.
  c.finetune.trainable = "head";
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("tied"),
            std::string::npos);
  c.finetune.trainable = "lora";
  c.lora.targets = {"head"};
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("head"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
  fs::remove(data);
}

// The one loop's guard holds for fine-tuning too: weights blown up by an lr near float's
// limit stop the run (exit 1), and no checkpoint it leaves holds a non-finite number.
TEST(FinetuneInstruct, ANanStopsTheRunWithoutWritingACheckpoint) {
  const std::string dir = testing::temp_path("instruct-nan");
  const std::string data = testing::write_instruction_file(dir + "-data.json", 40);
  FinetuneConfig c = instruct_config(data);
  c.finetune.lr = 3e38;
  c.finetune.weight_decay = 0;
  c.finetune.checkpoint_interval = 1;
  c.finetune.write_responses = false;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(finetune_instruct(c, {dir, false, true, -1}), 1);
  const std::string message = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(message.find("is not finite") != std::string::npos ||
              message.find("the loss became") != std::string::npos)
      << message;
  EXPECT_FALSE(file_exists(dir + "/results.json"));
  if (file_exists(dir + "/last.safetensors")) {
    const SafeTensors f = load_safetensors(dir + "/last.safetensors");
    for (const auto& name : f.names) {
      const Tensor t = f.get(name).to_float();
      for (int64_t i = 0; i < t.numel(); ++i) ASSERT_TRUE(std::isfinite(t[i])) << name;
    }
  }
  fs::remove_all(dir);
  fs::remove(data);
}

// A batch whose every target is masked or cut has no loss: it is left out of the mean
// (counted as 0 it pulled the loss down), and a set without any target has no number.
TEST(InstructionLoss, BatchesWithoutTargetsAreLeftOut) {
  GPTConfig gc;
  gc.vocab_size = 13, gc.block_size = 8, gc.n_layer = 1, gc.n_head = 2, gc.d_model = 8;
  GPT model(gc);
  Rng rng(5);
  model.init(rng);
  InstructionCollateOptions collate;
  collate.pad_id = 12, collate.mask_prompt = true, collate.allowed_max_length = 4;
  InstructionSet kept, masked, both;
  kept.entries.resize(1), masked.entries.resize(1), both.entries.resize(2);
  kept.encoded = {{{1, 2, 3, 4}, 2}};           // targets 3, 4, end after the prompt
  masked.encoded = {{{5, 6, 7, 8, 9, 10}, 6}};  // the cut keeps prompt targets only
  both.encoded = {kept.encoded[0], masked.encoded[0]};
  const double alone = instruction_loss(model, kept, collate, 1, 0);
  EXPECT_GT(alone, 0);
  EXPECT_DOUBLE_EQ(instruction_loss(model, both, collate, 1, 0), alone);
  EXPECT_TRUE(std::isnan(instruction_loss(model, masked, collate, 1, 0)));
  EXPECT_FALSE(supervised_instruction_loss(model, InstructionSet{}, collate, 1, 0));
  EXPECT_TRUE(has_supervised_target(both, collate));
  EXPECT_FALSE(has_supervised_target(masked, collate));
}

// Training data whose every response is masked or cut is refused before training (exit 2,
// nothing written); a split without targets is reported without a number.
TEST(FinetuneInstruct, DataWithoutSupervisedTargets) {
  const std::string dir = testing::temp_path("instruct-no-targets");
  const std::string data = testing::write_instruction_file(dir + "-data.json", 14);
  FinetuneConfig c = instruct_config(data);
  c.finetune.max_steps = 1;
  c.finetune.write_responses = false;
  c.finetune.mask_prompt = true;
  c.finetune.allowed_max_length = 10;  // shorter than the prompt template
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("finetune.allowed_max_length"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir));

  // Short training entries keep their responses; the val entries' long inputs are cut.
  nlohmann::json entries = nlohmann::json::parse(read_file(data));
  std::string long_input;
  for (int i = 0; i < 40; ++i) long_input += "word ";
  for (size_t i = 12; i < entries.size(); ++i) entries[i]["input"] = long_input;
  write_file_atomic(data, entries.dump(1));
  c.finetune.allowed_max_length = 64;
  ASSERT_EQ(finetune_instruct(c, {dir, false, true, -1}), 0);
  const nlohmann::json results = nlohmann::json::parse(read_file(dir + "/results.json"));
  EXPECT_TRUE(results.contains("train_loss"));
  EXPECT_FALSE(results.contains("val_loss"));
  EXPECT_NE(read_file(dir + "/report.html").find("(no supervised targets)"), std::string::npos);
  fs::remove_all(dir);
  fs::remove(data);
}

TEST(FinetuneInstruct, RefusesBadOutFoldersAndDataWithoutWriting) {
  const std::string dir = testing::temp_path("instruct-bad");
  const std::string data = testing::write_instruction_file(dir + "-data.json", 14);
  FinetuneConfig c = instruct_config(data);
  c.finetune.max_steps = 1;
  c.finetune.write_responses = false;
  // --resume with nothing to resume
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, true, true, -1});
            }).find("--resume"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
  // a folder that is not a finetune run is left alone
  fs::create_directories(dir);
  write_file_atomic(dir + "/notes.txt", "mine");
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("not a tinylm finetune run"),
            std::string::npos);
  EXPECT_EQ(read_file(dir + "/notes.txt"), "mine");
  fs::remove_all(dir);
  // a finished run is not overwritten; a classify run is not resumed as instruct
  ASSERT_EQ(finetune_instruct(c, {dir, false, true, -1}), 0);
  const std::string before = read_file(dir + "/last.safetensors");
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("already holds a checkpoint"),
            std::string::npos);
  EXPECT_EQ(read_file(dir + "/last.safetensors"), before);
  FinetuneConfig other = c;
  other.finetune.lr = 1e-4;
  EXPECT_NE(input_error([&] {
              finetune_instruct(other, {dir, true, true, -1});
            }).find("finetune.lr"),
            std::string::npos);
  nlohmann::json saved = nlohmann::json::parse(read_file(dir + "/config.json"));
  saved["task"] = "classify";
  write_file_atomic(dir + "/config.json", saved.dump());
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, true, true, -1});
            }).find("'classify'"),
            std::string::npos);
  fs::remove_all(dir);
  // an entry without output: nothing written
  write_file_atomic(data, R"([{"instruction": "a", "output": "b"}, {"instruction": "c"}])");
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("output"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
  fs::remove(data);
}

TEST(FinetuneInstruct, RefusesABaseWhoseShapesDoNotMatch) {
  const std::string dir = testing::temp_path("instruct-base");
  const std::string data = testing::write_instruction_file(dir + "-data.json", 14);
  // gpt2-micro has 512 token embeddings: the GPT-2 tokenizer's ids do not fit.
  FinetuneConfig c = FinetuneConfig::from_json(
      {{"finetune", {{"batch_size", 2}, {"max_steps", 1}, {"threads", 1}}}}, "instruct");
  c.base = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-micro";
  c.data = data;
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("512 token embeddings"),
            std::string::npos);
  // an HF folder whose tensors do not match its config.json
  const std::string hf = dir + "-hf";
  fs::create_directories(hf);
  const std::string tiny = std::string(tinylm::source_dir()) + "/tests/fixtures/gpt2-tiny";
  fs::create_symlink(tiny + "/model.safetensors", hf + "/model.safetensors");
  nlohmann::json cfg = nlohmann::json::parse(read_file(tiny + "/config.json"));
  cfg["n_embd"] = 64;
  write_file_atomic(hf + "/config.json", cfg.dump());
  c.base = hf;
  EXPECT_NE(input_error([&] {
              finetune_instruct(c, {dir, false, true, -1});
            }).find("shape"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir));
  fs::remove_all(hf);
  fs::remove(data);
}

}  // namespace
}  // namespace tinylm::finetune
