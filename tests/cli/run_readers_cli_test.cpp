// Readers and writers of one run folder never break each other:
// `report` (which rewrites RUN/report.html, as the trainer does at every evaluation),
// `sample`, `eval` and `plot` run in a loop against a run while a small training writes
// into it; every reader exits 0. The training runs until the readers are done, however
// fast the host, then stops on Ctrl-C as a user's would: 130, its checkpoint saved.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "cli/cli_test_util.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

// Starts `tinylm train --quiet --config cfg --out run` (output to out_file); returns its pid.
pid_t start_training(const std::string& cfg, const std::string& run, const std::string& out_file) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::chdir(tinylm::source_dir());
    std::freopen(out_file.c_str(), "w", stdout);
    std::freopen(out_file.c_str(), "a", stderr);
    ::execl(tinylm_bin(), tinylm_bin(), "train", "--quiet", "--config", cfg.c_str(), "--out",
            run.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  return pid;
}

// Kills and reaps a child the test did not wait for (a failed assertion returns early).
struct ReapOnExit {
  pid_t pid;
  bool reaped = false;
  ~ReapOnExit() {
    if (reaped) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

TEST(RunReaders, ReportSampleAndEvalWhileATrainingWritesNeverBreakIt) {
  const std::string dir = fresh_dir("run-readers");
  const std::string cfg = dir + "/tiny.json";
  // A report at every step (eval_interval 1), a checkpoint at every other.
  std::ofstream(cfg) << R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": "data/the-verdict.txt", "tokenizer": "char"},
  "train": {"batch_size": 4, "max_steps": 1000000, "warmup_steps": 2, "eval_interval": 1,
            "eval_iters": 1, "log_interval": 1, "checkpoint_interval": 2, "seed": 7,
            "threads": 1},
  "sample": {"max_new_tokens": 0}
})";
  const std::string run = dir + "/run";
  const pid_t pid = start_training(cfg, run, dir + "/train.out");
  ReapOnExit training{pid};
  for (int i = 0; i < 600 && !file_exists(run + "/last.safetensors"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  int status = 0;
  for (int readers = 0; readers < 8; ++readers) {  // two rounds of every reader
    const RunResult report = run_tinylm("report --run " + run);
    EXPECT_EQ(report.code, 0) << report.output;
    if (readers % 4 == 0) {
      const RunResult sample = run_tinylm("sample --run " + run + " --max-new-tokens 4");
      EXPECT_EQ(sample.code, 0) << sample.output;
      const RunResult eval = run_tinylm("eval --run " + run);
      EXPECT_EQ(eval.code, 0) << eval.output;
      const RunResult plot = run_tinylm("plot --run " + run + " --out " + dir + "/loss.svg");
      EXPECT_EQ(plot.code, 0) << plot.output;
      const RunResult attention =
          run_tinylm("attention --run " + run + " --text 'I had' --out " + dir + "/attention.svg");
      EXPECT_EQ(attention.code, 0) << attention.output;
    }
    ASSERT_EQ(::waitpid(pid, &status, WNOHANG), 0)
        << "the training ended while the readers ran: " << read_file(dir + "/train.out");
  }
  ::kill(pid, SIGINT);
  ::waitpid(pid, &status, 0);
  training.reaped = true;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(dir + "/train.out");
  // Nothing but the run's own files: no temp file left by either side.
  for (const auto& e : fs::directory_iterator(run))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
