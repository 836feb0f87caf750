// Every verb that reads a model opens it through one resolver (open/open_model.h), so
// each takes every source that makes sense for it: `sample` a Hugging Face folder,
// `generate` a run, `info` and `eval` any model, and the wrong kind is exit 2 naming
// the verb to use.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

TEST(OpenModelCli, SampleAndGenerateReadAHuggingFaceFolderAlike) {
  const std::string prompt = " --prompt 'Hello, I am a tiny language model,' --greedy";
  const RunResult sample =
      run_tinylm("sample --model tests/fixtures/gpt2-tiny --max-new-tokens 12" + prompt);
  ASSERT_EQ(sample.code, 0) << sample.output;
  const RunResult generate =
      run_tinylm("generate --model tests/fixtures/gpt2-tiny --max-new-tokens 12" + prompt);
  ASSERT_EQ(generate.code, 0) << generate.output;
  EXPECT_EQ(sample.output, generate.output);
  EXPECT_EQ(sample.output.rfind("Hello, I am a tiny language model,", 0), 0u) << sample.output;
}

TEST(OpenModelCli, ARunOpensInEveryVerbThatReadsAModel) {
  const std::string dir = fresh_dir("open-run");
  const std::string run = dir + "/add";
  const RunResult t = run_tinylm("train --quiet --config configs/addition.json --out " + run +
                                 " --set train.max_steps=4 --set train.batch_size=8"
                                 " --set train.eval_interval=2 --set train.eval_iters=1");
  ASSERT_EQ(t.code, 0) << t.output;
  for (const std::string& args :
       {"generate --model " + run + " --prompt 123+456= --max-new-tokens 4 --greedy",
        "sample --model " + run + " --prompt 123+456= --max-new-tokens 4 --greedy",
        "eval --model " + run + " --n 20", "info --model " + run,
        "info --run " + run + "/last.safetensors",
        "trace --model " + run + "/last.safetensors --text 123+456="}) {
    const RunResult r = run_tinylm(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.output;
  }
  expect_exit(2, "classify --run " + run + " --text 1+1=", "tinylm classify needs a classifier");
  // sample's default prompt, nanoGPT's "\n", is not in the addition vocabulary
  expect_exit(2, "sample --model " + run, "no --prompt given");
  expect_exit(2, "eval --model tests/fixtures/gpt2-tiny",
              "has no validation split of its own: pass --data");
  fs::remove_all(dir);
}

TEST(OpenModelCli, TheWrongKindOfModelNamesTheVerbToUse) {
  expect_exit(2, "sample --model tests/fixtures/gpt2-micro-classify --prompt hi",
              "tinylm sample needs a language model (use tinylm classify");
  expect_exit(2, "respond --model tests/fixtures/gpt2-micro-classify --instruction hi",
              "needs a language model");
  expect_exit(2, "generate --model no-such-model --prompt hi", "no-such-model");
  // a classifier whose vocabulary the GPT-2 tokenizer does not fit: a clear message
  expect_exit(2, "classify --model tests/fixtures/gpt2-micro-classify --text 'hello there'",
              "outside the model's vocabulary");
  // the shape of a classifier folder, from its config alone
  const RunResult info = run_tinylm("info --model tests/fixtures/gpt2-micro-classify");
  EXPECT_EQ(info.code, 0) << info.output;
}

TEST(OpenModelCli, RespondAnswersWithAnyLanguageModel) {
  const RunResult r = run_tinylm(
      "respond --model tests/fixtures/gpt2-tiny --instruction 'Name a color.' "
      "--max-new-tokens 5");
  EXPECT_EQ(r.code, 0) << r.output;
  expect_exit(2,
              "respond --model tests/fixtures/gpt2-tiny --instruction hi "
              "--max-new-tokens 1000001",
              "--max-new-tokens must be in [0, 1000000]");
  expect_exit(2, "respond --model tests/fixtures/gpt2-tiny --instruction hi --max-new-tokens -5",
              "--max-new-tokens must be in [0, 1000000]");
}

// A Q8_0 file answers with its 8-bit weights, as generate, sample and serve decode it (the
// float32 weights read back from it choose other tokens on this fixture).
TEST(OpenModelCli, RespondDecodesAGgufFileAtItsOwnPrecision) {
  const std::string dir = fresh_dir("respond-q8");
  ASSERT_EQ(run_tinylm("export --model tests/fixtures/gpt2-tiny --format gguf --dtype q8_0 --out " +
                       dir + "/tiny.gguf")
                .code,
            0);
  const std::string respond =
      "respond --model " + dir + "/tiny.gguf --instruction 'Name a color.' --max-new-tokens 40";
  const RunResult own = run_tinylm(respond), q8 = run_tinylm(respond + " --q8");
  ASSERT_EQ(own.code, 0) << own.output;
  ASSERT_EQ(q8.code, 0) << q8.output;
  EXPECT_EQ(own.output, q8.output);
  // sample --no-cache runs no decode steps: a decode weights flag with it is refused
  expect_exit(2, "sample --model " + dir + "/tiny.gguf --prompt Hi --no-cache --q8",
              "--no-cache recomputes every step with the float32 weights");
  fs::remove_all(dir);
}

// A classify fine-tuning run: the look-inside verbs work on its body, its exported
// Hugging Face folder classifies as the run does (last_non_pad pooling: padding changes
// nothing), and `report` says plainly which runs it rewrites.
TEST(OpenModelCli, AClassifyRunAndItsHuggingFaceFolder) {
  const std::string tmp = fresh_dir("open-classify");
  const std::string run = tmp + "/run";
  nlohmann::json settings = tiny_classify_settings();
  settings["finetune"]["pooling"] = "last_non_pad";
  settings["finetune"]["epochs"] = 1;
  write_file_atomic(tmp + "/settings.json", settings.dump());
  const RunResult r = run_tinylm("finetune --task classify --base gpt2-124m --quiet --data " +
                                 write_spam_file(tmp + "/spam.tsv", 30) + " --out " + run +
                                 " --config " + tmp + "/settings.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string texts = " --text 'claim your free prize now' --text 'see you at lunch'";
  const RunResult from_run = run_tinylm("classify --run " + run + texts);
  ASSERT_EQ(from_run.code, 0) << from_run.output;
  const RunResult from_hf = run_tinylm("classify --model " + run + "/hf" + texts);
  ASSERT_EQ(from_hf.code, 0) << from_hf.output;
  EXPECT_EQ(from_hf.output, from_run.output);
  for (const std::string& args :
       {"trace --run " + run + " --text hello", "info --run " + run,
        "attention --run " + run + " --text hello --out " + tmp + "/att.svg",
        "embeddings --run " + run + " --out " + tmp + "/emb.svg", "report --run " + run}) {
    const RunResult v = run_tinylm(args);
    EXPECT_EQ(v.code, 0) << args << "\n" << v.output;
    EXPECT_EQ(v.output.find("vocab_size 0"), std::string::npos) << v.output;
  }
  // report rewrites the fine-tuning run's own page.
  EXPECT_NE(read_file(run + "/report.html").find("accuracy before"), std::string::npos);
  expect_exit(2, "sample --run " + run, "tinylm sample needs a language model");
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace tinylm::testing
