// Parity with Hugging Face transformers' GPT-2 (float64 references in tests/fixtures):
// logits, loss, every gradient, 3 AdamW steps, and a greedy continuation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "model/hf_gpt2.h"
#include "util/files.h"
#include "util/source_dir.h"
#include "verify/verify_lm.h"

namespace tinylm {
namespace {

const std::string kFixtures = std::string(tinylm::source_dir()) + "/tests/fixtures/";

void expect_all_pass(const std::vector<CheckResult>& results, size_t expected_checks) {
  EXPECT_EQ(results.size(), expected_checks);
  for (const auto& r : results)
    EXPECT_TRUE(r.pass) << r.name << ": error " << r.error << " > " << r.tolerance << " "
                        << r.detail;
}

TEST(HuggingFaceParity, Gpt2MicroLogitsLossGradientsAdamWGreedy) {
  const auto results = verify_reference(kFixtures + "gpt2-micro");
  // logits, loss, grad, adamw.per_step, adamw.params, greedy
  expect_all_pass(results, 6);
  for (const auto& r : results)
    std::printf("  %-16s %.3g (tolerance %.0e)\n", r.name.c_str(), r.error, r.tolerance);
}

TEST(HuggingFaceParity, Gpt2TinyLogitsLossGreedy) {
  const auto results = verify_reference(kFixtures + "gpt2-tiny");
  expect_all_pass(results, 3);  // logits, loss, greedy
}

// The llama family (model/hf_llama.h): Llama with grouped-query attention, Qwen3 with q/k
// norms and a head width apart from d_model / n_head (tied head), Llama 3's rope_scaling.
TEST(HuggingFaceParity, LlamaMicroLogitsLossGradientsAdamWGreedy) {
  expect_all_pass(verify_reference(kFixtures + "llama-micro"), 6);
}

TEST(HuggingFaceParity, Qwen3MicroLogitsLossGradientsAdamWGreedy) {
  expect_all_pass(verify_reference(kFixtures + "qwen3-micro"), 6);
}

TEST(HuggingFaceParity, LlamaTinyWithLlama3RopeScalingLogitsLossGreedy) {
  expect_all_pass(verify_reference(kFixtures + "llama-tiny"), 3);
}

// A copy of a fixture folder whose reference.json is changed by `edit`.
std::string edited_copy(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tinylm-verify-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kFixtures + name, dir);
  auto info = nlohmann::json::parse(read_file(dir / "reference.json"));
  edit(info);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  std::filesystem::remove(dir / "reference.json");
  std::ofstream(dir / "reference.json") << info.dump();
  return dir.string();
}

bool passes(const std::vector<CheckResult>& results, const std::string& check) {
  for (const auto& r : results)
    if (r.name == check) return r.pass;
  ADD_FAILURE() << "no check " << check;
  return false;
}

TEST(HuggingFaceParity, VerifyFailsWhenTheReferenceIsWrong) {
  auto dir = edited_copy("gpt2-micro", [](nlohmann::json& j) {
    j["loss"] = j["loss"].get<double>() * (1 + 1e-4);
    j["greedy"]["output_ids"][5] = 1;
    j["adamw"]["lr"] = 2e-3;
  });
  const auto results = verify_reference(dir);
  EXPECT_FALSE(passes(results, "loss"));
  EXPECT_FALSE(passes(results, "greedy"));
  EXPECT_FALSE(passes(results, "adamw.params"));
  EXPECT_TRUE(passes(results, "logits"));
  std::filesystem::remove_all(dir);
}

TEST(HuggingFaceInterop, ImportExportImportIsBitIdentical) {
  auto model = load_hf_gpt2(kFixtures + "gpt2-micro");
  const auto dir =
      std::filesystem::temp_directory_path() / ("tinylm-export-" + std::to_string(::getpid()));
  save_hf_gpt2(*model, dir.string());
  auto again = load_hf_gpt2(dir.string());
  auto a = model->parameters(), b = again->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].param->value.to_vector(), b[i].param->value.to_vector()) << a[i].name;
  }
  // The exported tensors are the original file's tensors, byte for byte.
  const SafeTensors original = load_safetensors(kFixtures + "gpt2-micro/model.safetensors");
  const SafeTensors exported = load_safetensors((dir / "model.safetensors").string());
  for (const auto& [name, entry] : original.tensors) {
    ASSERT_TRUE(exported.has(name)) << name;
    EXPECT_EQ(exported.get(name).bytes, entry.bytes) << name;
    EXPECT_EQ(exported.get(name).shape, entry.shape) << name;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tinylm
