// Reliability of `tinylm train` and its run folder: a run
// never writes into a folder it did not create, every state a run can be left in is
// resumable or says what it holds, the whole config is checked before step 1, one run
// at a time per folder, no checkpoint with non-finite weights, the tokenizer travels
// with the run, and --resume changes only what may change.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "run/checkpoint.h"
#include "util/source_dir.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

// A 1-layer model on the-verdict.txt: a few hundred milliseconds per run.
std::string tiny_config(
    const std::string& dir, const std::string& extra_train = "",
    const std::string& data = R"("path": "data/the-verdict.txt", "tokenizer": "char")") {
  const std::string path = dir + "/tiny.json";
  // extra_train (", \"key\": value, ...") overrides fields of the train section.
  nlohmann::json j = nlohmann::json::parse(R"({
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {)" + data + R"(},
  "train": {"batch_size": 4, "max_steps": 20, "warmup_steps": 2, "eval_interval": 5,
            "eval_iters": 2, "log_interval": 1, "checkpoint_interval": 5, "seed": 7},
  "sample": {"max_new_tokens": 0}
})");
  if (!extra_train.empty()) {
    std::string fields = extra_train.substr(1);
    fields.insert(0, 1, '{');
    fields += '}';
    j["train"].update(nlohmann::json::parse(fields));
  }
  std::ofstream(path) << j.dump(2);
  return path;
}

// Every file under dir with its bytes.
std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[e.path().string()] = read_file(e.path().string());
  return files;
}

int64_t step_of(const std::string& checkpoint) {
  return read_checkpoint_state(checkpoint).step;
}

// A folder tinylm did not create is refused, and nothing in it is touched.
TEST(RunFolder, ForeignFolderIsRefusedUntouched) {
  const std::string dir = fresh_dir("foreign");
  const std::string cfg = tiny_config(dir);
  const std::string hf = dir + "/hf-model";
  fs::create_directories(hf);
  std::ofstream(hf + "/config.json") << R"({"model_type": "gpt2", "n_embd": 48})";
  std::ofstream(hf + "/notes.txt") << "my notes";
  const auto before = snapshot(hf);
  expect_exit(2, "train --quiet --config " + cfg + " --out " + hf, "not a tinylm run folder");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + hf + " --resume",
              "not a tinylm run folder");
  EXPECT_EQ(snapshot(hf), before);
  // A file given as the run folder.
  expect_exit(2, "train --quiet --config " + cfg + " --out " + hf + "/notes.txt",
              "is not a folder");
  // An empty folder is fine, and becomes a run folder.
  fs::create_directories(dir + "/empty");
  const RunResult ok =
      run_tinylm("train --quiet --config " + cfg + " --out " + dir + "/empty --stop-after 5");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_TRUE(file_exists(dir + "/empty/.tinylm-run"));
  fs::remove_all(dir);
}

// best.safetensors without last.safetensors (kill -9 after an evaluation, before
// the first checkpoint) resumes from best; a fresh run says what is there.
TEST(RunFolder, BestWithoutLastResumes) {
  const std::string dir = fresh_dir("bestonly");
  const std::string cfg = tiny_config(dir, R"(, "checkpoint_interval": 1000)");
  const std::string run = dir + "/run";
  ASSERT_EQ(
      run_tinylm("train --quiet --config " + cfg + " --out " + run + " --set train.max_steps=10")
          .code,
      0);
  fs::remove(run + "/last.safetensors");  // what kill -9 before the first checkpoint leaves
  const int64_t best = step_of(run + "/best.safetensors");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run,
              "best.safetensors (step " + std::to_string(best) + ") but no last.safetensors");
  const RunResult r = run_tinylm("train --quiet --config " + cfg + " --out " + run +
                                 " --resume --set train.max_steps=15");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(step_of(run + "/last.safetensors"), 15);
  // A folder whose run stopped before any checkpoint: --resume says so, a new run starts.
  const std::string early = dir + "/early";
  fs::create_directories(early);
  std::ofstream(early + "/.tinylm-run").close();
  std::ofstream(early + "/log.jsonl") << R"({"step": 1, "loss": 4.0})"
                                      << "\n";
  expect_exit(2, "train --quiet --config " + cfg + " --out " + early + " --resume",
              "holds no checkpoint yet");
  EXPECT_EQ(
      run_tinylm("train --quiet --config " + cfg + " --out " + early + " --stop-after 2").code, 0);
  fs::remove_all(dir);
}

// A damaged checkpoint stops --resume, naming it, and nothing in the folder changes:
// resuming from the other checkpoint would write over it and over the log of its steps.
TEST(RunFolder, ResumeRefusesADamagedCheckpoint) {
  const std::string dir = fresh_dir("damaged");
  const std::string cfg = tiny_config(dir);
  const std::string run = dir + "/run";
  ASSERT_EQ(run_tinylm("train --quiet --config " + cfg + " --out " + run).code, 0);
  for (const char* name : {"last.safetensors", "best.safetensors"}) {
    const std::string path = run + "/" + name;
    const std::string good = read_file(path);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() / 2);
    const auto before = snapshot(run);
    expect_exit(
        2, "train --quiet --config " + cfg + " --out " + run + " --resume --set train.max_steps=25",
        std::string(name) + " cannot be read");
    EXPECT_EQ(snapshot(run), before) << name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << good;
  }
  fs::remove_all(dir);
}

// The sample settings and prompt are checked before step 1 (no folder is made).
TEST(RunFolder, SampleSettingsAreCheckedBeforeStepOne) {
  const std::string dir = fresh_dir("samplecheck");
  const std::string cfg = tiny_config(dir);
  const std::string run = dir + "/run";
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run + " --set sample.top_k=-1",
              "sample.top_k");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run + " --set sample.temperature=-1",
              "sample.temperature");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run + " --set sample.top_p=1.5",
              "sample.top_p");
  expect_exit(2,
              "train --quiet --config " + cfg + " --out " + run +
                  " --set sample.max_new_tokens=5 --set 'sample.prompt=\xE4\xB8\xAD'",
              "sample.prompt");
  EXPECT_FALSE(fs::exists(run));
  fs::remove_all(dir);
}

// A second run into a folder in use (fresh or --resume) is refused.
TEST(RunFolder, SecondRunIntoALockedFolderIsRefused) {
  const std::string dir = fresh_dir("lock");
  const std::string cfg = tiny_config(dir, R"(, "max_steps": 1000000, "checkpoint_interval": 20)");
  const std::string run = dir + "/run";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::chdir(tinylm::source_dir());
    std::freopen("/dev/null", "w", stdout);
    ::execl(tinylm_bin(), tinylm_bin(), "train", "--quiet", "--config", cfg.c_str(), "--out",
            run.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  for (int i = 0; i < 300 && !file_exists(run + "/last.safetensors"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string log_before = read_file(run + "/log.jsonl");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run + " --resume",
              "in use by another tinylm run");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run, "in use by another tinylm run");
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 130);
  // The running run's log was only appended to.
  EXPECT_EQ(read_file(run + "/log.jsonl").rfind(log_before, 0), 0u);
  fs::remove_all(dir);
}

// An lr that overflows float is bad input; no checkpoint is ever written with
// non-finite weights.
TEST(RunFolder, NonFiniteSettingsAndWeightsAreRefused) {
  const std::string dir = fresh_dir("nonfinite");
  const std::string cfg = tiny_config(dir, R"(, "checkpoint_interval": 1)");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + dir + "/r1 --set train.lr=1e39",
              "train.lr");
  EXPECT_FALSE(fs::exists(dir + "/r1"));
  // An lr that fits float but blows the weights up: the run stops with exit 1 and
  // every checkpoint it left holds finite weights.
  const RunResult r =
      run_tinylm("train --quiet --config " + cfg + " --out " + dir +
                 "/r2 --set train.lr=3e38 --set train.min_lr=0 --set train.grad_clip=0 "
                 "--set train.warmup_steps=0");
  EXPECT_EQ(r.code, 1) << r.output;
  for (const char* name : {"/r2/last.safetensors", "/r2/best.safetensors"}) {
    if (!file_exists(dir + name)) continue;
    const SafeTensors f = load_safetensors(dir + name);
    for (const auto& tensor_name : f.names) {
      const Tensor t = f.get(tensor_name).to_float();
      for (int64_t i = 0; i < t.numel(); ++i)
        ASSERT_TRUE(std::isfinite(t[i])) << name << " " << tensor_name;
    }
  }
  fs::remove_all(dir);
}

// On --resume only some settings may change; max_steps <= the step is refused;
// config.json is never rewritten by a refused resume.
TEST(RunFolder, ResumeChangesOnlyWhatMayChange) {
  const std::string dir = fresh_dir("resumechange");
  const std::string cfg = tiny_config(dir);
  const std::string run = dir + "/run";
  ASSERT_EQ(run_tinylm("train --quiet --config " + cfg + " --out " + run + " --stop-after 10").code,
            0);
  const std::string config_before = read_file(run + "/config.json");
  expect_exit(
      2, "train --quiet --config " + cfg + " --out " + run + " --resume --set train.batch_size=8",
      "train.batch_size");
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run + " --resume --set train.seed=8",
              "train.seed");
  expect_exit(
      2,
      "train --quiet --config " + cfg + " --out " + run + " --resume --set data.val_fraction=0.2",
      "data.val_fraction");
  expect_exit(
      2, "train --quiet --config " + cfg + " --out " + run + " --resume --set train.max_steps=10",
      "train.max_steps");
  expect_exit(
      2, "train --quiet --config " + cfg + " --out " + run + " --resume --set train.max_steps=4",
      "already at step 10");
  EXPECT_EQ(read_file(run + "/config.json"), config_before);
  // Intervals and more steps may change.
  const RunResult ok = run_tinylm("train --quiet --config " + cfg + " --out " + run +
                                  " --resume --set train.max_steps=25 --set train.eval_interval=7");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_EQ(step_of(run + "/last.safetensors"), 25);
  fs::remove_all(dir);
}

// A BPE vocabulary is stored in the run: sampling needs neither the folder it
// came from nor the working directory, and a vocabulary retrained in place is refused.
TEST(RunFolder, BpeTokenizerIsStoredInTheRun) {
  const std::string dir = fresh_dir("bpestore");
  const std::string vocab = dir + "/vocab";
  ASSERT_EQ(
      run_tinylm("bpe-train --corpus data/the-verdict.txt --vocab-size 300 --out " + vocab).code,
      0);
  const std::string cfg =
      tiny_config(dir, "", R"("path": "data/the-verdict.txt", "tokenizer": ")" + vocab + "\"");
  const std::string run = dir + "/run";
  ASSERT_EQ(run_tinylm("train --quiet --config " + cfg + " --out " + run + " --stop-after 5").code,
            0);
  // Retrained in place with another size: the ids would mean other tokens.
  ASSERT_EQ(
      run_tinylm("bpe-train --corpus data/the-verdict.txt --vocab-size 280 --out " + vocab).code,
      0);
  expect_exit(2, "train --quiet --config " + cfg + " --out " + run + " --resume",
              "different vocabulary");
  fs::remove_all(vocab);
  const RunResult r =
      run_tinylm("sample --run " + run + " --prompt 'I had' --max-new-tokens 5 --seed 1");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("I had", 0), 0u) << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
