// Fine-tuning input held to training's promises:
// sizes and floats checked up front, every setting validated whichever task uses it,
// empty splits said so, a text that mean pooling cannot average refused by file and
// line; each bad input exits 2 before any file is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "io/safetensors.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

std::string write_settings(const std::string& dir, const nlohmann::json& settings,
                           const std::string& name = "settings.json") {
  const std::string path = dir + "/" + name;
  write_file_atomic(path, settings.dump(2));
  return path;
}

// Each command exits 2 naming `field`, and the run folder is not created.
void expect_refused(const std::string& command, const std::string& out, const std::string& field) {
  expect_exit(2, command + " --out " + out, field);
  EXPECT_FALSE(fs::exists(out)) << command;
}

TEST(FinetuneChecks, SizesFloatsAndTheOtherTasksSettingsAreCheckedUpFront) {
  const std::string tmp = fresh_dir("ft-checks");
  const std::string spam = write_spam_file(tmp + "/spam.tsv", 30);
  const std::string instr = write_instruction_file(tmp + "/data.json", 14);
  const std::string classify = "finetune --task classify --base gpt2-124m --quiet --data " + spam +
                               " --config " + write_settings(tmp, tiny_classify_settings());
  const std::string instruct = "finetune --task instruct --base gpt2-124m --quiet --data " + instr +
                               " --config " +
                               write_settings(tmp, tiny_instruct_settings(), "instruct.json");
  const std::string out = tmp + "/run";
  // A model that cannot fit, before any allocation.
  expect_refused(classify + " --set model.d_model=65536", out, "memory");
  expect_refused(instruct + " --set model.n_layer=1000000000", out, "memory");
  // Floats beyond float's range.
  for (const char* s :
       {"finetune.lr=1e39", "finetune.weight_decay=1e39", "finetune.eps=1e-50", "lora.alpha=1e39"})
    expect_refused(instruct + " --set " + s, out,
                   std::string(s).substr(0, std::string(s).find('=')));
  // The other task's settings are validated too.
  expect_refused(classify + " --set finetune.test_fraction=-1", out, "finetune.test_fraction");
  expect_refused(instruct + " --set finetune.format=xml", out, "finetune.format");
  expect_refused(instruct + " --set 'finetune.labels=[\"a\",\"a\"]'", out, "finetune.labels");
  expect_refused(instruct + " --set finetune.pooling=max", out, "pooling");
  fs::remove_all(tmp);
}

// Items 7 and 8: every count has an upper bound, checked up front; step counts never
// overflow.
TEST(FinetuneChecks, CountsHaveUpperBoundsAndStepCountsDoNotOverflow) {
  const std::string tmp = fresh_dir("ft-checks-counts");
  const std::string instr = write_instruction_file(tmp + "/data.json", 14);
  const std::string instruct = "finetune --task instruct --base gpt2-124m --quiet --data " + instr +
                               " --config " + write_settings(tmp, tiny_instruct_settings());
  const std::string out = tmp + "/run";
  expect_refused(instruct + " --set finetune.max_new_tokens=100000000", out,
                 "finetune.max_new_tokens");
  expect_refused(instruct + " --set finetune.epochs=838488366986797801 --set finetune.max_steps=-1",
                 out, "finetune.epochs");
  expect_refused(instruct + " --set finetune.eval_batches=9223372036854775807", out,
                 "finetune.eval_batches");
  write_file_atomic(tmp + "/corpus.txt", "hello world, hello tinylm. hello again and again. ");
  const std::string cfg = tmp + "/train.json";
  write_file_atomic(cfg, R"({"model": {"n_layer": 1, "n_head": 2, "d_model": 16, "block_size": 8},
    "data": {"path": ")" + tmp +
                             R"(/corpus.txt"}, "train": {"max_steps": 2, "batch_size": 2}})");
  const std::string train = "train --quiet --config " + cfg;
  for (const char* s : {"train.grad_accum=1000000000", "train.grad_accum=9223372036854775807",
                        "train.eval_iters=1000000000", "train.max_steps=9223372036854775807"})
    expect_refused(train + " --set " + s, out, std::string(s).substr(0, std::string(s).find('=')));
  expect_refused(train + " --set data.windows=sliding --set data.epochs=838488366986797801", out,
                 "data.epochs");
  fs::remove_all(tmp);
}

// A temperature that is 0 as a float is refused before step 1.
TEST(FinetuneChecks, ATemperatureThatUnderflowsIsRefusedBeforeTraining) {
  const std::string tmp = fresh_dir("ft-checks-temp");
  write_file_atomic(tmp + "/corpus.txt", "hello world, hello tinylm. ");
  const std::string cfg = tmp + "/train.json";
  write_file_atomic(cfg, R"({"model": {"n_layer": 1, "n_head": 2, "d_model": 16, "block_size": 8},
    "data": {"path": ")" + tmp +
                             R"(/corpus.txt"}, "train": {"max_steps": 2, "batch_size": 2}})");
  for (const char* s : {"sample.temperature=1e-50", "sample.top_p=1e-50"})
    expect_refused("train --quiet --config " + cfg + " --set " + s, tmp + "/run",
                   std::string(s).substr(0, std::string(s).find('=')));
  fs::remove_all(tmp);
}

// With no validation split, no val number is printed or logged.
TEST(FinetuneChecks, AnEmptySplitIsSaidSoAndLogsNoNumber) {
  const std::string tmp = fresh_dir("ft-checks-empty");
  const std::string spam = write_spam_file(tmp + "/spam.tsv", 30);
  const std::string run = tmp + "/run";
  const RunResult r = run_tinylm(
      "finetune --task classify --base gpt2-124m --data " + spam + " --out " + run + " --config " +
      write_settings(tmp, tiny_classify_settings()) + " --set finetune.val_fraction=0");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("no validation split"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("val loss 0.0000"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(run + "/log.jsonl").find("val_"), std::string::npos);
  const RunResult eval = run_tinylm("eval --run " + run);
  EXPECT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("no validation split"), std::string::npos) << eval.output;
  EXPECT_EQ(eval.output.find("(0 / 0)"), std::string::npos) << eval.output;
  fs::remove_all(tmp);
}

// A text that is only <|endoftext|> under mean pooling, named by file and line.
TEST(FinetuneChecks, AnAllPaddingTextUnderMeanPoolingIsRefusedByLine) {
  const std::string tmp = fresh_dir("ft-checks-pad");
  const std::string spam = write_spam_file(tmp + "/spam.tsv", 30);
  write_file_atomic(spam, read_file(spam) + "ham\t<|endoftext|>\n");
  expect_refused("finetune --task classify --base gpt2-124m --quiet --data " + spam + " --config " +
                     write_settings(tmp, tiny_classify_settings()) +
                     " --set finetune.pooling=mean --set finetune.train_fraction=0.5",
                 tmp + "/run", spam + ":31");
  fs::remove_all(tmp);
}

// A fine-tuning checkpoint's metadata is read through the checked accessor:
// a wrong type, a negative length, a pad id past int32 or a model too large for memory
// exits 2 naming the checkpoint and the field, in every verb that opens the run.
TEST(FinetuneChecks, CheckpointMetadataIsCheckedAndNamed) {
  const std::string tmp = fresh_dir("ft-checks-meta");
  const std::string spam = write_spam_file(tmp + "/spam.tsv", 30);
  const std::string run = tmp + "/run";
  ASSERT_EQ(
      run_tinylm("finetune --task classify --base gpt2-124m --quiet --data " + spam + " --out " +
                 run + " --config " + write_settings(tmp, tiny_classify_settings()) +
                 " --set finetune.max_steps=1")
          .code,
      0);
  const std::string path = run + "/last.safetensors";
  const SafeTensors f = load_safetensors(path);
  std::vector<std::pair<std::string, SafeTensorEntry>> entries;
  for (const auto& name : f.names) entries.emplace_back(name, f.get(name));
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"labels", "ham"}, {"max_length", -5}, {"pad_id", 1000000000000}, {"labels", {"a"}}};
  for (const auto& [field, value] : cases) {
    nlohmann::json config = nlohmann::json::parse(f.metadata.at("tinylm.config"));
    config["run"][field] = value;
    std::map<std::string, std::string> meta = f.metadata;
    meta["tinylm.config"] = config.dump();
    save_safetensor_entries(path, entries, meta);
    for (const std::string verb : {"classify --text hello --run ", "eval --run "})
      expect_exit(2, verb + run, path);
  }
  fs::remove_all(tmp);
}

// --device cuda: classification and LoRA fine-tuning say they run on the CPU (whether or
// not a GPU is here), before anything is written.
TEST(FinetuneChecks, WhatRunsOnTheCpuOnlySaysSo) {
  const std::string tmp = fresh_dir("ft-device");
  const std::string spam = write_spam_file(tmp + "/spam.tsv", 30);
  const std::string instr = write_instruction_file(tmp + "/data.json", 14);
  expect_refused("finetune --task classify --base gpt2-124m --quiet --device cuda --data " + spam +
                     " --config " + write_settings(tmp, tiny_classify_settings()),
                 tmp + "/classify", "classification fine-tuning runs on the CPU");
  expect_refused("finetune --task instruct --base gpt2-124m --quiet --device cuda --data " + instr +
                     " --config " + write_settings(tmp, tiny_instruct_settings(), "i.json") +
                     " --set lora.r=4",
                 tmp + "/lora", "LoRA fine-tuning runs on the CPU");
  expect_refused("finetune --task instruct --base gpt2-124m --quiet --device gpu --data " + instr,
                 tmp + "/bad", "--device");
}

}  // namespace
}  // namespace tinylm::testing
