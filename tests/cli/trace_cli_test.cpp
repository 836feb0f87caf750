// `tinylm trace` end to end on a tiny addition run: every section of the walk-through is
// printed, --answer shows where the last block's heads look for each generated digit, and
// bad input (no --text, characters the tokenizer does not know, text longer than the
// context, no model) gives one clear message and exit code 2.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

// The addition model's shape (configs/addition.json), smaller, trained for a few steps.
std::string tiny_addition_config(const std::string& dir) {
  const std::string path = dir + "/addition.json";
  std::ofstream(path) << R"({
  "model": {"block_size": 13, "n_layer": 2, "n_head": 2, "d_model": 16, "d_ff": 32,
            "qkv_bias": false, "attn_proj_bias": false, "dropout": 0.0},
  "data": {"task": "addition"},
  "train": {"batch_size": 16, "max_steps": 10, "warmup_steps": 2, "eval_interval": 5,
            "eval_iters": 1, "log_interval": 5, "checkpoint_interval": 5, "seed": 3},
  "sample": {"max_new_tokens": 0}
})";
  return path;
}

class TraceCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_dir("trace");
    auto r = run_tinylm("train --quiet --config " + tiny_addition_config(dir_) + " --out " + dir_ +
                        "/run");
    ASSERT_EQ(r.code, 0) << r.output;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string run_dir() { return dir_ + "/run"; }

  static std::string dir_;
};
std::string TraceCli::dir_;

bool has_text(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// eval on this addition run scores held-out problems: the flags of a text's loss would be
// ignored, so they are refused (and --n is refused where no addition task runs).
TEST_F(TraceCli, EvalOfTheAdditionRunRefusesTheTextFlags) {
  const RunResult r = run_tinylm("eval --run " + run_dir() + " --data nowhere.txt --stride 3");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has_text(r.output, "--data, --stride: the addition task")) << r.output;
  EXPECT_EQ(run_tinylm("eval --run " + run_dir() + " --n 50").code, 0);
  const RunResult n = run_tinylm("eval --model tests/fixtures/gpt2-tiny --n 50");
  EXPECT_EQ(n.code, 2) << n.output;
  EXPECT_TRUE(has_text(n.output, "--n applies only to --task addition")) << n.output;
}

TEST_F(TraceCli, PrintsEverySection) {
  auto r = run_tinylm("trace --run " + run_dir() + " --text 123+456= --dims 4");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* section :
       {"== 1. tokens (8) ==", "== 2. embeddings (first 4 of 16 dims; learned positions) ==",
        "== 3. blocks ==", "-- block 0 --", "-- block 1 --", "head 0 attention weights",
        "head 1 attention weights", "before block 0", "after block 1",
        "== 4. next token after pos 7 '=' (=) (top 5) =="})
    EXPECT_TRUE(has_text(r.output, section)) << section << "\n" << r.output;
  // Roles of the addition positions, and the first query row of a causal matrix.
  EXPECT_TRUE(has_text(r.output, "a 100s")) << r.output;
  EXPECT_TRUE(has_text(r.output, "b 1s")) << r.output;
  EXPECT_TRUE(has_text(r.output, "0 1            1.00    .")) << r.output;
  EXPECT_FALSE(has_text(r.output, "== answer")) << r.output;
}

TEST_F(TraceCli, AnswerShowsWhereTheLastBlockLooksForEachDigit) {
  auto r = run_tinylm("trace --run " + run_dir() + " --text 123+456= --answer");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has_text(r.output, "== answer")) << r.output;
  EXPECT_TRUE(
      has_text(r.output, "expected (123 + 456 = 579, digits least significant first): 9750"))
      << r.output;
  EXPECT_TRUE(has_text(r.output, "token 0 = sum 1s:")) << r.output;
  EXPECT_TRUE(has_text(r.output, "predicted at pos 7 '=' (=)")) << r.output;
  EXPECT_TRUE(has_text(r.output, "    head 1:")) << r.output;
  EXPECT_TRUE(has_text(r.output, "generated: \"")) << r.output;
}

// Each bad input: exit code 2, one message naming the problem.
void expect_trace_input_error(const std::string& args, const std::string& message) {
  auto r = run_tinylm(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_TRUE(has_text(r.output, message)) << args << "\n" << r.output;
}

TEST_F(TraceCli, BadInputGivesExitCode2) {
  expect_trace_input_error("trace --run " + run_dir(), "--text is required");
  expect_trace_input_error("trace --run " + run_dir() + " --text 12x+456=", "'x'");
  expect_trace_input_error("trace --run " + run_dir() + " --text 123+456=97501234",
                           "--text is 16 tokens, longer than the model's context (block_size 13)");
  expect_trace_input_error("trace --text 123+456=", "pass --run or --model");
  expect_trace_input_error("trace --run " + run_dir() + " --text 1+1= --dims 0", "--dims");
}

}  // namespace
}  // namespace tinylm::testing
