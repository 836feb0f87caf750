// The training command end to end on a tiny config: exact resume, Ctrl-C, NaN, and
// every kind of bad input (one clear message, exit code 2, nothing saved is lost).
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "cli/cli_test_util.h"
#include "cli/tiny_train.h"
#include "io/safetensors.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

TEST(TrainCli, ResumeContinuesBitIdentically) {
  const std::string dir = fresh_dir("resume");
  const std::string cfg = train_config(dir);
  auto whole = run_tinylm("train --quiet --config " + cfg + " --out " + dir +
                          "/whole --set train.threads=1");
  ASSERT_EQ(whole.code, 0) << whole.output;
  auto half = run_tinylm("train --quiet --config " + cfg + " --out " + dir +
                         "/split --stop-after 10 --set train.threads=1");
  ASSERT_EQ(half.code, 0) << half.output;
  auto rest = run_tinylm("train --quiet --config " + cfg + " --out " + dir +
                         "/split --resume --set train.threads=1");
  ASSERT_EQ(rest.code, 0) << rest.output;

  EXPECT_EQ(checkpoint_state_bytes(dir + "/whole/last.safetensors"),
            checkpoint_state_bytes(dir + "/split/last.safetensors"));
  const auto a = logged_losses(dir + "/whole/log.jsonl"),
             b = logged_losses(dir + "/split/log.jsonl");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "log entry " << i;
  std::filesystem::remove_all(dir);
}

TEST(TrainCli, EachLoggedStepSaysWhereItsTimeWent) {
  const std::string dir = fresh_dir("step_ms");
  const std::string cfg = train_config(dir);
  auto run = run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/run");
  ASSERT_EQ(run.code, 0) << run.output;
  std::ifstream in(dir + "/run/log.jsonl");
  std::string line;
  int steps = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (!j.contains("loss")) continue;
    ++steps;
    ASSERT_TRUE(j.contains("step_ms")) << line;
    const auto& ms = j["step_ms"];
    double parts = 0;
    for (const char* part : {"zero_grad", "forward_backward", "clip", "optimizer"}) {
      ASSERT_TRUE(ms.contains(part)) << part << " in " << line;
      EXPECT_GE(ms[part].get<double>(), 0.0) << part;
      parts += ms[part].get<double>();
    }
    EXPECT_GT(ms["forward_backward"].get<double>(), 0.0) << line;
    EXPECT_LE(parts, ms["all"].get<double>() * (1 + 1e-9)) << line;  // parts of one step's time
  }
  EXPECT_EQ(steps, 20);
  std::filesystem::remove_all(dir);
}

TEST(TrainCli, InterruptSavesACheckpointAndResumes) {
  const std::string dir = fresh_dir("sigint");
  const std::string cfg =
      train_config(dir, R"(, "max_steps": 1000000, "checkpoint_interval": 1000000)");
  const std::string out = dir + "/run";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::chdir(tinylm::source_dir());
    std::freopen("/dev/null", "w", stdout);
    ::execl(tinylm_bin(), tinylm_bin(), "train", "--quiet", "--config", cfg.c_str(), "--out",
            out.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // Wait until training is under way (a few steps logged), then press Ctrl-C.
  for (int i = 0; i < 300; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (file_exists(out + "/log.jsonl") && read_file(out + "/log.jsonl").size() > 300) break;
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  ASSERT_TRUE(file_exists(out + "/last.safetensors"));
  auto resumed = run_tinylm("train --quiet --config " + cfg + " --out " + out +
                            " --resume --stop-after 1");  // already past step 1: stops at once
  EXPECT_EQ(resumed.code, 0) << resumed.output;
  std::filesystem::remove_all(dir);
}

TEST(TrainCli, NanLossStopsAndKeepsTheLastGoodCheckpoint) {
  const std::string dir = fresh_dir("nan");
  // An absurd learning rate without clipping overflows the weights within a few steps;
  // a checkpoint every step keeps the last one whose weights were finite.
  const std::string cfg = train_config(
      dir,
      R"(, "lr": 1e30, "min_lr": 0, "grad_clip": 0, "warmup_steps": 0, "checkpoint_interval": 1)");
  auto r = run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/run");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_TRUE(r.output.find("the loss became") != std::string::npos ||
              r.output.find("is not finite") != std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("last good checkpoint"), std::string::npos) << r.output;
  const SafeTensors f = load_safetensors(dir + "/run/last.safetensors");
  for (const auto& name : f.names) {
    const Tensor t = f.get(name).to_float();
    for (int64_t i = 0; i < t.numel(); ++i) ASSERT_TRUE(std::isfinite(t[i])) << name;
  }
  std::filesystem::remove_all(dir);
}

// Each bad input: exit code 2, one message naming the problem.
void expect_input_error(const std::string& args, const std::string& message) {
  auto r = run_tinylm(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

TEST(TrainCli, BadInputGivesExitCode2AndLosesNothing) {
  const std::string dir = fresh_dir("bad");
  const std::string cfg = train_config(dir);
  std::ofstream(dir + "/empty.txt").close();
  std::ofstream(dir + "/short.txt") << "abc";
  std::ofstream(dir + "/latin1.txt") << "caf\xE9 au lait";
  std::ofstream(dir + "/broken.json") << "{\"model\": ";

  // Corpora that cannot be trained on, and the words their message has.
  const std::pair<const char*, const char*> bad_corpora[] = {
      {"missing.txt", "missing.txt"},
      {"empty.txt", "empty"},
      {"short.txt", "too short"},
      {"latin1.txt", "invalid UTF-8 at byte 3"}};
  int run = 0;
  for (const auto& [file, words] : bad_corpora)
    expect_input_error("train --config " + cfg + " --out " + dir + "/r" + std::to_string(++run) +
                           " --set data.path=" + dir + "/" + file,
                       words);
  expect_input_error("train --config " + dir + "/broken.json", "not valid JSON");
  expect_input_error("train --config " + cfg + " --out " + dir + "/r5 --set train.lr=fast",
                     "train.lr must be a number");
  expect_input_error("train --config " + cfg + " --out " + dir + "/r6 --set train.learning_rate=1",
                     "unknown field train.learning_rate");
  expect_input_error("train --config " + cfg + " --out " + dir + "/r7 --set model.n_head=3",
                     "model.d_model");

  // A finished run is never overwritten, and resuming it with another model is refused.
  ASSERT_EQ(
      run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/run --stop-after 5").code,
      0);
  const std::string saved = read_file(dir + "/run/last.safetensors");
  expect_input_error("train --config " + cfg + " --out " + dir + "/run",
                     "already holds last.safetensors");
  expect_input_error(
      "train --config " + cfg + " --out " + dir + "/run --resume --set model.d_model=32",
      "different model config");
  EXPECT_EQ(read_file(dir + "/run/last.safetensors"), saved);

  // Sampling: unknown characters are named; a truncated checkpoint is reported.
  expect_input_error("sample --run " + dir + "/run --prompt 'caf\xC3\xA9' --max-new-tokens 5",
                     "U+00E9");
  const std::string truncated = dir + "/truncated.safetensors";
  std::ofstream(truncated) << saved.substr(0, saved.size() / 2);
  expect_input_error("sample --checkpoint " + truncated + " --max-new-tokens 5",
                     "truncated.safetensors");
  expect_input_error("sample --run " + dir + "/run --temperature 0", "--temperature");
  std::filesystem::remove_all(dir);
}

TEST(TrainCli, PresetReplacesTheModelSection) {
  const std::string dir = fresh_dir("preset");
  const std::string cfg = train_config(dir);
  // GPT-2's shape has GPT-2's vocabulary, which a char corpus cannot fill.
  expect_input_error("train --config " + cfg + " --out " + dir + "/r --preset gpt2-124m",
                     "model.vocab_size is 50257 but the tokenizer has");
  expect_input_error("train --config " + cfg + " --out " + dir + "/r --preset gpt2-7b",
                     "unknown preset 'gpt2-7b'");
  EXPECT_FALSE(std::filesystem::exists(dir + "/r/last.safetensors"));
  std::filesystem::remove_all(dir);
}

TEST(TrainCli, SampleStreamsAPromptLongerThanTheContext) {
  const std::string dir = fresh_dir("sample");
  const std::string cfg = train_config(dir);
  ASSERT_EQ(run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/run").code, 0);
  const std::string prompt(100, 'e');  // 100 characters > block_size 16: the last 16 are kept
  auto r = run_tinylm("sample --run " + dir + "/run --prompt " + prompt +
                      " --max-new-tokens 20 --seed 3");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.rfind(prompt, 0), 0u);
  EXPECT_GE(r.output.size(), prompt.size() + 20);  // 20 characters (char tokenizer) + newline
  auto again = run_tinylm("sample --run " + dir + "/run --prompt " + prompt +
                          " --max-new-tokens 20 --seed 3 --no-cache");
  EXPECT_EQ(again.output, r.output);  // the KV cache changes nothing
  auto eval = run_tinylm("eval --run " + dir + "/run");
  EXPECT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("bits per character"), std::string::npos) << eval.output;
  std::filesystem::remove_all(dir);
}

TEST(Cli, EveryVerbHasHelp) {
  for (const char* verb : {"train", "sample", "eval", "prepare", "generate", "verify", "tokenize",
                           "bpe-train", "info", "attention", "plot", "embeddings"}) {
    auto r = run_tinylm(std::string(verb) + " --help");
    EXPECT_EQ(r.code, 0) << verb << "\n" << r.output;
    EXPECT_NE(r.output.find("--"), std::string::npos) << verb;
  }
  EXPECT_EQ(run_tinylm("frobnicate").code, 2);
}

}  // namespace
}  // namespace tinylm::testing
