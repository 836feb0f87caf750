// The llama family through the verbs: its recipes train (with samples drawn during the
// run), resume, sample and describe themselves; a Hugging Face Llama folder generates
// and verifies; configs that mix the families are refused before anything is written.
#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

const std::string kShort =
    " --quiet --set train.max_steps=6 --set train.eval_interval=3 --set train.eval_iters=2 "
    "--set train.checkpoint_interval=3 --set sample.max_new_tokens=20 --out ";

TEST(LlamaCli, RecipesTrainResumeSampleAndDescribe) {
  const std::string dir = fresh_dir("llama-recipes");
  const std::string run = dir + "/sh";
  RunResult r = run_tinylm("train --config configs/shakespeare-char-llama.json" + kShort + run);
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("train --config configs/shakespeare-char-llama.json" + kShort + run +
                 " --resume --set train.max_steps=8");
  ASSERT_EQ(r.code, 0) << r.output;
  r = run_tinylm("sample --run " + run + " --prompt ROMEO: --max-new-tokens 12 --seed 3");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "ROMEO:")) << r.output;
  r = run_tinylm("info --run " + run);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "llama: RMSNorm")) << r.output;
  EXPECT_TRUE(has(r.output, "block: self_attn.k_proj")) << r.output;
  // 2 x 4 layers x 2 kv heads x 32 x 4 bytes
  EXPECT_TRUE(has(r.output, "KV cache: 2,048 bytes per token")) << r.output;
  r = run_tinylm("train --config configs/verdict-llama.json" + kShort + dir + "/verdict");
  ASSERT_EQ(r.code, 0) << r.output;
}

TEST(LlamaCli, HuggingFaceFolderGeneratesAndVerifies) {
  RunResult r = run_tinylm("verify tests/fixtures/qwen3-micro");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "all checks passed")) << r.output;
  r = run_tinylm(
      "generate --model tests/fixtures/llama-tiny --prompt 'Hello, I am a tiny language model,' "
      "--greedy --max-new-tokens 6 --q8");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "Hello, I am a tiny language model,")) << r.output;
}

TEST(LlamaCli, MixedFamiliesAreRefusedByField) {
  const std::string dir = fresh_dir("llama-bad");
  expect_exit(
      2,
      "train --config configs/shakespeare-char-llama.json --set model.activation=relu --out " +
          dir + "/a",
      "model.activation is not a field of arch llama");
  expect_exit(2,
              "train --config configs/shakespeare-char-llama.json --set model.n_kv_head=3 --out " +
                  dir + "/b",
              "must be a multiple of model.n_kv_head");
  expect_exit(2,
              "train --config configs/shakespeare-char-cpu.json --set model.n_kv_head=2 --out " +
                  dir + "/c",
              "model.n_kv_head is not a field of arch gpt2");
  EXPECT_FALSE(file_exists(dir + "/a"));
  EXPECT_FALSE(file_exists(dir + "/b"));
  EXPECT_FALSE(file_exists(dir + "/c"));
}

}  // namespace
}  // namespace tinylm::testing
