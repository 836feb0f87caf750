// Data-parallel training under Open MPI's mpirun (docs/distributed.md), all ranks on this
// machine, one thread each, every job under a timeout: N ranks compute what one process
// computes. Skipped in a build without MPI or where mpirun is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"
#include "io/safetensors.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

// mpirun as root (CI containers), ranks beyond the cores, no shared-memory single copy
// (containers), and no job outlives 120 s.
const char* kMpirun =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
    "OMPI_MCA_btl_vader_single_copy_mechanism=none timeout -s KILL 120 mpirun --oversubscribe ";

bool mpi_available() {
#ifndef TINYLM_WITH_MPI
  return false;
#else
  return std::system("command -v mpirun > /dev/null 2>&1") == 0;
#endif
}

// `mpirun -np N tinylm ARGS` (or, with `ranks` of the form "-np 1 ... : -np 1 ...", any
// MPMD line): exit code and output.
RunResult run_mpi(const std::string& ranks) {
  const std::string out = fresh_dir("mpi-out") + "/out.txt";
  const std::string cmd = std::string("cd '") + tinylm::source_dir() + "' && " + kMpirun + ranks +
                          " > '" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = file_exists(out) ? read_file(out) : "";
  return r;
}

std::string tinylm_args(const std::string& args) {
  return std::string("'") + tinylm_bin() + "' " + args;
}

// A 1-layer char model on the-verdict.txt, 6 steps, one thread.
std::string config(const std::string& dir, const nlohmann::json& train, double dropout = 0.1) {
  nlohmann::json j = nlohmann::json::parse(R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": "data/the-verdict.txt", "tokenizer": "char"},
  "train": {"batch_size": 4, "max_steps": 6, "warmup_steps": 2, "eval_interval": 3,
            "eval_iters": 2, "log_interval": 1, "checkpoint_interval": 3, "seed": 7,
            "threads": 1},
  "sample": {"max_new_tokens": 0}
})");
  j["model"]["dropout"] = dropout;
  j["train"].update(train);
  const std::string path =
      dir + "/config-" + std::to_string(std::hash<std::string>()(j.dump())) + ".json";
  std::ofstream(path) << j.dump(2);
  return path;
}

// LoRA adapters (r 4) on the tiny GPT-2 fixture, trained on the-verdict.txt with GPT-2's
// tokenizer: the frozen base is not reduced, the adapters are.
std::string distributed_lora_config(const std::string& dir, int grad_accum) {
  nlohmann::json j = nlohmann::json::parse(R"({
  "model": {"block_size": 16, "dropout": 0.1},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"batch_size": 2, "max_steps": 4, "warmup_steps": 1, "eval_interval": 2,
            "eval_iters": 1, "log_interval": 1, "checkpoint_interval": 2, "seed": 7,
            "threads": 1, "init_from": "tests/fixtures/gpt2-tiny", "trainable": "lora"},
  "lora": {"r": 4, "alpha": 8, "targets": ["c_attn", "c_fc"]},
  "sample": {"max_new_tokens": 0}
})");
  j["train"]["grad_accum"] = grad_accum;
  const std::string path = dir + "/lora-" + std::to_string(grad_accum) + ".json";
  std::ofstream(path) << j.dump(2);
  return path;
}

std::vector<double> losses(const std::string& run) {
  std::vector<double> out;
  std::ifstream in(run + "/log.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) out.push_back(j["loss"].get<double>());
  }
  return out;
}

// `mpirun ...` started in the background; its exit code lands in `code_file`.
void start_mpi(const std::string& ranks, const std::string& code_file) {
  const std::string cmd = std::string("cd '") + tinylm::source_dir() + "' && (" + kMpirun + ranks +
                          " > /dev/null 2>&1; echo $? > '" + code_file + "') &";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
}

// Waits up to `seconds` for `ready`; false if it never came.
template <typename Ready>
bool wait_for(Ready ready, double seconds) {
  for (int i = 0; i < seconds * 20; ++i) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ready();
}

size_t log_lines(const std::string& run) {
  std::ifstream in(run + "/log.jsonl");
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

int exit_code(const std::string& code_file) {
  return file_exists(code_file) ? std::stoi(read_file(code_file)) : -1;
}

class Distributed : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!mpi_available()) GTEST_SKIP() << "no MPI in this build, or no mpirun";
    dir_ = fresh_dir("dist");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  // One process: `tinylm train`.
  void train_one(const std::string& cfg, const std::string& out, const std::string& more = "") {
    const RunResult r = run_tinylm("train --quiet --config " + cfg + " --out " + out + more);
    ASSERT_EQ(r.code, 0) << r.output;
  }
  void train_mpi(int np, const std::string& cfg, const std::string& out,
                 const std::string& more = "") {
    const RunResult r =
        run_mpi("-np " + std::to_string(np) + " " +
                tinylm_args("train --quiet --config " + cfg + " --out " + out + more));
    ASSERT_EQ(r.code, 0) << r.output;
  }
  std::string dir_;
};

// Test 2: N ranks x 1 micro-batch == 1 process accumulating N micro-batches, bit for bit
// (dist.reduce = ordered), for N = 2, 3, 4; dropout on, tied head.
TEST_F(Distributed, RanksEqualOneProcessAccumulatingBitForBit) {
  for (int n : {2, 3, 4}) {
    SCOPED_TRACE("ranks " + std::to_string(n));
    const std::string cfg = config(dir_, {{"grad_accum", n}});
    const std::string one = dir_ + "/one-" + std::to_string(n),
                      many = dir_ + "/mpi-" + std::to_string(n);
    train_one(cfg, one, " --set dist.reduce=ordered");
    train_mpi(n, cfg, many, " --set dist.reduce=ordered");
    EXPECT_TRUE(checkpoint_state_bytes(one + "/last.safetensors") ==
                checkpoint_state_bytes(many + "/last.safetensors"));
    EXPECT_EQ(losses(one), losses(many));
    EXPECT_EQ(losses(one).size(), 6u);
  }
}

// Test 2 for a LoRA run: 2 ranks == 1 process accumulating 2 micro-batches, bit for bit.
TEST_F(Distributed, ALoraRunOnTwoRanksEqualsOneProcessBitForBit) {
  const std::string cfg = distributed_lora_config(dir_, 2);
  const std::string one = dir_ + "/one", two = dir_ + "/two";
  train_one(cfg, one, " --set dist.reduce=ordered");
  train_mpi(2, cfg, two, " --set dist.reduce=ordered");
  EXPECT_TRUE(checkpoint_state_bytes(one + "/last.safetensors") ==
              checkpoint_state_bytes(two + "/last.safetensors"));
  EXPECT_EQ(losses(one), losses(two));
  EXPECT_EQ(losses(one).size(), 4u);
  EXPECT_TRUE(std::filesystem::exists(two + "/adapter/adapter_model.safetensors"));
}

// Test 5: (world, batch, accumulation) at one global batch of 8, with dropout (keyed by
// sequence, so every split draws the same masks): the same losses within float tolerance
// (MPI's sum, and matrix products of other sizes, group the additions their own way).
TEST_F(Distributed, WorldBatchAndAccumulationAtOneGlobalBatchAgree) {
  struct Shape {
    int world, batch;
  };
  std::vector<std::vector<double>> runs;
  for (const Shape s : {Shape{1, 8}, Shape{1, 4}, Shape{2, 4}, Shape{2, 2}}) {
    const std::string cfg = config(dir_, {{"batch_size", s.batch}, {"global_batch", 8}}, 0.2);
    const std::string out = dir_ + "/w" + std::to_string(s.world) + "b" + std::to_string(s.batch);
    if (s.world == 1)
      train_one(cfg, out);
    else
      train_mpi(s.world, cfg, out);
    runs.push_back(losses(out));
  }
  for (size_t r = 1; r < runs.size(); ++r) {
    ASSERT_EQ(runs[r].size(), runs[0].size());
    for (size_t i = 0; i < runs[0].size(); ++i)
      EXPECT_NEAR(runs[r][i], runs[0][i], 1e-5 * std::abs(runs[0][i]))
          << "run " << r << " step " << i + 1;
  }
}

// Tests 1 and 3: ranks started with different seeds (MPMD) hold rank 0's parameters after
// the start, and the same parameters after every step (dist.check_replicas stops with
// exit 1 when they differ).
TEST_F(Distributed, RanksSeededDifferentlyHoldRankZerosParametersAtEveryStep) {
  const std::string cfg = config(dir_, {{"grad_accum", 2}});
  const std::string args = "train --quiet --config " + cfg + " --out " + dir_ +
                           "/run --set dist.check_replicas=true --set train.seed=";
  const RunResult r =
      run_mpi("-np 1 " + tinylm_args(args + "7") + " : -np 1 " + tinylm_args(args + "8"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(losses(dir_ + "/run").size(), 6u);
}

// Test 6: a run saved on 2 ranks resumes on 1, and one saved on 1 resumes on 2: both equal
// the uninterrupted run bit for bit (ordered mode).
TEST_F(Distributed, ResumesAtAnotherWorldSizeAsIfUninterrupted) {
  const std::string cfg = config(dir_, {{"grad_accum", 2}});
  const std::string whole = dir_ + "/whole", a = dir_ + "/two-then-one", b = dir_ + "/one-then-two";
  const std::string ordered = " --set dist.reduce=ordered";
  train_one(cfg, whole, ordered);
  train_mpi(2, cfg, a, ordered + " --stop-after 3");
  train_one(cfg, a, ordered + " --resume");
  train_one(cfg, b, ordered + " --stop-after 3");
  train_mpi(2, cfg, b, ordered + " --resume");
  EXPECT_TRUE(checkpoint_state_bytes(whole + "/last.safetensors") ==
              checkpoint_state_bytes(a + "/last.safetensors"));
  EXPECT_TRUE(checkpoint_state_bytes(whole + "/last.safetensors") ==
              checkpoint_state_bytes(b + "/last.safetensors"));
  EXPECT_EQ(losses(whole), losses(a));
  EXPECT_EQ(losses(whole), losses(b));
}

// Fine-tuning a classifier on 2 ranks (each half of every batch) == one process, to float
// rounding, dropout on (keyed by sequence); rank 0 alone writes what a finished run writes.
TEST_F(Distributed, AClassifierFineTunedOnTwoRanksLearnsWhatOneProcessLearns) {
  const std::string data = write_spam_file(dir_ + "/spam.tsv", 45);
  nlohmann::json settings = tiny_classify_settings();
  settings["model"]["dropout"] = 0.1;
  const std::string cfg = dir_ + "/classify.json";
  std::ofstream(cfg) << settings.dump(2);
  const std::string args =
      "finetune --quiet --task classify --base gpt2-124m --data " + data + " --config " + cfg;
  const RunResult one = run_tinylm(args + " --out " + dir_ + "/one");
  ASSERT_EQ(one.code, 0) << one.output;
  const RunResult two = run_mpi(
      "-np 2 " + tinylm_args(args + " --out " + dir_ + "/two --set dist.check_replicas=true"));
  ASSERT_EQ(two.code, 0) << two.output;
  const std::vector<double> a = losses(dir_ + "/one"), b = losses(dir_ + "/two");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 5u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * std::abs(a[i])) << i;
  EXPECT_TRUE(file_exists(dir_ + "/two/results.json"));
  EXPECT_TRUE(file_exists(dir_ + "/two/accuracy-before.json"));
}

// Ctrl-C on mpirun: every rank stops after the same step, rank 0 saves a checkpoint, and
// the run resumes from it.
TEST_F(Distributed, CtrlCOnMpirunSavesACheckpointThatResumes) {
  const std::string cfg = config(dir_, {{"grad_accum", 2},
                                        {"max_steps", 1000000},
                                        {"checkpoint_interval", 1000000},
                                        {"eval_interval", 1000000}});
  const std::string run = dir_ + "/run", code = dir_ + "/code";
  start_mpi("-np 2 " + tinylm_args("train --quiet --config " + cfg + " --out " + run), code);
  ASSERT_TRUE(wait_for([&] { return log_lines(run) >= 5; }, 60)) << "no steps logged";
  ASSERT_EQ(std::system(("pkill -INT -f -- '^mpirun --oversubscribe -np 2 .*" + run + "'").c_str()),
            0);
  ASSERT_TRUE(wait_for([&] { return file_exists(code); }, 60)) << "mpirun did not end";
  EXPECT_NE(exit_code(code), 0);
  ASSERT_TRUE(file_exists(run + "/last.safetensors"));
  const int64_t saved = static_cast<int64_t>(log_lines(run)) - 1;  // step 0's evaluation
  train_mpi(2, cfg, run, " --resume --set train.max_steps=" + std::to_string(saved + 2));
  EXPECT_EQ(log_lines(run), static_cast<size_t>(saved + 1 + 2 + 1));  // + 2 steps + evaluation
}

// Test 7: a rank killed mid-run ends the job within seconds with a non-zero exit; the last
// checkpoint stays whole and resumes.
TEST_F(Distributed, AKilledRankEndsTheJobAndTheCheckpointStays) {
  const std::string cfg = config(dir_, {{"grad_accum", 2},
                                        {"max_steps", 1000000},
                                        {"checkpoint_interval", 5},
                                        {"eval_interval", 1000000}});
  const std::string run = dir_ + "/run", code = dir_ + "/code";
  start_mpi("-np 2 " + tinylm_args("train --quiet --config " + cfg + " --out " + run), code);
  ASSERT_TRUE(wait_for([&] { return log_lines(run) >= 12; }, 60)) << "no checkpoint yet";
  // The ranks are mpirun's children; kill one of them.
  const std::string kill = "pkill -KILL -n -P $(pgrep -f -- '^mpirun --oversubscribe -np 2 .*" +
                           run + "' | head -1) tinylm";
  ASSERT_EQ(std::system(kill.c_str()), 0);
  ASSERT_TRUE(wait_for([&] { return file_exists(code); }, 30)) << "the job hangs";
  EXPECT_NE(exit_code(code), 0);
  const RunResult resumed =
      run_tinylm("train --quiet --config " + cfg + " --out " + run +
                 " --resume --set train.max_steps=" + std::to_string(log_lines(run) + 5));
  EXPECT_EQ(resumed.code, 0) << resumed.output;
}

// A global batch the ranks cannot share equally: exit 2 naming it, nothing written.
TEST_F(Distributed, AGlobalBatchTheRanksCannotShareIsRefused) {
  const std::string cfg = config(dir_, {{"grad_accum", 3}});
  const RunResult r =
      run_mpi("-np 2 " + tinylm_args("train --quiet --config " + cfg + " --out " + dir_ + "/run"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("2 ranks cannot share equally"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/run"));
}

// Test 7: one rank given a bad input ends the job promptly (no rank waits forever in a
// collective) with a non-zero exit.
TEST_F(Distributed, ARankWithABadInputEndsTheJob) {
  const std::string cfg = config(dir_, {{"grad_accum", 2}});
  const std::string args = "train --quiet --out " + dir_ + "/run --config ";
  const RunResult r = run_mpi("-np 1 " + tinylm_args(args + cfg) + " : -np 1 " +
                              tinylm_args(args + dir_ + "/missing.json"));
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 137) << "the job hung until the timeout killed it\n" << r.output;
  EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
}

// Ranks started with different loop settings (here --stop-after on one) would wait for
// each other in a collective forever: refused at the start, exit 2, nothing written.
TEST_F(Distributed, RanksGivenDifferentStepsOrStopsAreRefused) {
  const std::string cfg = config(dir_, {{"grad_accum", 2}});
  const std::string args = "train --quiet --out " + dir_ + "/run --config " + cfg;
  const RunResult r =
      run_mpi("-np 1 " + tinylm_args(args) + " : -np 1 " + tinylm_args(args + " --stop-after 3"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("different settings"), std::string::npos) << r.output;
  EXPECT_FALSE(file_exists(dir_ + "/run/last.safetensors"));
}

}  // namespace
}  // namespace tinylm::testing
