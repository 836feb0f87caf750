// `tinylm finetune --precision bf16` on the CPU: both tasks train with the linear layers'
// products in bf16 (ops/matmul_bf16.h), say what computes them, and log losses close to
// float32's; tf32 is refused before anything is written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

// Every logged training loss of a run, in order.
std::vector<double> finetune_step_losses(const std::string& run) {
  std::vector<double> losses;
  std::ifstream in(run + "/log.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) losses.push_back(j["loss"].get<double>());
  }
  return losses;
}

// fp32 and bf16 runs of one command: the same number of steps, losses within 1% (a bf16
// operand is off by at most 2^-8 relative; measured on a Zen 5: 3e-4 classify, 1e-5
// instruct).
void expect_bf16_tracks_fp32(const std::string& command, const std::string& dir) {
  const RunResult fp32 = run_tinylm(command + " --out " + dir + "/fp32 --quiet");
  ASSERT_EQ(fp32.code, 0) << fp32.output;
  const RunResult bf16 = run_tinylm(command + " --out " + dir + "/bf16 --precision bf16");
  ASSERT_EQ(bf16.code, 0) << bf16.output;
  EXPECT_NE(bf16.output.find("bf16 products: "), std::string::npos) << bf16.output;
  const auto a = finetune_step_losses(dir + "/fp32"), b = finetune_step_losses(dir + "/bf16");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_NEAR(b[i], a[i], 1e-2 * std::fabs(a[i])) << "step entry " << i;
    worst = std::max(worst, std::fabs(b[i] - a[i]) / std::fabs(a[i]));
  }
  std::printf("%s: bf16 vs fp32, largest relative loss difference %.2e\n", dir.c_str(), worst);
}

TEST(FinetuneBf16Cli, BothTasksTrackFloat32) {
  const std::string dir = fresh_dir("ft-bf16");
  write_file_atomic(dir + "/cls.json", tiny_classify_settings().dump(2));
  write_file_atomic(dir + "/ins.json", tiny_instruct_settings().dump(2));
  std::filesystem::create_directories(dir + "/classify");
  std::filesystem::create_directories(dir + "/instruct");
  expect_bf16_tracks_fp32("finetune --task classify --base gpt2-124m --data " +
                              write_spam_file(dir + "/spam.tsv", 24) + " --config " + dir +
                              "/cls.json",
                          dir + "/classify");
  expect_bf16_tracks_fp32("finetune --task instruct --base gpt2-124m --data " +
                              write_instruction_file(dir + "/data.json", 14) + " --config " + dir +
                              "/ins.json",
                          dir + "/instruct");
  std::filesystem::remove_all(dir);
}

TEST(FinetuneBf16Cli, Tf32IsRefusedOnTheCpu) {
  const std::string dir = fresh_dir("ft-tf32");
  write_file_atomic(dir + "/cls.json", tiny_classify_settings().dump(2));
  expect_exit(2,
              "finetune --task classify --base gpt2-124m --quiet --precision tf32 --data " +
                  write_spam_file(dir + "/spam.tsv", 24) + " --config " + dir + "/cls.json --out " +
                  dir + "/run",
              "fp32 or bf16");
  EXPECT_FALSE(std::filesystem::exists(dir + "/run"));
}

}  // namespace
}  // namespace tinylm::testing
