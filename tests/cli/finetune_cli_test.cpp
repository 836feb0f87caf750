// tinylm verify on the fine-tuning fixtures (reference.json "task"), and tinylm lora merge.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "io/safetensors.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

TEST(FinetuneCli, VerifyRunsTheClassifyAndLoraChecks) {
  auto r = run_tinylm("verify tests/fixtures/gpt2-micro-classify");
  EXPECT_EQ(r.code, 0) << r.output;
  for (const char* check : {"logits", "loss", "grad", "adamw.params"})
    EXPECT_NE(r.output.find(check), std::string::npos) << check;
  EXPECT_NE(r.output.find("last:1"), std::string::npos) << r.output;
  r = run_tinylm("verify tests/fixtures/gpt2-micro-lora");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("merged"), std::string::npos) << r.output;
}

TEST(FinetuneCli, VerifyRejectsABadReferenceWithExitTwo) {
  const std::string dir = fresh_dir("verify-bad-task");
  fs::copy("tests/fixtures/gpt2-micro-classify", dir, fs::copy_options::recursive);
  write_file_atomic(dir + "/reference.json", "[]");
  auto r = run_tinylm("verify " + dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("reference.json"), std::string::npos) << r.output;
  write_file_atomic(dir + "/reference.json", R"({"task": "classify", "pooling": "last"})");
  r = run_tinylm("verify " + dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("trainable"), std::string::npos) << r.output;
  write_file_atomic(dir + "/reference.json", R"({"task": "translate"})");
  r = run_tinylm("verify " + dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("translate"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

// The merged folder holds the reference's merged weights and a generation config, and
// verifies as a plain model.
TEST(FinetuneCli, LoraMergeWritesTheMergedBase) {
  const std::string dir = fresh_dir("lora-merge");
  const std::string out = dir + "/merged";
  auto r = run_tinylm(
      "lora merge --base tests/fixtures/gpt2-micro-lora --adapter "
      "tests/fixtures/gpt2-micro-lora/adapter --out " +
      out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("merged 12 LoRA modules"), std::string::npos) << r.output;
  const SafeTensors merged = load_safetensors(out + "/model.safetensors");
  const SafeTensors ref = load_safetensors("tests/fixtures/gpt2-micro-lora/reference.safetensors");
  int checked = 0;
  for (const auto& name : ref.names) {
    if (name.rfind("merged.", 0) != 0) continue;
    const Tensor a = merged.get(name.substr(7)).to_float(), b = ref.get(name).to_float();
    ASSERT_EQ(a.shape(), b.shape()) << name;
    double diff = 0, norm = 0;
    for (int64_t i = 0; i < a.numel(); ++i)
      diff += (a[i] - b[i]) * (a[i] - b[i]), norm += b[i] * b[i];
    EXPECT_LE(std::sqrt(diff / norm), 1e-5) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 12);
  EXPECT_TRUE(fs::exists(out + "/config.json"));
  // save_pretrained's generation_config.json: GPT-2's <|endoftext|> as bos and eos
  const auto generation = nlohmann::json::parse(read_file(out + "/generation_config.json"));
  EXPECT_EQ(generation["eos_token_id"], 50256);
  EXPECT_EQ(generation["bos_token_id"], 50256);

  // A non-empty --out is refused (exit 2) and left as it was.
  r = run_tinylm(
      "lora merge --base tests/fixtures/gpt2-micro-lora --adapter "
      "tests/fixtures/gpt2-micro-lora/adapter --out " +
      out);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("overwrite"), std::string::npos) << r.output;
  // An adapter that does not fit the base: exit 2.
  r = run_tinylm(
      "lora merge --base tests/fixtures/gpt2-micro --adapter tests/fixtures/gpt2-micro --out " +
      dir + "/x");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/x"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
