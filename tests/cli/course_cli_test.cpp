// The course's commands end to end: `attention --example journey` and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

TEST(CourseCli, AttentionJourneyPrintsTheBooksNumbers) {
  const RunResult r = run_tinylm("attention --example journey");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* part :
       {"[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]",
        "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]", "[0.4419, 0.6515, 0.5683]",
        "[0.3061, 0.8210]", "[ 0.5517  0.4483  0.0000  0.0000  0.0000  0.0000 ]"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
}

TEST(CourseCli, AttentionExampleWithoutNameIsTheHandout) {
  const RunResult r = run_tinylm("attention --example");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Q = [[1,0],[0,1],[1,1]]"), std::string::npos) << r.output;
  const RunResult bad = run_tinylm("attention --example nowhere");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("unknown example 'nowhere'"), std::string::npos) << bad.output;
}

TEST(CourseCli, DataShowOnTheVerdict) {
  const RunResult r = run_tinylm("data --show --d-model 256");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* part : {"and -> established\n", "and established -> himself\n",
                           "[40, 367, 2885, 1464]", "-> [8, 4, 256]", "5,145 tokens"})
    EXPECT_NE(r.output.find(part), std::string::npos) << part << "\n" << r.output;
  const RunResult bad = run_tinylm("data --show --input data/the-verdict.txt --max-length 99999");
  EXPECT_EQ(bad.code, 2) << bad.output;
}

TEST(CourseCli, TokenizeWordAndChar) {
  const std::string dir = fresh_dir("course-tok");
  std::ofstream(dir + "/s.txt") << "Hello, do you like tea?";
  RunResult r = run_tinylm("tokenize --tokenizer word --vocab-from data/the-verdict.txt --input " +
                           dir + "/s.txt");
  ASSERT_EQ(r.code, 0) << r.output;
  // "Hello" is not in The Verdict: <|unk|> (id 1131); "," is id 5.
  EXPECT_EQ(r.output.rfind("1131 5 355 1126 628 975 10", 0), 0u) << r.output;
  r = run_tinylm("tokenize --tokenizer char --input " + dir + "/s.txt --count");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("23\n", 0), 0u) << r.output;
}

TEST(CourseCli, DemosPrintTheirTables) {
  RunResult r = run_tinylm("demo residual");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("with residual"), std::string::npos) << r.output;
  r = run_tinylm("demo sqrt-dk");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("ln 16 = 2.7726"), std::string::npos) << r.output;
  const std::string dir = fresh_dir("course-demo");
  r = run_tinylm("demo activations --out " + dir + "/act.svg");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(read_file(dir + "/act.svg").find("GELU"), std::string::npos);
  EXPECT_EQ(run_tinylm("demo nothing").code, 2);
}

TEST(CourseCli, InfoEmbeddingTableAndDevice) {
  RunResult r = run_tinylm("info --embedding-table 32100");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("125.39 MiB"), std::string::npos) << r.output;
  r = run_tinylm("info --config configs/shakespeare-char.json --batch 64 --device rtx4060-laptop");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("ridge point"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("KV cache"), std::string::npos) << r.output;
  r = run_tinylm("info --preset gpt2-124m --device quantum");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("unknown device 'quantum'"), std::string::npos) << r.output;
}

// The addition model without residual connections, supervised everywhere: the run logs
// step 0 (about ln 14), per-layer gradient norms and MFU.
TEST(CourseCli, AdditionWithoutResidualsLogsStepZeroAndLayerNorms) {
  const std::string dir = fresh_dir("course-add");
  const RunResult r = run_tinylm(
      "train --config configs/addition.json --out " + dir +
      "/run --quiet --set train.max_steps=4 --set train.eval_interval=2 --set train.eval_iters=2 "
      "--set train.log_interval=2 --set model.residual=false --set data.loss_on=all");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream log(dir + "/run/log.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(log, line));
  const auto first = nlohmann::json::parse(line);
  EXPECT_EQ(first.at("step"), 0);
  EXPECT_NEAR(first.at("val_loss").get<double>(), std::log(14.0), 0.3);
  bool saw_layers = false;
  while (std::getline(log, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("grad_norm_layers")) {
      EXPECT_EQ(j.at("grad_norm_layers").size(), 2u);
      EXPECT_GT(j.at("mfu").get<double>(), 0.0);
      saw_layers = true;
    }
  }
  EXPECT_TRUE(saw_layers);
  EXPECT_NE(read_file(dir + "/run/config.json").find("\"residual\": false"), std::string::npos);
}

}  // namespace
}  // namespace tinylm::testing
