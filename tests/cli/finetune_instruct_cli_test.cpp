// tinylm finetune --task instruct, respond and eval on a tiny GPT and data written here;
// the bad inputs exit 2 and leave what was saved alone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "util/files.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

// The tiny settings as a config file.
std::string tiny_config_file(const std::string& dir) {
  const std::string path = dir + "/tiny.json";
  write_file_atomic(path, tiny_instruct_settings().dump(2));
  return path;
}

TEST(FinetuneInstructCli, TrainsRespondsAndEvaluates) {
  const std::string tmp = fresh_dir("ft-instruct-cli");
  const std::string data = write_instruction_file(tmp + "/data.json", 14);
  const std::string run = tmp + "/run";
  const RunResult r =
      run_tinylm("finetune --task instruct --base gpt2-124m --data " + data + " --out " + run +
                 " --config " + tiny_config_file(tmp) + " --set finetune.epochs=1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("test-responses.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("val loss"), std::string::npos);
  EXPECT_TRUE(file_exists(run + "/test-responses.json"));
  EXPECT_TRUE(file_exists(run + "/report.html"));

  const RunResult respond = run_tinylm("respond --run " + run +
                                       " --instruction 'Repeat the word red.' --input 'number 1'");
  EXPECT_EQ(respond.code, 0) << respond.output;

  const RunResult eval = run_tinylm("eval --run " + run);
  EXPECT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("val loss"), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("test loss"), std::string::npos) << eval.output;

  // report rewrites the run's page from the run folder.
  fs::remove(run + "/report.html");
  const RunResult report = run_tinylm("report --run " + run);
  EXPECT_EQ(report.code, 0) << report.output;
  EXPECT_NE(read_file(run + "/report.html").find("greedy"), std::string::npos);

  // The same command again: the finished run is not overwritten.
  const std::string before = read_file(run + "/last.safetensors");
  const RunResult again = run_tinylm("finetune --task instruct --base gpt2-124m --data " + data +
                                     " --out " + run + " --config " + tiny_config_file(tmp));
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_NE(again.output.find("--resume"), std::string::npos) << again.output;
  EXPECT_EQ(read_file(run + "/last.safetensors"), before);
  fs::remove_all(tmp);
}

// A run folder locked by another tinylm run (here: this test holds the lock on its
// marker) is refused with exit 2, and nothing is written into it.
TEST(FinetuneInstructCli, ALockedRunFolderIsRefused) {
  const std::string tmp = fresh_dir("ft-instruct-lock");
  const std::string data = write_instruction_file(tmp + "/data.json", 14);
  const std::string run = tmp + "/run";
  fs::create_directories(run);
  const int fd = ::open((run + "/.tinylm-run").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const RunResult r =
      run_tinylm("finetune --task instruct --base gpt2-124m --data " + data + " --out " + run +
                 " --config " + tiny_config_file(tmp) + " --set finetune.epochs=1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("in use by another tinylm run"), std::string::npos) << r.output;
  EXPECT_FALSE(file_exists(run + "/config.json"));
  EXPECT_FALSE(file_exists(run + "/log.jsonl"));
  ::close(fd);
  fs::remove_all(tmp);
}

// --resume takes the model from the checkpoint: --base may be left out; the settings that may
// change on resume are the task's list, the others are refused by name; a new run needs --base.
TEST(FinetuneInstructCli, ResumeNeedsNoBaseAndChangesOnlyWhatMayChange) {
  const std::string tmp = fresh_dir("ft-instruct-resume");
  const std::string data = write_instruction_file(tmp + "/data.json", 14);
  const std::string run = tmp + "/run";
  const std::string common =
      " --data " + data + " --out " + run + " --config " + tiny_config_file(tmp) + " --quiet";
  expect_exit(2, "finetune --task instruct" + common, "--base");
  EXPECT_FALSE(fs::exists(run));
  ASSERT_EQ(
      run_tinylm("finetune --task instruct --base gpt2-124m" + common + " --stop-after 2").code, 0);
  const std::string before = read_file(run + "/last.safetensors");
  expect_exit(2, "finetune --task instruct --resume" + common + " --set finetune.lr=0.01",
              "finetune.lr");
  expect_exit(2, "finetune --task instruct --resume --base gpt2-355m" + common, "base");
  EXPECT_EQ(read_file(run + "/last.safetensors"), before);
  const RunResult resumed =
      run_tinylm("finetune --task instruct --resume" + common +
                 " --set finetune.eval_interval=3 --set finetune.write_responses=false");
  EXPECT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_TRUE(file_exists(run + "/results.json"));
  const nlohmann::json config = nlohmann::json::parse(read_file(run + "/config.json"));
  EXPECT_EQ(config["base"], "gpt2-124m");
  fs::remove_all(tmp);
}

TEST(FinetuneInstructCli, BadInputExitsTwo) {
  const std::string tmp = fresh_dir("ft-instruct-bad");
  const std::string cfg = tiny_config_file(tmp);
  const std::string data = write_instruction_file(tmp + "/data.json", 14);
  const auto finetune = [&](const std::string& extra) {
    return run_tinylm("finetune --task instruct --base gpt2-124m --config " + cfg + " " + extra);
  };
  // an entry without instruction
  write_file_atomic(tmp + "/no-instruction.json", R"([{"input": "x", "output": "y"}])");
  RunResult r = finetune("--data " + tmp + "/no-instruction.json --out " + tmp + "/r1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("instruction"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp + "/r1"));
  // --resume without a checkpoint
  r = finetune("--data " + data + " --out " + tmp + "/r2 --resume");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no checkpoint"), std::string::npos) << r.output;
  // a non-empty folder that is not a finetune run
  fs::create_directories(tmp + "/mine");
  write_file_atomic(tmp + "/mine/keep.txt", "keep");
  r = finetune("--data " + data + " --out " + tmp + "/mine");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(read_file(tmp + "/mine/keep.txt"), "keep");
  EXPECT_FALSE(file_exists(tmp + "/mine/config.json"));
  // an unknown setting, an unknown task, a base that is nothing
  r = finetune("--data " + data + " --out " + tmp + "/r3 --set finetune.epochz=1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("finetune.epochz"), std::string::npos) << r.output;
  r = run_tinylm("finetune --task summarize --base gpt2-124m --data " + data + " --out " + tmp +
                 "/r4");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_tinylm("finetune --task instruct --base no-such-model --data " + data + " --out " + tmp +
                 "/r5");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no-such-model"), std::string::npos) << r.output;
  // respond / eval on something that is not an instruct run
  r = run_tinylm("respond --run " + tmp + "/mine --instruction hi");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("not a tinylm finetune run"), std::string::npos) << r.output;
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace tinylm::testing
