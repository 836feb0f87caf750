// The inspection verbs' flags and edge cases: `info` (device prediction, flags checked
// before anything is printed, run folders without a checkpoint, LoRA runs), `demo`
// (bounds, an empty --out) and `trace` (readable minimum values).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// A short step is memory-bound: the prediction is the roofline floor, not 40% MFU.
TEST(InspectCli, InfoDevicePredictionNeverBeatsTheFloor) {
  const RunResult r = run_tinylm("info --preset gpt2-124m --seq 8 --device h100");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "the roofline floor governs")) << r.output;
}

// A bad --device, --precision or --utilization prints its message and nothing else.
TEST(InspectCli, InfoChecksDeviceFlagsBeforePrinting) {
  for (const std::string flags :
       {"--device tpu", "--device h100 --utilization 2", "--device h100 --precision fp16"}) {
    const RunResult r = run_tinylm("info --preset gpt2-124m " + flags);
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "parameters")) << flags << "\n" << r.output;
  }
}

// Flags that would be ignored are refused, named.
TEST(InspectCli, InfoRefusesFlagsThatDoNotApply) {
  expect_exit(2, "info --preset gpt2-124m --precision bf16",
              "--precision applies only with --device");
  expect_exit(2, "info --preset gpt2-124m --utilization 0.5",
              "--utilization applies only with --device");
  expect_exit(2, "info --embedding-table 10 --json", "leave out --json");
  expect_exit(2, "info --embedding-table 10 --preset gpt2-124m", "leave out --preset");
  expect_exit(2, "info --preset gpt2-124m --dims 64", "--dims applies only with --embedding-table");
}

// CLI11's PositiveNumber printed its range up to 1.79e308 in full; the checks now say
// what the least value is.
TEST(InspectCli, MinimumValuesAreReadable) {
  const std::string model = "--model tests/fixtures/gpt2-tiny --text 1";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"trace " + model + " --dims 0", "--dims: must be at least 1, got 0"},
           {"trace " + model + " --answer-tokens 0", "--answer-tokens: must be at least 1, got 0"},
           {"trace " + model + " --answer-block -1", "--answer-block: must be at least 0, got -1"},
           {"info --embedding-table 0", "--embedding-table: must be at least 1, got 0"},
           {"info --embedding-table 8 --dims 0", "--dims: must be at least 1, got 0"}}) {
    const RunResult r = run_tinylm(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, message)) << args << "\n" << r.output;
    EXPECT_FALSE(contains(r.output, "179769")) << args << "\n" << r.output;
  }
}

// docs/inspect.md: --run reads RUN_DIR/config.json and loads no weights, so a run
// folder whose first checkpoint is not written yet is read.
TEST(InspectCli, InfoReadsARunFolderWithoutACheckpoint) {
  const std::string dir = fresh_dir("info-no-checkpoint");
  std::ofstream(dir + "/.tinylm-run") << "";
  std::ofstream(dir + "/config.json")
      << R"({"model": {"vocab_size": 13, "block_size": 16, "n_layer": 1, "n_head": 2,
                       "d_model": 8}, "train": {"batch_size": 2}})";
  const RunResult r = run_tinylm("info --run " + dir);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "1 layers, 2 heads")) << r.output;
}

// A LoRA run: frozen weights have no gradient and no AdamW state; the adapters have
// both (docs/finetune.md). r 16 on c_attn, c_proj, c_fc of gpt2-tiny (2 layers, C 32,
// d_ff 128): per layer 16 x ((32 + 96) + (32 + 32) + (32 + 128) + (128 + 32)) = 8,192.
TEST(InspectCli, InfoOfALoraRunCountsTheAdapters) {
  const std::string dir = fresh_dir("info-lora");
  const RunResult t = run_tinylm(
      "train --quiet --config configs/verdict-lora.json --set "
      "train.init_from=tests/fixtures/gpt2-tiny"
      " --set train.max_steps=2 --set train.eval_interval=2 --set train.eval_iters=1"
      " --set train.checkpoint_interval=2 --set train.threads=1 --set sample.max_new_tokens=0"
      " --out " +
      dir + "/lora");
  ASSERT_EQ(t.code, 0) << t.output;
  const RunResult r = run_tinylm("info --run " + dir + "/lora --batch 8 --seq 64");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "frozen parameters (no gradient, no AdamW state)")) << r.output;
  EXPECT_TRUE(contains(r.output, "adapter gradients")) << r.output;
  EXPECT_TRUE(contains(r.output, "AdamW moments m, v (adapters only)")) << r.output;
  EXPECT_FALSE(contains(r.output, "\n    gradients ")) << r.output;
  EXPECT_TRUE(contains(r.output, "16,384")) << r.output;  // the adapters, both layers
  // The run's report.html shows the same tables.
  const std::string page = read_file(dir + "/lora/report.html");
  EXPECT_TRUE(contains(page, "frozen parameters (no gradient, no AdamW state)"));
  EXPECT_TRUE(contains(page, "adapter gradients"));
}

TEST(InspectCli, DemoResidualBounds) {
  expect_exit(2, "demo residual --out ''", "--out");
  expect_exit(2, "demo residual --dim 100000000", "--dim must be at most 1024");
  expect_exit(2, "demo residual --layers 100000000", "--layers must be at most 1000");
  expect_exit(2, "demo residual --layers 1000 --dim 1024", "must be at most 33554432");
  // Deep stacks overflow float32 (the gradient with residuals): said, never -nan.
  const RunResult r = run_tinylm("demo residual --layers 1000");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "nan")) << r.output.substr(0, 2000);
  EXPECT_TRUE(contains(r.output, "overflow"));
}

// Flags the chosen output would ignore are refused, naming them.
TEST(InspectCli, FlagsThatWouldBeIgnoredAreRefused) {
  expect_exit(2, "demo sqrt-dk --layers 3", "--layers and --dim apply only to the residual demo");
  expect_exit(2, "attention --example --text hi", "leave out --run, --model and --text");
  expect_exit(2, "embeddings --model tests/fixtures/gpt2-tiny --tokens '' --out x.svg",
              "--tokens is empty");
}

// A model without residual connections says so in the text header, as --json does.
TEST(InspectCli, InfoSaysWhenAModelHasNoResidualConnections) {
  const std::string dir = fresh_dir("info-residual");
  const std::string cfg = dir + "/m.json";
  std::ofstream(cfg) << R"({"model": {"vocab_size": 65, "block_size": 16, "n_layer": 2,
    "n_head": 2, "d_model": 32, "residual": false}})";
  const RunResult r = run_tinylm("info --config " + cfg);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "pre-LN without residual connections")) << r.output;
}

}  // namespace
}  // namespace tinylm::testing
