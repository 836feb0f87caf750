// Every run folder gets report.html at each evaluation; `tinylm report` rewrites it.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_test_util.h"

namespace tinylm::testing {
namespace {

TEST(ReportCli, TrainingWritesTheReportAndReportRewritesIt) {
  const std::string dir = fresh_dir("report");
  std::ofstream(dir + "/cfg.json") << R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"batch_size": 4, "max_steps": 10, "warmup_steps": 2, "eval_interval": 5,
            "eval_iters": 2, "log_interval": 1, "checkpoint_interval": 5},
  "sample": {"prompt": "I had", "max_new_tokens": 20}
})";
  ASSERT_EQ(run_tinylm("train --quiet --config " + dir + "/cfg.json --out " + dir + "/run").code, 0);
  const std::string page = read_file(dir + "/run/report.html");
  EXPECT_NE(page.find("step 10 of 10"), std::string::npos);
  EXPECT_NE(page.find("<figcaption>step 10 (temperature"), std::string::npos);  // newest first
  EXPECT_NE(page.find("<figcaption>step 5 (temperature"), std::string::npos);
  EXPECT_NE(page.find("fixed input of 16 tokens"), std::string::npos);

  std::filesystem::remove(dir + "/run/report.html");
  auto r = run_tinylm("report --run " + dir + "/run --seed 3");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(read_file(dir + "/run/report.html").find("seed 3"), std::string::npos);

  auto bad = run_tinylm("report --run " + dir + "/nothing");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("not a run folder"), std::string::npos) << bad.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
