// Writes never go through a symbolic link: links planted under every
// name tinylm writes in a run folder (logs, configs, tokenizers, checkpoints, reports,
// results, adapter and exported folders, the old fixed temp names), pointing at files
// and folders outside, leave what they point at as it was, content and time. A new log
// replaces a link; a resumed log or a lock file that is a link is refused (exit 2).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "finetune/finetune_test_util.h"

namespace tinylm::testing {
namespace {

namespace fs = std::filesystem;

// Files outside the run that links point at, with what they must keep.
class Outside {
 public:
  explicit Outside(const std::string& dir) : dir_(dir) { fs::create_directories(dir); }

  // A link at `at` to a new outside file holding `content`.
  void file(const std::string& at, const std::string& content = "precious") {
    const std::string target = new_name();
    std::ofstream(target) << content;
    kept_.push_back({target, content, fs::last_write_time(target)});
    fs::create_symlink(target, at);
  }
  // A link at `at` to an outside path that does not exist (and must not come to).
  void dangling(const std::string& at) {
    const std::string target = new_name();
    absent_.push_back(target);
    fs::create_symlink(target, at);
  }
  // A link at `at` to an outside folder holding the files `names`.
  void folder(const std::string& at, const std::vector<std::string>& names) {
    const std::string target = new_name();
    fs::create_directory(target);
    for (const auto& n : names) {
      std::ofstream(target + "/" + n) << "precious";
      kept_.push_back({target + "/" + n, "precious", fs::last_write_time(target + "/" + n)});
    }
    folders_.push_back({target, names.size()});
    fs::create_directory_symlink(target, at);
  }
  // Links at `dir/name` and at the old fixed temp name `dir/name.tmp`.
  void file_and_temp(const std::string& dir, const std::string& name) {
    file(dir + "/" + name);
    file(dir + "/" + name + ".tmp");
  }

  void expect_untouched() const {
    for (const auto& k : kept_) {
      EXPECT_EQ(read_file(k.path), k.content) << k.path;
      EXPECT_EQ(fs::last_write_time(k.path), k.time) << k.path;
    }
    for (const auto& a : absent_) EXPECT_FALSE(fs::exists(fs::symlink_status(a))) << a;
    for (const auto& [path, n] : folders_)
      EXPECT_EQ(std::distance(fs::directory_iterator(path), fs::directory_iterator()),
                static_cast<std::ptrdiff_t>(n))
          << path << " gained files";
  }

 private:
  struct Kept {
    std::string path, content;
    fs::file_time_type time;
  };
  std::string new_name() { return dir_ + "/" + std::to_string(count_++); }
  std::string dir_;
  int count_ = 0;
  std::vector<Kept> kept_;
  std::vector<std::string> absent_;
  std::vector<std::pair<std::string, size_t>> folders_;
};

// A LoRA run on gpt2-tiny (it writes adapter/ too), with a report and a checkpoint at
// step 2 and the last at step 4.
std::string links_lora_config(const std::string& dir) {
  std::ofstream(dir + "/lora.json") << R"({
  "model": {"block_size": 16},
  "data": {"path": "data/the-verdict.txt"},
  "train": {"init_from": "tests/fixtures/gpt2-tiny", "trainable": "lora",
            "batch_size": 2, "max_steps": 4, "lr": 1e-2, "warmup_steps": 1, "eval_interval": 2,
            "eval_iters": 1, "log_interval": 1, "checkpoint_interval": 2, "seed": 5, "threads": 1},
  "lora": {"r": 2, "alpha": 4, "targets": ["c_attn"]},
  "sample": {"max_new_tokens": 0}
})";
  return dir + "/lora.json";
}

// A run folder of tinylm's (its marker) with links under every name a train run, report
// and plot write.
void plant_train_links(Outside& outside, const std::string& run) {
  fs::create_directories(run + "/adapter");
  std::ofstream(run + "/.tinylm-run") << "a tinylm run folder (this file is also its lock)\n";
  for (const char* name : {"log.jsonl", "config.json", "tokenizer.json", "report.html", "loss.svg"})
    outside.file_and_temp(run, name);
  // A checkpoint that exists would be refused as work to --resume: dangling links.
  for (const char* name : {"last.safetensors", "best.safetensors"}) {
    outside.dangling(run + "/" + name);
    outside.file(run + "/" + name + ".tmp");
  }
  for (const char* name : {"adapter_config.json", "adapter_model.safetensors"})
    outside.file_and_temp(run + "/adapter", name);
}

TEST(RunLinks, TrainReportAndPlotNeverWriteThroughALink) {
  const std::string dir = fresh_dir("links-train");
  Outside outside(dir + "/outside");
  const std::string run = dir + "/run";
  plant_train_links(outside, run);
  auto r = run_tinylm("train --quiet --config " + links_lora_config(dir) + " --out " + run);
  ASSERT_EQ(r.code, 0) << r.output;
  outside.expect_untouched();
  // The run's own files took the links' places.
  for (const char* name : {"log.jsonl", "config.json", "report.html", "last.safetensors",
                           "best.safetensors", "adapter/adapter_config.json"})
    EXPECT_FALSE(fs::is_symlink(run + "/" + name)) << name;
  EXPECT_NE(read_file(run + "/log.jsonl").find("\"step\":4"), std::string::npos);

  // `report` and `plot` into the run, with the links planted again.
  fs::remove(run + "/report.html");
  outside.file(run + "/report.html");
  r = run_tinylm("report --run " + run);
  EXPECT_EQ(r.code, 0) << r.output;
  r = run_tinylm("plot --run " + run + " --out " + run + "/loss.svg");
  EXPECT_EQ(r.code, 0) << r.output;
  outside.expect_untouched();

  // A folder link at adapter/: replaced by a folder, the outside one gains nothing.
  const std::string run2 = dir + "/run2";
  fs::create_directories(run2);
  std::ofstream(run2 + "/.tinylm-run") << "";
  outside.folder(run2 + "/adapter", {"adapter_config.json", "adapter_model.safetensors"});
  r = run_tinylm("train --quiet --config " + dir + "/lora.json --out " + run2);
  ASSERT_EQ(r.code, 0) << r.output;
  outside.expect_untouched();
  EXPECT_TRUE(fs::is_directory(fs::symlink_status(run2 + "/adapter")));
  EXPECT_TRUE(file_exists(run2 + "/adapter/adapter_model.safetensors"));
  fs::remove_all(dir);
}

TEST(RunLinks, AResumedLogOrALockThatIsALinkIsRefused) {
  const std::string dir = fresh_dir("links-resume");
  Outside outside(dir + "/outside");
  const std::string cfg = links_lora_config(dir);
  const std::string run = dir + "/run";
  auto r = run_tinylm("train --quiet --config " + cfg + " --out " + run + " --stop-after 2");
  ASSERT_EQ(r.code, 0) << r.output;
  fs::remove(run + "/log.jsonl");
  outside.file(run + "/log.jsonl", "{\"step\": 1, \"loss\": 9}\n");
  const std::string before = read_file(run + "/last.safetensors");
  r = run_tinylm("train --quiet --config " + cfg + " --out " + run + " --resume");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(run + "/log.jsonl is a symbolic link"), std::string::npos) << r.output;
  EXPECT_EQ(read_file(run + "/last.safetensors"), before);
  outside.expect_untouched();

  // The marker (the lock file) as a link to an empty file: never written or locked.
  const std::string run2 = dir + "/run2";
  fs::create_directories(run2);
  outside.file(run2 + "/.tinylm-run", "");
  r = run_tinylm("train --quiet --config " + cfg + " --out " + run2);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(".tinylm-run is a symbolic link"), std::string::npos) << r.output;
  outside.expect_untouched();
  fs::remove_all(dir);
}

TEST(RunLinks, FinetuneNeverWritesThroughALink) {
  const std::string dir = fresh_dir("links-finetune");
  Outside outside(dir + "/outside");
  nlohmann::json settings = tiny_classify_settings();
  settings["finetune"]["epochs"] = 1;
  settings["finetune"]["trainable"] = "lora";
  settings["lora"] = {{"r", 2}, {"alpha", 4}, {"targets", {"c_attn"}}};
  std::ofstream(dir + "/settings.json") << settings.dump(2);
  const std::string args = "finetune --quiet --task classify --base gpt2-124m --data " +
                           write_spam_file(dir + "/spam.tsv", 24) + " --config " + dir +
                           "/settings.json --out ";
  // A finished run's config.json, so that the planted folder reads as a classify run.
  auto r = run_tinylm(args + dir + "/first");
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_TRUE(file_exists(dir + "/first/hf/config.json"));

  const std::string run = dir + "/run";
  fs::create_directories(run);
  std::ofstream(run + "/.tinylm-run") << "";
  outside.file(run + "/config.json", read_file(dir + "/first/config.json"));
  outside.file(run + "/config.json.tmp");
  for (const char* name :
       {"tokenizer.json", "log.jsonl", "accuracy-before.json", "results.json", "report.html"})
    outside.file_and_temp(run, name);
  outside.dangling(run + "/last.safetensors");
  outside.file(run + "/last.safetensors.tmp");
  outside.folder(run + "/adapter", {"adapter_config.json", "adapter_model.safetensors"});
  outside.folder(run + "/hf", {"config.json", "model.safetensors"});
  r = run_tinylm(args + run);
  ASSERT_EQ(r.code, 0) << r.output;
  outside.expect_untouched();
  EXPECT_TRUE(file_exists(run + "/hf/model.safetensors"));
  EXPECT_FALSE(fs::is_symlink(run + "/hf"));
  fs::remove_all(dir);
}

TEST(RunLinks, LoraMergeNeverWritesThroughALink) {
  const std::string dir = fresh_dir("links-merge");
  Outside outside(dir + "/outside");
  outside.folder(dir + "/m.tmp-merge", {"config.json"});
  outside.file(dir + "/m.tmp");
  const std::string merge =
      "lora merge --base tests/fixtures/gpt2-micro-lora --adapter "
      "tests/fixtures/gpt2-micro-lora/adapter --out ";
  auto r = run_tinylm(merge + dir + "/m");
  ASSERT_EQ(r.code, 0) << r.output;
  outside.expect_untouched();
  // --out itself a link to an empty outside folder: refused, not written through.
  outside.folder(dir + "/n", {});
  r = run_tinylm(merge + dir + "/n");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("symbolic link"), std::string::npos) << r.output;
  outside.expect_untouched();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tinylm::testing
