// JSON nested 150,000 deep (300 KB) as a train config, a finetune config and instruction
// data: each exits 2 naming the file and the bound, where it once
// overflowed the stack (exit 139), and no run folder is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

// {"train": {"a": {"a": ... 150,000 ... }}}: the shape that crashed train (exit 139).
std::string deep_json() {
  const size_t depth = 150'000;
  std::string s = "{\"train\": ";
  for (size_t i = 0; i < depth; ++i) s += "{\"a\": ";
  return s + "1" + std::string(depth + 1, '}');
}

void expect_refused(const RunResult& r, const std::string& file, const std::string& run) {
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find(file + ": JSON nested deeper than 512 levels"), std::string::npos)
      << r.output.substr(0, 2000);
  EXPECT_FALSE(fs::exists(run));
}

TEST(HostileJson, DeepConfigsAndDataExitTwo) {
  const std::string tmp = fresh_dir("hostile-json");
  const std::string deep = tmp + "/deep.json", run = tmp + "/run";
  write_file_atomic(deep, deep_json());
  expect_refused(run_tinylm("train --config " + deep + " --out " + run), deep, run);
  expect_refused(run_tinylm("finetune --task classify --base gpt2-124m --config " + deep +
                            " --data " + write_spam_file(tmp + "/spam.tsv", 30) + " --out " + run),
                 deep, run);
  const std::string settings = tmp + "/settings.json";
  write_file_atomic(settings, tiny_instruct_settings().dump());
  expect_refused(run_tinylm("finetune --task instruct --base gpt2-124m --config " + settings +
                            " --data " + deep + " --out " + run),
                 deep, run);
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace tinylm::testing
