// The one training loop (train/loop.h) with a task of its own: one weight w learning
// w -> target under a squared loss. Checks what every task gets from the loop: the
// steps and checkpoints, gradient accumulation, and the non-finite guard (a run that
// meets a NaN stops with exit 1 and never writes it into a checkpoint).
#include "train/loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "run/checkpoint.h"
#include "tokenizer/char_tokenizer.h"
#include "train/interrupt.h"
#include "util/files.h"

namespace tinylm {
namespace {

namespace fs = std::filesystem;

std::string fresh_dir(const std::string& name) {
  const std::string dir = (fs::temp_directory_path() / ("tinylm-loop-" + name)).string();
  fs::remove_all(dir);
  return dir;
}

// loss = (w - 3)^2 per micro-batch; from `nan_at` on (a 0-based step), the gradient is NaN.
class SquareTask : public TrainingTask {
 public:
  SquareTask(Parameter& w, int64_t nan_at) : w_(w), nan_at_(nan_at) {}
  MicroStep train_micro(int64_t step, int64_t micro, float scale, const nn::Context&) override {
    if (step == interrupt_at_step && micro == 1) request_interrupt();  // as if Ctrl-C came now
    const float diff = w_.value[0] - 3.0f;
    w_.grad[0] += step >= nan_at_ ? std::numeric_limits<float>::quiet_NaN() : 2 * diff * scale;
    ++micro_batches;
    return {static_cast<double>(diff) * diff, 1};
  }
  Evaluation evaluate(int64_t step) override {
    Evaluation e;
    e.fields = {{"w", w_.value[0]}};
    e.line = "step " + std::to_string(step);
    return e;
  }
  int64_t micro_batches = 0;
  int64_t interrupt_at_step = -1;

 private:
  Parameter& w_;
  int64_t nan_at_;
};

struct SquareRun {
  Parameter w{Shape{1}, false};
  CharTokenizer tokenizer{std::vector<char32_t>{U'a', U'b'}};
  std::unique_ptr<RunSession> session;
  explicit SquareRun(const std::string& dir) {
    RunFolderPlan folder = plan_run_folder(dir, "train", false);
    session = std::make_unique<RunSession>(std::move(folder), ParameterList{{"w", &w}},
                                           AdamWConfig{0.1f, 0.9f, 0.95f, 1e-8f, 0.0f}, 1);
    session->begin(nlohmann::json::object(), tokenizer);
  }
};

LoopSettings settings(int64_t steps) {
  LoopSettings s;
  s.program = "loop test";
  s.total_steps = steps;
  s.schedule = {0.1, 0.1, 0, 0};
  s.quiet = true;
  return s;
}

TEST(TrainingLoop, RunsEveryStepWithItsMicroBatchesAndLearns) {
  const std::string dir = fresh_dir("learns");
  SquareRun run(dir);
  SquareTask task(run.w, 1000);
  LoopSettings s = settings(40);
  s.micro_batches = 3;
  s.checkpoint_interval = 10;
  ASSERT_EQ(run_training_loop(task, *run.session, s), 0);
  EXPECT_EQ(run.session->step, 40);
  EXPECT_EQ(task.micro_batches, 120);
  EXPECT_NEAR(run.w.value[0], 3.0f, 0.5f);
  EXPECT_EQ(read_checkpoint_state(dir + "/last.safetensors").step, 40);
  fs::remove_all(dir);
}

TEST(TrainingLoop, ANanStopsTheRunWithoutWritingACheckpoint) {
  const std::string dir = fresh_dir("nan");
  SquareRun run(dir);
  SquareTask task(run.w, 5);  // the loss stays finite; the gradient of step 6 is NaN
  LoopSettings s = settings(20);
  s.checkpoint_interval = 1;
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_training_loop(task, *run.session, s), 1);
  const std::string message = testing::internal::GetCapturedStderr();
  EXPECT_NE(message.find("weight w is not finite at step 6"), std::string::npos) << message;
  EXPECT_NE(message.find("last good checkpoint"), std::string::npos) << message;
  // The last checkpoint is step 5's, with finite weights and moments.
  const CheckpointState saved = read_checkpoint_state(dir + "/last.safetensors");
  EXPECT_EQ(saved.step, 5);
  Parameter loaded(Shape{1}, false);
  AdamW opt({{"w", &loaded}}, AdamWConfig{});
  load_checkpoint(dir + "/last.safetensors", {{"w", &loaded}}, &opt);
  EXPECT_TRUE(std::isfinite(loaded.value[0]));
  EXPECT_TRUE(first_non_finite({{"w", &loaded}}, opt).empty());
  fs::remove_all(dir);
}

// Ctrl-C inside a step of many micro-batches is honoured at the next micro-batch: the
// step in progress is dropped and the checkpoint holds the last whole step.
TEST(TrainingLoop, AnInterruptInsideALongStepStopsAtTheNextMicroBatch) {
  const std::string dir = fresh_dir("interrupt");
  SquareRun run(dir);
  SquareTask task(run.w, 1000);
  task.interrupt_at_step = 3;  // the fourth step
  LoopSettings s = settings(20);
  s.micro_batches = 1000;
  s.checkpoint_interval = 100;
  EXPECT_EQ(run_training_loop(task, *run.session, s), 130);
  EXPECT_EQ(task.micro_batches, 3 * 1000 + 2);  // three whole steps, then two micro-batches
  EXPECT_EQ(run.session->step, 3);
  EXPECT_EQ(read_checkpoint_state(dir + "/last.safetensors").step, 3);
  fs::remove_all(dir);
}

// One rank of a data-parallel world, seen from inside: its rank and size, collectives
// that leave the data as it is (the other ranks are not there), except that a sum of
// doubles is the sum over ranks that all hold these numbers (the loop compares its
// settings across ranks that way).
class OneRankOf final : public dist::Communicator {
 public:
  OneRankOf(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override { return "test"; }
  void all_reduce_sum(float*, int64_t) override {}
  void all_reduce_sum(double* data, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) data[i] *= size_;
  }
  void all_reduce_ordered(float*, int64_t) override {}
  void all_reduce_ordered(double*, int64_t) override {}
  void broadcast(float*, int64_t) override {}
  void barrier() override {}
  [[noreturn]] void abort(int) override { std::abort(); }

 private:
  int rank_, size_;
};

// Which micro-batches a rank trains and which it only draws.
class RecordingTask : public SquareTask {
 public:
  using SquareTask::SquareTask;
  MicroStep train_micro(int64_t step, int64_t micro, float scale, const nn::Context& ctx) override {
    trained.push_back(step * 100 + micro);
    return SquareTask::train_micro(step, micro, scale, ctx);
  }
  void skip_micro(int64_t step, int64_t micro) override { skipped.push_back(step * 100 + micro); }
  std::vector<int64_t> trained, skipped;
};

// A rank whose fellow ranks hold other numbers: every sum of doubles is off by one.
class OtherRanksDiffer final : public dist::Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::string name() const override { return "test"; }
  void all_reduce_sum(float*, int64_t) override {}
  void all_reduce_sum(double* data, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) data[i] = 2 * data[i] + 1;
  }
  void all_reduce_ordered(float*, int64_t) override {}
  void all_reduce_ordered(double*, int64_t) override {}
  void broadcast(float*, int64_t) override {}
  void barrier() override {}
  [[noreturn]] void abort(int) override { std::abort(); }
};

// Ranks started with other steps or intervals (another --stop-after, say) would wait for
// each other forever in a collective: the loop refuses before its first step (2).
TEST(TrainingLoop, RanksWithOtherSettingsStopBeforeTheFirstStep) {
  const std::string dir = fresh_dir("ranks-differ");
  SquareRun run(dir);
  RecordingTask task(run.w, 1000);
  OtherRanksDiffer comm;
  LoopSettings s = settings(5);
  s.micro_batches = 2;
  s.comm = &comm;
  EXPECT_EQ(run_training_loop(task, *run.session, s), 2);
  EXPECT_TRUE(task.trained.empty());
  EXPECT_EQ(run.session->step, 0);
  fs::remove_all(dir);
}

// The ranks share every step's micro-batches: together they train each exactly once (the
// batches, and the sliding windows of an epoch, that one process trains), and each rank
// draws the others' (so that every rank's generators stay the same).
TEST(TrainingLoop, RanksShareEveryStepsMicroBatchesExactlyOnce) {
  for (int world : {2, 3}) {
    std::vector<int64_t> all_trained;
    for (int rank = 0; rank < world; ++rank) {
      const std::string dir = fresh_dir("ranks-" + std::to_string(world) + std::to_string(rank));
      SquareRun run(dir);
      RecordingTask task(run.w, 1000);
      OneRankOf comm(rank, world);
      LoopSettings s = settings(5);
      s.micro_batches = 2 * world;
      s.comm = &comm;
      ASSERT_EQ(run_training_loop(task, *run.session, s), 0);
      EXPECT_EQ(task.trained.size(), 5u * 2);
      EXPECT_EQ(task.skipped.size(), 5u * 2 * (world - 1));
      for (int64_t id : task.trained) EXPECT_EQ(id % 100 % world, rank);
      all_trained.insert(all_trained.end(), task.trained.begin(), task.trained.end());
      fs::remove_all(dir);
    }
    std::sort(all_trained.begin(), all_trained.end());
    std::vector<int64_t> once;
    for (int64_t step = 0; step < 5; ++step)
      for (int64_t micro = 0; micro < 2 * world; ++micro) once.push_back(step * 100 + micro);
    EXPECT_EQ(all_trained, once) << "world " << world;
  }
}

}  // namespace
}  // namespace tinylm
